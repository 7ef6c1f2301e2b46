import Dispatch
import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/scheduleRepeating(wallClockEvery:offset:_:)``: libev's
/// `ev_periodic` interval mode, a grid of wall-clock time re-aligned when the
/// clock is set.
@Suite struct WallClockGridTests {
  /// 2027-01-15 10:07:00 UTC.
  let start = Date(timeIntervalSince1970: 1_800_000_000 + 420)

  func minutesAfterTenOClock(_ date: Date) -> Double {
    (date.timeIntervalSince1970 - 1_800_000_000) / 60
  }

  /// A virtual loop at `start`, a grid timer on it, and a log of the wall
  /// clock (in minutes after 10:00) and the due date at each call.
  func grid(
    every interval: Duration, offset: Duration = .zero
  ) throws -> (VirtualEventLoop, EventLog<(at: Double, due: Double?)>, ClockTimerHandle) {
    let loop = VirtualEventLoop()
    loop.setWallClock(to: start)
    let calls = EventLog<(at: Double, due: Double?)>()
    let handle = try loop.scheduleRepeating(wallClockEvery: interval, offset: offset) { handle in
      calls.append(
        (minutesAfterTenOClock(loop.wallClockNow), handle.fireDate.map(minutesAfterTenOClock)))
    }
    return (loop, calls, handle)
  }

  @Test func firesOnTheQuarterHoursNeverBetween() throws {
    let (loop, calls, handle) = try grid(every: .seconds(900))
    defer { loop.shutdown() }
    #expect(handle.fireDate == start.addingTimeInterval(8 * 60))
    loop.advanceTime(by: .seconds(8 * 60 - 1))
    #expect(calls.all.isEmpty)
    loop.advanceTime(by: .seconds(40 * 60))
    #expect(calls.all.map(\.at) == [15, 30, 45])
    #expect(calls.all.map(\.due) == [15, 30, 45])
  }

  @Test func anOffsetShiftsTheGridAndANegativeOneCountsBack() throws {
    let (loop, calls, _) = try grid(every: .seconds(3_600), offset: .seconds(20 * 60))
    defer { loop.shutdown() }
    loop.advanceTime(by: .seconds(2 * 3_600))
    #expect(calls.all.map(\.at) == [20, 80])
    let (back, backCalls, _) = try grid(every: .seconds(3_600), offset: .seconds(-40 * 60))
    defer { back.shutdown() }
    back.advanceTime(by: .seconds(2 * 3_600))
    #expect(backCalls.all.map(\.at) == [20, 80])
  }

  @Test func aStepForwardGivesOneCallThenTheGridAndAStepBackReAligns() throws {
    let (loop, calls, handle) = try grid(every: .seconds(900))
    defer { loop.shutdown() }
    // Forward from 10:07 to 11:05: 10:15 ... 11:00 passed; one call, late.
    loop.setWallClock(to: start.addingTimeInterval(58 * 60))
    #expect(calls.all.map(\.at) == [65])
    #expect(calls.all.map(\.due) == [15])
    #expect(handle.fireDate == start.addingTimeInterval(68 * 60))  // 11:15
    // Back to 09:01: the next point is 09:15, not 11:15.
    loop.setWallClock(to: start.addingTimeInterval(-66 * 60))
    #expect(handle.fireDate == start.addingTimeInterval(-52 * 60))
    loop.advanceTime(by: .seconds(14 * 60))
    #expect(calls.all.map(\.at) == [65, -45])
  }

  /// A call that ends just before the next point (here 50 µs, less than
  /// the 0.1 ms floor of rule timers) leaves the timer on its grid.
  @Test func aSlowCallEndingJustBeforeThePointKeepsTheGrid() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.setWallClock(to: start)
    let due = EventLog<Int64>()
    try loop.scheduleRepeating(wallClockEvery: .milliseconds(1)) { handle in
      due.append(handle.timer.deadline!)
      loop.stall(for: .microseconds(950))
    }
    loop.advanceTime(by: .milliseconds(3))
    let points = due.all.map { $0 - start.wallNanoseconds }
    #expect(points == [1_000_000, 2_000_000, 3_000_000])
  }

  @Test func tooSmallIntervalsRepeatEveryTenthOfAMillisecond() throws {
    for interval in [Duration.zero, .nanoseconds(-5), .nanoseconds(1)] {
      let (loop, calls, _) = try grid(every: interval)
      loop.advanceTime(by: .microseconds(300))
      #expect(calls.all.count == 3, "\(interval)")
      loop.shutdown()
    }
  }

  @Test func pointsAreExactFarFromTheEpochAndSaturateAtTheEndOfTheRange() {
    let grid = WallClockGrid(interval: 1_000_000_000, offset: 250_000_000)
    #expect(grid.point(after: -3_700_000_000) == -2_750_000_000)  // 1969
    #expect(grid.point(after: -2_750_000_000) == -1_750_000_000)
    #expect(grid.point(after: .max - 10) == .max)
    #expect(grid.point(after: .min) == .min + 104_775_808)  // 1677
    let huge = WallClockGrid(interval: .max, offset: .min)
    #expect(huge.phase >= 0 && huge.phase < .max)
  }

  /// On a real loop the calls come at or after their grid points of
  /// `CLOCK_REALTIME`, and the due dates are grid points.
  @Test func onARealLoopEachCallIsAtOrAfterItsGridPoint() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let calls = EventLog<(at: Int64, due: Int64?)>()
    let done = DispatchSemaphore(value: 0)
    try loop.scheduleRepeating(wallClockEvery: .milliseconds(10)) { handle in
      calls.append((loop.wallClockNanoseconds, handle.timer.deadline))
      if calls.all.count == 3 {
        handle.cancel()
        done.signal()
      }
    }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    for call in calls.all {
      let due = try #require(call.due)
      #expect(call.at >= due, "fired early")
      #expect(due % 10_000_000 == 0)
    }
  }
}
