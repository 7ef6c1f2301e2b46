import Dispatch
import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The loop's leeway on its boot-time and wall-clock timerfds, as on its
/// monotonic one: a timer due up to one leeway before the armed wake-up
/// shares it (no `timerfd_settime`, one wake-up), never fires early, and a
/// timer on its own is armed for its deadline itself.
@Suite struct ClockTimerLeewayTests {
  /// When the clock's timerfd is armed to expire, in nanoseconds on
  /// `clock`, read after what was sent to the loop has run: `it_value` in
  /// `/proc/self/fdinfo` is the time left, so the expiry lies between two
  /// readings of the clock taken around it, however long this thread waited.
  func armedExpiry(_ loop: EpollEventLoop, on clock: TimerClock) throws -> ClosedRange<Int64> {
    try onLoop(loop) {}
    let fds = try watchedDescriptors(ofEpoll: loop.selector.epollFD).filter {
      $0 != loop.selector.timerFD && $0 != loop.selector.eventFD
    }
    try #require(fds.count == 1)
    let before = loop.nanoseconds(on: clock)
    let value = try #require(try timerFDInfo(fds[0])["it_value"])
    let after = loop.nanoseconds(on: clock)
    let parts = value.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",")
    let seconds = try #require(Int64(parts[0].trimmingCharacters(in: .whitespaces)))
    let nanoseconds = try #require(Int64(parts[1].trimmingCharacters(in: .whitespaces)))
    let left = seconds * 1_000_000_000 + nanoseconds
    return (before + left)...(after + left)
  }

  /// Whether the expiry `armed` is `deadline`, to the microsecond (a `Date`
  /// holds the wall clock's nanoseconds to a fraction of one).
  func isArmed(_ armed: ClosedRange<Int64>, for deadline: Int64) -> Bool {
    armed.lowerBound - 1_000 <= deadline && deadline <= armed.upperBound + 1_000
  }

  /// Schedules a timer on `clock` at `deadline` nanoseconds.
  func schedule(at deadline: Int64, on clock: TimerClock, _ loop: EpollEventLoop) throws {
    switch clock {
    case .boot: try loop.schedule(at: ContinuousClock.Instant(bootNanoseconds: deadline)) {}
    case .wall: try loop.schedule(at: Date(wallNanoseconds: deadline)) {}
    }
  }

  @Test(arguments: [TimerClock.boot, .wall])
  func aDeadlineWithinTheLeewayBeforeTheArmedOneDoesNotReArm(clock: TimerClock) throws {
    let loop = try EpollEventLoop.startOnNewThread(leeway: .seconds(1))
    defer { loop.shutdown() }
    // From one reading of the clock, so that time passing between the calls
    // moves none of the deadlines.
    let base = loop.nanoseconds(on: clock)
    let (at100, at99_5, at98) = (
      base + 100_000_000_000, base + 99_500_000_000, base + 98_000_000_000
    )
    try schedule(at: at100, on: clock, loop)
    #expect(isArmed(try armedExpiry(loop, on: clock), for: at100))
    try schedule(at: at99_5, on: clock, loop)
    #expect(
      isArmed(try armedExpiry(loop, on: clock), for: at100),
      "re-armed for a deadline within the leeway")
    try schedule(at: at98, on: clock, loop)
    #expect(
      isArmed(try armedExpiry(loop, on: clock), for: at98),
      "not armed for a deadline beyond the leeway")
  }

  @Test func aLoopWithoutLeewayArmsForEveryEarlierDeadline() throws {
    let loop = try EpollEventLoop.startOnNewThread(leeway: .zero)
    defer { loop.shutdown() }
    let base = loop.nanoseconds(on: .boot)
    try schedule(at: base + 100_000_000_000, on: .boot, loop)
    try schedule(at: base + 99_500_000_000, on: .boot, loop)
    #expect(isArmed(try armedExpiry(loop, on: .boot), for: base + 99_500_000_000))
  }

  /// Both timers run in the wake-up armed for the later one: the earlier,
  /// scheduled second and within the leeway, is late by up to the leeway,
  /// never early.
  @Test(arguments: [TimerClock.boot, .wall])
  func timersDueWithinTheLeewayShareOneWakeUpNeverEarly(clock: TimerClock) throws {
    let loop = try EpollEventLoop.startOnNewThread(leeway: .seconds(1))
    defer { loop.shutdown() }
    let ran = EventLog<(name: String, at: Int64)>()
    let done = DispatchSemaphore(value: 0)
    let (later, earlier) = try onLoop(loop) { () -> (Int64, Int64) in
      let now = loop.nanoseconds(on: clock)
      let (later, earlier) = (now + 60_000_000, now + 30_000_000)
      for (name, deadline) in [("later", later), ("earlier", earlier)] {
        let body: @Sendable () -> Void = {
          ran.append((name, loop.nanoseconds(on: clock)))
          if ran.all.count == 2 { done.signal() }
        }
        switch clock {
        case .boot: try loop.schedule(at: ContinuousClock.Instant(bootNanoseconds: deadline), body)
        case .wall: try loop.schedule(at: Date(wallNanoseconds: deadline), body)
        }
      }
      return (later, earlier)
    }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(ran.all.map(\.name) == ["earlier", "later"])
    #expect(ran.all.allSatisfy { $0.at >= later }, "the earlier one woke the loop on its own")
    #expect(ran.all[0].at >= earlier)
  }
}
