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
    let boot = try EpollEventLoop()
    defer { boot.shutdown() }
    try boot.schedule(at: boot.continuousNow.advanced(by: .seconds(60))) {}
    try boot.runOnce()  // takes the timer in and arms its timerfd
    let bootDeadline = try #require(boot.nextDeadline, "a boot-time timer is pending")
    #expect(bootDeadline > boot.now + .seconds(50) && bootDeadline <= boot.now + .seconds(60))

    let wall = try EpollEventLoop()
    defer { wall.shutdown() }
    try wall.schedule(at: wall.wallClockNow.addingTimeInterval(60)) {}
    try wall.runOnce()
    let wallDeadline = try #require(wall.nextDeadline, "a wall-clock timer is pending")
    #expect(wallDeadline > wall.now + .seconds(50) && wallDeadline <= wall.now + .seconds(61))
  }

  @Test func theEarlierOfAMonotonicAndABootTimeTimerIsTheNextDeadline() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    let monotonic = try loop.schedule(after: .seconds(30)) {}
    try loop.runOnce()
    let withBoth = try #require(loop.nextDeadline)
    #expect(withBoth <= loop.now + .seconds(30))
    monotonic.cancel()
    try loop.runOnce()
    let bootOnly = try #require(loop.nextDeadline)
    #expect(bootOnly > loop.now + .seconds(50))
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
