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
  /// The seconds until the expiry `fd` is armed for (`it_value` in
  /// `/proc/self/fdinfo`), read on the loop thread after what was sent to it.
  func armedIn(_ loop: EpollEventLoop) throws -> Double {
    try onLoop(loop) {}
    let fds = try watchedDescriptors(ofEpoll: loop.selector.epollFD).filter {
      $0 != loop.selector.timerFD && $0 != loop.selector.eventFD
    }
    try #require(fds.count == 1)
    let value = try #require(try timerFDInfo(fds[0])["it_value"])
    let parts = value.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",")
    let seconds = try #require(Double(parts[0].trimmingCharacters(in: .whitespaces)))
    let nanoseconds = try #require(Double(parts[1].trimmingCharacters(in: .whitespaces)))
    return seconds + nanoseconds / 1e9
  }

  @Test(arguments: [TimerClock.boot, .wall])
  func aDeadlineWithinTheLeewayBeforeTheArmedOneDoesNotReArm(clock: TimerClock) throws {
    let loop = try EpollEventLoop.startOnNewThread(leeway: .seconds(1))
    defer { loop.shutdown() }
    let schedule = { (seconds: Double) in
      switch clock {
      case .boot: try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(seconds))) {}
      case .wall: try loop.schedule(at: loop.wallClockNow.addingTimeInterval(seconds)) {}
      }
    }
    _ = try schedule(100)
    #expect(try armedIn(loop) > 99.6)
    _ = try schedule(99.5)
    #expect(try armedIn(loop) > 99.6, "re-armed for a deadline within the leeway")
    _ = try schedule(98)
    let armed = try armedIn(loop)
    #expect(armed < 98.1 && armed > 97, "not armed for a deadline beyond the leeway")
  }

  @Test func aLoopWithoutLeewayArmsForEveryEarlierDeadline() throws {
    let loop = try EpollEventLoop.startOnNewThread(leeway: .zero)
    defer { loop.shutdown() }
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(100))) {}
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(99.5))) {}
    let armed = try armedIn(loop)
    #expect(armed < 99.6 && armed > 98.5)
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
