import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Timers on the wall clock (`CLOCK_REALTIME`): the rules of ``TimerEventLoop``
/// on both loops, and clock changes on the virtual one (and, through the
/// fault seam, the real one's `ECANCELED`).
@Suite struct WallClockTests {
  @Test(arguments: LoopKind.allCases)
  func aWallTimerFiresAtItsDateNeverBefore(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let date = harness.loop.wallClockNow.addingTimeInterval(0.02)
    let firedAt = EventLog<Date>()
    let handle = try harness.loop.schedule(at: date) { [loop = harness.loop] in
      firedAt.append(loop.wallClockNow)
    }
    if kind == .virtual {
      try harness.advance(by: .milliseconds(19))
      #expect(firedAt.all.isEmpty)
    }
    try harness.advance(toWallDate: date)
    #expect(firedAt.all.count == 1)
    #expect(firedAt.all.allSatisfy { $0 >= date }, "fired early")
    #expect(!handle.isValid)
  }

  @Test(arguments: LoopKind.allCases)
  func equalDatesFireInSchedulingOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    let date = harness.loop.wallClockNow.addingTimeInterval(0.01)
    for i in [3, 1, 4, 1, 5, 9, 2, 6] {
      try harness.loop.schedule(at: date) { log.append(i) }
    }
    try harness.advance(toWallDate: date)
    #expect(log.all == [3, 1, 4, 1, 5, 9, 2, 6])
  }

  @Test func theVirtualWallClockStartsAtTheSystemsWholeSecondAndMovesWithTheLoop() throws {
    let before = Date().timeIntervalSince1970.rounded(.down)
    let loop = VirtualEventLoop()
    let after = Date().timeIntervalSince1970
    let start = loop.wallClockNow
    #expect(start.timeIntervalSince1970 >= before && start.timeIntervalSince1970 <= after)
    #expect(start.timeIntervalSince1970 == start.timeIntervalSince1970.rounded(.down))
    loop.advanceTime(by: .seconds(90))
    #expect(loop.wallClockNow == start.addingTimeInterval(90))
    loop.suspend(for: .seconds(10))
    #expect(loop.wallClockNow == start.addingTimeInterval(100))
  }

  @Test func theRealLoopReadsTheSystemWallClock() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let before = Date()
    let reading = loop.wallClockNow
    let after = Date()
    // `Date()` and the loop round the same nanoseconds to a Double each way.
    #expect(before.timeIntervalSince(reading) < 1e-6 && reading.timeIntervalSince(after) < 1e-6)
  }

  /// A step forward: every timer whose date has passed fires at once, once,
  /// in date order; the others wait for their date.
  @Test func aJumpForwardFiresWhatItPassedOnce() throws {
    let loop = VirtualEventLoop()
    let start = loop.wallClockNow
    let log = EventLog<String>()
    for (name, hours) in [("3 h", 3.0), ("1 h", 1.0), ("2 h", 2.0)] {
      try loop.schedule(at: start.addingTimeInterval(hours * 3600)) { log.append(name) }
    }
    try loop.schedule(after: .seconds(9000)) { log.append("monotonic 2.5 h") }
    loop.setWallClock(to: start.addingTimeInterval(2.5 * 3600))
    #expect(log.all == ["1 h", "2 h"])
    loop.advanceTime(by: .seconds(1800))
    #expect(log.all == ["1 h", "2 h", "3 h"])
    loop.advanceTime(by: .seconds(7200))
    #expect(log.all == ["1 h", "2 h", "3 h", "monotonic 2.5 h"])
  }

  /// A step back: a timer waits until the wall clock reaches its date again.
  @Test func aJumpBackMakesTimersWaitForTheirDate() throws {
    let loop = VirtualEventLoop()
    let date = loop.wallClockNow.addingTimeInterval(600)
    let firedAt = EventLog<Date>()
    try loop.schedule(at: date) { firedAt.append(loop.wallClockNow) }
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(-3600))
    loop.advanceTime(by: .seconds(600))
    #expect(firedAt.all.isEmpty)
    loop.advanceTime(by: .seconds(3600))
    #expect(firedAt.all == [date])
  }

  /// Never early against the wall clock at the moment of the call: a
  /// callback sets the clock back, and a timer of the same pass waits.
  @Test func aTimerOfThePassWaitsWhenACallbackSetsTheClockBack() throws {
    let loop = VirtualEventLoop()
    let date = loop.wallClockNow.addingTimeInterval(60)
    let log = EventLog<String>()
    try loop.schedule(at: date) {
      log.append("first")
      loop.setWallClock(to: date.addingTimeInterval(-30))
    }
    try loop.schedule(at: date) { log.append("second at \(loop.wallClockNow >= date)") }
    loop.advanceTime(by: .seconds(60))
    #expect(log.all == ["first"])
    loop.advanceTime(by: .seconds(30))
    #expect(log.all == ["first", "second at true"])
  }

  @Test func setWallClockInsideACallbackRunsWhatItMakesDueInALaterPass() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    let date = loop.wallClockNow.addingTimeInterval(3600)
    try loop.schedule(at: date) { log.append("wall") }
    try loop.schedule(after: .milliseconds(1)) {
      loop.setWallClock(to: date)
      log.append("set")
    }
    loop.advanceTime(by: .milliseconds(1))
    #expect(log.all == ["set", "wall"])
  }

  @Test func aSuspendMakesWallTimersDue() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    try loop.schedule(at: loop.wallClockNow.addingTimeInterval(60)) { log.append("wall") }
    loop.suspend(for: .seconds(60))
    #expect(log.all == ["wall"])
  }

  @Test func badDatesNeverFireOrFireInTheNextPass() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    let never: [Date] = [
      Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .infinity),
      .distantFuture, Date(timeIntervalSince1970: 1e300),
    ]
    for date in never { try loop.schedule(at: date) { log.append("never") } }
    #expect(loop.liveTimerCount == 0, "a date that never comes armed a wake-up")
    let past: [Date] = [
      .distantPast, Date(timeIntervalSinceReferenceDate: -.infinity),
      Date(timeIntervalSince1970: -1e300), Date(timeIntervalSince1970: 0),
    ]
    for date in past { try loop.schedule(at: date) { log.append("past") } }
    loop.run()
    #expect(log.all == ["past", "past", "past", "past"])
    loop.advanceTime(by: .seconds(1_000_000))
    loop.setWallClock(to: Date(timeIntervalSince1970: 9e9))
    loop.setWallClock(to: Date(timeIntervalSinceReferenceDate: .nan))
    #expect(log.all.count == 4)
    // Even a wall clock set to the end of its range never reaches "never".
    loop.setWallClock(to: .distantFuture)
    try loop.schedule(at: Date.distantPast) { log.append("a pass") }
    loop.advanceTime(by: .seconds(1))
    #expect(log.all == ["past", "past", "past", "past", "a pass"])
  }

  @Test func datesBecomeWholeNanosecondsRoundedUp() {
    // 0.1 s is a little more than 100,000,000 ns as a Double: one more.
    #expect(Date(timeIntervalSinceReferenceDate: 0.1).wallNanoseconds == 978_307_200_100_000_001)
    #expect(Date(timeIntervalSinceReferenceDate: 0.25).wallNanoseconds == 978_307_200_250_000_000)
    #expect(Date(timeIntervalSince1970: -1.5).wallNanoseconds == -1_500_000_000)
    #expect(Date(timeIntervalSince1970: 1e10).wallNanoseconds == .max)
    for nanoseconds: Int64 in [0, 1_767_225_600_000_000_000, -2_000_000_000] {
      #expect(Date(wallNanoseconds: nanoseconds).wallNanoseconds == nanoseconds)
    }
  }

  @Test(arguments: LoopKind.allCases)
  func schedulingAfterShutdownThrowsAndReleasesTheClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    harness.loop.shutdown()
    weak var weakCanary: Canary?
    #expect(throws: TimerLoopError.shutdown) {
      let canary = Canary()
      weakCanary = canary
      try harness.loop.schedule(at: Date()) { _ = canary }
    }
    #expect(weakCanary == nil)
  }

  /// `ECANCELED` from the timerfd read (the wall clock was set) makes the
  /// loop re-evaluate and run what is due; it does not stop the loop.
  @Test func aClockChangeReportedByTheTimerfdIsHandled() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let fired = DispatchSemaphore(value: 0)
    try onLoop(loop) {
      FaultInjection.inject([ECANCELED, ECANCELED], into: "read(clock timerfd)")
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(0.005)) { fired.signal() }
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(0.010)) { fired.signal() }
    }
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(loop.terminationError == nil)
    try onLoop(loop) { FaultInjection.reset() }
  }
}
