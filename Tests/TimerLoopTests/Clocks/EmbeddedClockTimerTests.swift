import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// An embedded loop's `nextDeadline` counts boot-time and wall-clock timers,
/// so a host that waits for it instead of the descriptor still runs them.
struct EmbeddedClockTimerTests {
  @Test func nextDeadlineCountsBootTimeAndWallClockTimers() throws {
    // Bounds from readings of the loop's time taken around the calls, with
    // a millisecond for the skew between two clocks' readings.
    let boot = try EpollEventLoop()
    defer { boot.shutdown() }
    let bootBefore = boot.now
    try boot.schedule(at: boot.continuousNow.advanced(by: .seconds(60))) {}
    try boot.runOnce()  // takes the timer in and arms its timerfd
    let bootDeadline = try #require(boot.nextDeadline, "a boot-time timer is pending")
    #expect(
      bootDeadline > bootBefore + .seconds(60) - .milliseconds(1)
        && bootDeadline <= boot.now + .seconds(60))

    let wall = try EpollEventLoop()
    defer { wall.shutdown() }
    let wallBefore = wall.now
    try wall.schedule(at: wall.wallClockNow.addingTimeInterval(60)) {}
    try wall.runOnce()
    let wallDeadline = try #require(wall.nextDeadline, "a wall-clock timer is pending")
    #expect(
      wallDeadline > wallBefore + .seconds(60) - .milliseconds(1)
        && wallDeadline <= wall.now + .seconds(61))
  }

  @Test func theEarlierOfAMonotonicAndABootTimeTimerIsTheNextDeadline() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let before = loop.now
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    let monotonic = try loop.schedule(after: .seconds(30)) {}
    try loop.runOnce()
    let withBoth = try #require(loop.nextDeadline)
    #expect(withBoth <= loop.now + .seconds(30))
    monotonic.cancel()
    try loop.runOnce()
    let bootOnly = try #require(loop.nextDeadline)
    #expect(bootOnly > before + .seconds(60) - .milliseconds(1))
  }

  /// Turned into a monotonic deadline from clock readings taken together,
  /// not from the time the pass ended: work between the two (a metrics
  /// delegate here, busy for 20 ms; the timerfd's arming, a pause of the
  /// thread) made the deadline that early, and a host waiting for it woke
  /// before the timer was due.
  @Test(arguments: [TimerClock.boot, .wall])
  func aClockTimersNextDeadlineIsNeverEarly(clock: TimerClock) throws {
    let loop = try EpollEventLoop(metricsDelegate: BusyAfterEachPass())
    defer { loop.shutdown() }
    let before = loop.now
    switch clock {
    case .boot: try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    case .wall: try loop.schedule(at: loop.wallClockNow.addingTimeInterval(60)) {}
    }
    try loop.runOnce()
    let deadline = try #require(loop.nextDeadline)
    // A millisecond for the skew between two clocks' readings.
    #expect(
      deadline > before + .seconds(60) - .milliseconds(1),
      "\(before + .seconds(60) - deadline) early")
  }

  @Test func aLoopWithNoTimerOnAnyClockHasNoNextDeadline() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let timer = try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    try loop.runOnce()
    timer.cancel()
    try loop.runOnce()
    #expect(loop.nextDeadline == nil)
  }
}

/// Keeps the loop's thread busy for 20 ms after each pass (a spin, not a
/// sleep: it stands for work the thread does, not for waiting).
private final class BusyAfterEachPass: EventLoopMetricsDelegate {
  func processedPass(info: EventLoopPassInfo) {
    let end = Deadline.now() + .milliseconds(20)
    while Deadline.now() < end {}
  }
}
