import Foundation
import TimerLoop
import XCTest

@testable import BlockTimers

/// ``TimerClock``: fire-date timers and countdowns on the monotonic clock (the
/// default, Apple's run-loop behaviour) or on the wall clock
/// (`dispatch_walltime`'s), under wall-clock steps and suspends simulated by
/// `VirtualEventLoop`.
final class BlockTimerWallClockTests: XCTestCase {
  private func wallTimer(
    at date: Date, every interval: TimeInterval = 0, on loop: VirtualEventLoop,
    log: EventLog<Date>
  ) -> BlockTimer {
    let timer = BlockTimer(
      fire: date, interval: interval, repeats: interval > 0, clock: .wall
    ) { _ in log.append(loop.wallClockNow) }
    timer.add(to: loop)
    return timer
  }

  func testByDefaultAFireDateTimerIgnoresWallClockStepsAndSuspends() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Double>()
    let start = loop.now
    let timer = BlockTimer(fire: Date(timeIntervalSinceNow: 60), interval: 0, repeats: false) {
      _ in fired.append(loop.milliseconds(since: start))
    }
    timer.add(to: loop)
    XCTAssertEqual(timer.clock, .monotonic)
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(3_600))
    loop.suspend(for: .seconds(120))
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(-7_200))
    loop.advanceTime(by: .seconds(59))
    XCTAssertEqual(fired.count, 0, "a step or a suspend moved the timer")
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(fired.count, 1)
    XCTAssertGreaterThanOrEqual(fired.all[0], 59_000)
  }

  func testAWallClockTimerFiresInTheNextPassWhenTheClockIsSetPastItsDate() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let date = loop.wallClockNow.addingTimeInterval(3_600)
    let timer = wallTimer(at: date, on: loop, log: fired)
    XCTAssertEqual(timer.clock, .wall)
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(fired.count, 0)
    loop.setWallClock(to: date.addingTimeInterval(5))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.all, [date.addingTimeInterval(5)])
    XCTAssertFalse(timer.isValid, "a one-shot ends after it fires")
  }

  func testAWallClockTimerWaitsWhenTheClockIsSetBack() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let date = loop.wallClockNow.addingTimeInterval(10)
    _ = wallTimer(at: date, on: loop, log: fired)
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(-3_600))
    loop.advanceTime(by: .seconds(20))
    XCTAssertEqual(fired.count, 0, "fired by running time, not by the wall clock")
    loop.advanceTime(by: .seconds(3_589))
    XCTAssertEqual(fired.count, 0)
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(fired.count, 1)
    XCTAssertGreaterThanOrEqual(fired.all[0], date, "never early on the wall clock")
  }

  func testAWallClockTimerCountsTimeSuspended() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let date = loop.wallClockNow.addingTimeInterval(60)
    _ = wallTimer(at: date, on: loop, log: fired)
    loop.suspend(for: .seconds(61))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 1)
  }

  /// A step forward over nine periods gives one call, and the timer stays on
  /// its grid `date + n × interval` of the wall clock.
  func testARepeatingWallClockTimerFiresOnceForPeriodsJumpedOver() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let first = loop.wallClockNow.addingTimeInterval(1)
    let timer = wallTimer(at: first, every: 1, on: loop, log: fired)
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(fired.count, 1)
    loop.setWallClock(to: first.addingTimeInterval(9.5))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 2, "one call for the periods jumped over")
    XCTAssertEqual(timer.fireDate.timeIntervalSince(first), 10, accuracy: 1e-6)
    loop.advanceTime(by: .ms(500))
    XCTAssertEqual(fired.count, 3)
    XCTAssertEqual(fired.all[2].timeIntervalSince(first), 10, accuracy: 1e-6)
    timer.invalidate()
  }

  func testMovingOrInvalidatingAWallClockTimerReplacesOrStopsItsLoopTimer() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let start = loop.wallClockNow
    let timer = wallTimer(at: start.addingTimeInterval(10), on: loop, log: fired)
    timer.fireDate = start.addingTimeInterval(20)
    loop.setWallClock(to: start.addingTimeInterval(15))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 0, "the replaced timer fired")
    loop.setWallClock(to: start.addingTimeInterval(25))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 1)

    let stopped = wallTimer(at: start.addingTimeInterval(30), on: loop, log: fired)
    stopped.invalidate()
    loop.setWallClock(to: start.addingTimeInterval(35))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 1, "an invalidated timer fired")
  }

  func testAWallClockTimerFromAnotherThreadAndAtShutdown() {
    let loop = VirtualEventLoop()
    let fired = EventLog<Date>()
    let date = loop.wallClockNow.addingTimeInterval(10)
    let timer = DispatchQueue.global().sync { wallTimer(at: date, on: loop, log: fired) }
    loop.setWallClock(to: date)
    loop.advanceTime(by: .zero)
    XCTAssertEqual(fired.count, 1)

    weak var canary: Canary?
    let pending: BlockTimer = {
      let captured = Canary()
      canary = captured
      let timer = BlockTimer(fire: .distantFuture, interval: 0, repeats: false, clock: .wall) {
        _ in withExtendedLifetime(captured) {}
      }
      timer.add(to: loop)
      return timer
    }()
    loop.shutdown()
    XCTAssertFalse(pending.isValid)
    XCTAssertNil(canary, "the block outlived the shutdown")
    XCTAssertFalse(timer.isValid)
  }

  /// Tolerance delays a wall-clock timer by less than itself, never before its
  /// date; a countdown takes the clock too.
  func testAWallClockTimersToleranceOnlyDelaysAndACountdownTakesTheClock() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Date>()
    let date = loop.wallClockNow.addingTimeInterval(10)
    let timer = BlockTimer(fire: date, interval: 1, repeats: true, clock: .wall) { _ in
      fired.append(loop.wallClockNow)
    }
    XCTAssertEqual(timer.clock, .wall)
    timer.tolerance = 0.4
    timer.add(to: loop)
    loop.setWallClock(to: date.addingTimeInterval(-0.001))
    XCTAssertEqual(fired.count, 0)
    loop.advanceTime(by: .ms(401))
    XCTAssertEqual(fired.count, 1)
    XCTAssertGreaterThanOrEqual(fired.all[0], date, "early on the wall clock")
    XCTAssertLessThan(fired.all[0], date.addingTimeInterval(0.4))
    XCTAssertEqual(timer.fireDate.timeIntervalSince(date), 1, accuracy: 1e-6)
    timer.invalidate()

    let countdown = try CountdownTimer(
      duration: 2, tickInterval: 1, on: loop, clock: .wall,
      onTick: { _, _ in }, onCompletion: {})
    XCTAssertEqual(countdown.clock, .wall)
    countdown.start()
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(5))
    XCTAssertEqual(countdown.status, .finished)
  }

  /// The date given to the loop is the earliest that the loop does not fire
  /// before the deadline (it rounds dates up to nanoseconds): for a deadline
  /// made from a date, that date's nanosecond, so never early.
  func testWallClockAlarmDatesAreNeverEarlyAndNotLater() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let context = LoopContext.of(loop)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<100_000 {
      let date = Date(timeIntervalSince1970: .random(in: 0...4e9, using: &generator))
      let deadline = TimerClock.wall.deadline(for: date, in: context, now: loop.now)!
      XCTAssertEqual(TimerClock.wallAlarmDate(for: deadline).wallNanoseconds, date.wallNanoseconds)
      let grid = deadline + .nanoseconds(.random(in: 1...1_000_000_000_000, using: &generator))
      let alarm = TimerClock.wallAlarmDate(for: grid)
      XCTAssertGreaterThanOrEqual(alarm.wallNanoseconds, grid.uptimeNanoseconds)
      let earlier = Date(
        timeIntervalSinceReferenceDate: alarm.timeIntervalSinceReferenceDate.nextDown)
      XCTAssertLessThan(earlier.wallNanoseconds, grid.uptimeNanoseconds)
    }
    XCTAssertEqual(TimerClock.wallAlarmDate(for: .distantFuture), .distantFuture)
  }

  // MARK: CountdownTimer

  private func countdown(
    _ duration: TimeInterval, on loop: VirtualEventLoop, clock: TimerClock,
    ticks: EventLog<TimeInterval>, completions: EventLog<Date>
  ) throws -> CountdownTimer {
    try CountdownTimer(
      duration: duration, tickInterval: 1, on: loop, clock: clock,
      onTick: { remaining, _ in ticks.append(remaining) },
      onCompletion: { completions.append(loop.wallClockNow) })
  }

  func testAWallClockCountdownEndsInTheNextPassWhenTheClockIsSetPastItsEnd() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<TimeInterval>()
    let completions = EventLog<Date>()
    let timer = try countdown(5, on: loop, clock: .wall, ticks: ticks, completions: completions)
    XCTAssertEqual(timer.clock, .wall)
    timer.start()
    loop.advanceTime(by: .ms(1_500))
    XCTAssertEqual(ticks.all, [4])
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(60))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(ticks.all, [4, 0], "one final tick, no burst")
    XCTAssertEqual(completions.count, 1)
    XCTAssertEqual(timer.status, .finished)
  }

  func testAWallClockCountdownWaitsWhenTheClockIsSetBack() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<TimeInterval>()
    let completions = EventLog<Date>()
    let timer = try countdown(5, on: loop, clock: .wall, ticks: ticks, completions: completions)
    timer.start()
    loop.advanceTime(by: .ms(1_500))
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(-60))
    XCTAssertEqual(timer.remaining, 4, "set back before the last tick: no time since it")
    loop.advanceTime(by: .seconds(60))
    XCTAssertEqual(ticks.all, [4], "ticked by running time, not by the wall clock")
    loop.advanceTime(by: .ms(500))
    XCTAssertEqual(ticks.all, [4, 3])
    loop.advanceTime(by: .seconds(3))
    XCTAssertEqual(ticks.all, [4, 3, 2, 1, 0])
    XCTAssertEqual(completions.count, 1)
  }

  func testAWallClockCountdownCountsTimeSuspendedAndAMonotonicOneDoesNot() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let wallTicks = EventLog<TimeInterval>()
    let monotonicTicks = EventLog<TimeInterval>()
    let completions = EventLog<Date>()
    let wall = try countdown(
      10, on: loop, clock: .wall, ticks: wallTicks, completions: completions)
    let monotonic = try countdown(
      10, on: loop, clock: .monotonic, ticks: monotonicTicks, completions: completions)
    wall.start()
    monotonic.start()
    loop.suspend(for: .ms(4_500))
    loop.advanceTime(by: .zero)
    XCTAssertEqual(wallTicks.all, [6], "one tick for the time suspended, no burst")
    XCTAssertEqual(wall.remaining, 5.5)
    XCTAssertEqual(monotonicTicks.count, 0)
    XCTAssertEqual(monotonic.remaining, 10)
  }
}
