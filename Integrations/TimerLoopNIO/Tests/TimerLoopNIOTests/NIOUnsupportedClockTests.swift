import Foundation
import NIOCore
import NIOEmbedded
import Testing
import TimerLoop
import TimerLoopNIO

/// The NIO host has monotonic timers only: every boot-time and wall-clock
/// call throws `TimerLoopError.unsupportedClock` (it once stopped the
/// program), releases its closure, schedules nothing, and leaves the loop's
/// monotonic timers working; the clocks' readers give the system's time.
@Suite struct NIOUnsupportedClockTests {
  /// Each call, with a canary captured by its closure.
  static let calls: [(String, @Sendable (NIOTimerLoop, Canary) throws -> Void)] = [
    ("schedule(at: Date)", { timers, canary in _ = try timers.schedule(at: Date()) { _ = canary } }),
    (
      "schedule(at: ContinuousClock.Instant)",
      { timers, canary in _ = try timers.schedule(at: ContinuousClock.now) { _ = canary } }
    ),
    (
      "scheduleRepeating(firstAt: ContinuousClock.Instant)",
      { timers, canary in
        _ = try timers.scheduleRepeating(firstAt: ContinuousClock.now, every: .seconds(1)) { _ in
          _ = canary
        }
      }
    ),
    (
      "scheduleRepeating(firstAt: Date, nextDate:)",
      { timers, canary in
        _ = try timers.scheduleRepeating(firstAt: Date(), nextDate: { _ = canary; return $0 }) {
          _ in _ = canary
        }
      }
    ),
    (
      "scheduleRepeating(matching:)",
      { timers, canary in
        _ = try timers.scheduleRepeating(matching: DateComponents(second: 0)) { _ in _ = canary }
      }
    ),
    (
      "scheduleRepeating(matching:) that no date matches",
      { timers, canary in
        _ = try timers.scheduleRepeating(matching: DateComponents(month: 13)) { _ in _ = canary }
      }
    ),
    (
      "scheduleRepeating(wallClockEvery:)",
      { timers, canary in
        _ = try timers.scheduleRepeating(wallClockEvery: .seconds(1)) { _ in _ = canary }
      }
    ),
    ("onWallClockSet", { timers, canary in _ = try timers.onWallClockSet { _ in _ = canary } }),
  ]

  @Test(arguments: 0..<calls.count)
  func aClockTimerCallThrows(_ index: Int) throws {
    let (name, call) = Self.calls[index]
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    var canary: Canary? = Canary()
    let watch = WeakReference(canary!)
    #expect(throws: TimerLoopError.unsupportedClock, "\(name)") { try call(timers, canary!) }
    canary = nil
    #expect(watch.object == nil, "\(name) kept its closure")

    // The monotonic timers are untouched.
    let log = EventLog<String>()
    try timers.schedule(after: .milliseconds(1)) { log.append("fired") }
    loop.advanceTime(by: .milliseconds(1))
    #expect(log.all == ["fired"])
  }

  @Test func aShutDownLoopThrowsUnsupportedClockToo() throws {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    timers.shutdown()
    #expect(throws: TimerLoopError.unsupportedClock) { try timers.schedule(at: Date()) {} }
    #expect(throws: TimerLoopError.shutdown) { try timers.schedule(after: .zero) {} }
  }

  @Test func sleepsAndDeadlinesAtADateOrAnInstantThrow() async throws {
    let loop = NIOAsyncTestingEventLoop()
    let timers = loop.timerLoop
    await #expect(throws: TimerLoopError.unsupportedClock) {
      try await timers.sleep(until: Date(timeIntervalSinceNow: 3600))
    }
    await #expect(throws: TimerLoopError.unsupportedClock) {
      try await timers.sleep(until: ContinuousClock.now + .seconds(3600))
    }
    await #expect(throws: TimerLoopError.unsupportedClock) {
      try await timers.continuousClock.sleep(for: .seconds(3600))
    }
    await #expect(throws: TimerLoopError.unsupportedClock) {
      try await timers.withDeadline(ContinuousClock.now + .seconds(3600)) {
        Issue.record("the operation ran")
      }
    }
    #expect(timers.sleepingTaskCount == 0)
    await loop.shutdownGracefully()
  }

  @Test func theDateSequencesAreEmpty() async {
    let loop = NIOAsyncTestingEventLoop()
    let timers = loop.timerLoop
    for await _ in timers.dates(wallClockEvery: .seconds(1)) { Issue.record("a date came") }
    for await _ in timers.dates(matching: DateComponents(second: 0)) { Issue.record("a date came") }
    await loop.shutdownGracefully()
  }

  @Test func theClocksReadersGiveTheSystemsTime() {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    let (dateBefore, instantBefore) = (Date(), ContinuousClock.now)
    let (date, instant) = (timers.wallClockNow, timers.continuousNow)
    let (dateAfter, instantAfter) = (Date(), ContinuousClock.now)
    // The wall clock may be set between the readings; not on a test machine.
    #expect(dateBefore.timeIntervalSince1970 - 1e-6 <= date.timeIntervalSince1970)
    #expect(date.timeIntervalSince1970 <= dateAfter.timeIntervalSince1970 + 1e-6)
    #expect(instantBefore <= instant && instant <= instantAfter)
  }
}
