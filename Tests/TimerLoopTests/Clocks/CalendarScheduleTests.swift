import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Rule and calendar schedules on the wall clock, in virtual time: DST in
/// America/New_York, 29 February, clock jumps, bad rules.
@Suite struct CalendarScheduleTests {
  let newYork: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "America/New_York")!
    return calendar
  }()

  /// A date given in UTC.
  func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(
      from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
  }

  /// A virtual loop whose wall clock reads `date`, and a log of the wall
  /// clock at each call of a schedule made by `schedule`.
  func run(
    from date: Date, for amount: Duration,
    _ schedule: (VirtualEventLoop, @escaping @Sendable (ClockTimerHandle) -> Void) throws -> Void
  ) throws -> [Date] {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }  // the closures capture the loop
    loop.setWallClock(to: date)
    let calls = EventLog<Date>()
    try schedule(loop) { _ in calls.append(loop.wallClockNow) }
    loop.advanceTime(by: amount)
    return calls.all
  }

  /// 2026-03-08, 02:00 EST becomes 03:00 EDT: 02:30 does not exist that day.
  @Test func springForwardFiresAMissingTimeAtTheFirstTimeAfterTheGap() throws {
    let calls = try run(from: utc(2026, 3, 7, 12), for: .seconds(3 * 86_400)) { loop, body in
      try loop.scheduleRepeating(matching: DateComponents(hour: 2, minute: 30), in: newYork, body)
    }
    // 02:30 EST on the 7th... is before the start; 03:00 EDT on the 8th, 02:30 EDT after.
    #expect(calls == [utc(2026, 3, 8, 7), utc(2026, 3, 9, 6, 30), utc(2026, 3, 10, 6, 30)])
  }

  /// 2026-11-01, 02:00 EDT becomes 01:00 EST: 01:30 happens twice that day.
  @Test func fallBackFiresARepeatedTimeOnce() throws {
    let calls = try run(from: utc(2026, 10, 31, 12), for: .seconds(3 * 86_400)) { loop, body in
      try loop.scheduleRepeating(matching: DateComponents(hour: 1, minute: 30), in: newYork, body)
    }
    // 01:30 EDT (05:30 UTC) on the 1st, not 01:30 EST (06:30 UTC) too; then 01:30 EST.
    #expect(calls == [utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30), utc(2026, 11, 3, 6, 30)])
  }

  /// A job that runs late (here the clock was set forward past its date)
  /// reads the occurrence it runs for, not the time it runs at.
  @Test func aCalendarJobReadsTheDateItWasDue() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.setWallClock(to: utc(2026, 6, 1, 6))  // 02:00 EDT
    let seen = EventLog<(due: Date?, now: Date)>()
    let handle = try loop.scheduleRepeating(
      matching: DateComponents(hour: 3, minute: 0), in: newYork
    ) { handle in seen.append((handle.fireDate, loop.wallClockNow)) }
    #expect(handle.fireDate == utc(2026, 6, 1, 7))
    loop.setWallClock(to: utc(2026, 6, 2, 19))  // 15:00 EDT the next day
    #expect(seen.all.map(\.due) == [utc(2026, 6, 1, 7)])
    #expect(seen.all.map(\.now) == [utc(2026, 6, 2, 19)])
    #expect(handle.fireDate == utc(2026, 6, 3, 7), "the next date, from the rule at the new time")
    loop.advanceTime(by: .seconds(86_400))
    #expect(seen.all.map(\.due) == [utc(2026, 6, 1, 7), utc(2026, 6, 3, 7)])
  }

  /// The same day with `.last`: 01:30 fires once, at its second
  /// occurrence, 01:30 EST.
  @Test func fallBackFiresTheLastOccurrenceOfARepeatedTimeWhenAsked() throws {
    let calls = try run(from: utc(2026, 10, 31, 12), for: .seconds(3 * 86_400)) { loop, body in
      try loop.scheduleRepeating(
        matching: DateComponents(hour: 1, minute: 30), in: newYork, repeatedTimePolicy: .last,
        body)
    }
    #expect(calls == [utc(2026, 11, 1, 6, 30), utc(2026, 11, 2, 6, 30), utc(2026, 11, 3, 6, 30)])
  }

  /// Started between the two occurrences (01:45 EDT), either policy fires
  /// the second that day: Foundation's search starts after the start, where
  /// only 01:30 EST is left.
  @Test func startedBetweenTheTwoOccurrencesEitherPolicyFiresTheSecond() throws {
    for policy in [Calendar.RepeatedTimePolicy.last, .first] {
      let calls = try run(from: utc(2026, 11, 1, 5, 45), for: .seconds(86_400)) { loop, body in
        try loop.scheduleRepeating(
          matching: DateComponents(hour: 1, minute: 30), in: newYork,
          repeatedTimePolicy: policy, body)
      }
      #expect(calls.first == utc(2026, 11, 1, 6, 30), "\(policy)")
    }
  }

  @Test func aStrictTwentyNinthOfFebruaryWaitsForLeapYears() throws {
    let calls = try run(from: utc(2026, 1, 1), for: .seconds(9 * 365 * 86_400)) { loop, body in
      try loop.scheduleRepeating(
        matching: DateComponents(month: 2, day: 29, hour: 12), in: newYork,
        matchingPolicy: .strict, body)
    }
    #expect(calls == [utc(2028, 2, 29, 17), utc(2032, 2, 29, 17)])
  }

  /// A rule is called with the date the timer was due, so a grid rule keeps
  /// its grid; after a stall past several dates, one call, then from now.
  @Test func aClosureRuleKeepsItsGridAndGetsOneCallForMissedDates() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }  // the closures capture the loop
    let start = loop.wallClockNow
    let calls = EventLog<TimeInterval>()
    let inputs = EventLog<TimeInterval>()
    try loop.scheduleRepeating(
      firstAt: start.addingTimeInterval(60),
      nextDate: { date in
        inputs.append(date.timeIntervalSince(start))
        return date.addingTimeInterval(60)
      }
    ) { _ in calls.append(loop.wallClockNow.timeIntervalSince(start)) }
    loop.advanceTime(by: .seconds(120))
    #expect(calls.all == [60, 120])
    loop.stall(for: .seconds(190))  // to 310 s: the dates at 180, 240 and 300 s pass
    loop.run()
    #expect(calls.all == [60, 120, 310])
    #expect(inputs.all == [60, 120, 180, 310])
    loop.advanceTime(by: .seconds(60))
    #expect(calls.all == [60, 120, 310, 370])
  }

  /// A step forward over three daily dates: one call, then the next date
  /// after the new time; nothing replayed.
  @Test func aJumpForwardGivesOneCallAndNoReplay() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }  // the closures capture the loop
    loop.setWallClock(to: utc(2026, 6, 1, 12))
    let calls = EventLog<Date>()
    try loop.scheduleRepeating(matching: DateComponents(hour: 3), in: newYork) { _ in
      calls.append(loop.wallClockNow)
    }
    loop.setWallClock(to: utc(2026, 6, 4, 12))
    #expect(calls.all == [utc(2026, 6, 4, 12)])
    loop.advanceTime(by: .seconds(86_400))
    #expect(calls.all == [utc(2026, 6, 4, 12), utc(2026, 6, 5, 7)])
  }

  /// A step back: the next date is recomputed from the rule at the new time,
  /// not left at the date computed before the jump.
  @Test func aJumpBackRecomputesTheNextDateFromTheRule() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }  // the closures capture the loop
    loop.setWallClock(to: utc(2026, 6, 10, 12))
    let calls = EventLog<Date>()
    try loop.scheduleRepeating(matching: DateComponents(hour: 3), in: newYork) { _ in
      calls.append(loop.wallClockNow)
    }
    loop.setWallClock(to: utc(2026, 6, 7, 12))
    loop.advanceTime(by: .seconds(86_400))
    #expect(calls.all == [utc(2026, 6, 8, 7)])
  }

  @Test func aRuleReturningNilEndsTheTimerAndReleasesItsClosures() throws {
    let loop = VirtualEventLoop()
    let calls = Atomic<Int>(0)
    weak var weakCanary: Canary?
    let handle = try {
      let canary = Canary()
      weakCanary = canary
      return try loop.scheduleRepeating(
        firstAt: loop.wallClockNow.addingTimeInterval(1),
        nextDate: { _ in
          _ = canary
          return nil
        }
      ) { _ in calls.add(1, ordering: .relaxed) }
    }()
    loop.advanceTime(by: .seconds(10))
    #expect(calls.load(ordering: .relaxed) == 1)
    #expect(!handle.isValid)
    #expect(weakCanary == nil)
  }

  @Test func aRuleReturningADateNotAfterItsInputCannotSpin() throws {
    let loop = VirtualEventLoop()
    let calls = Atomic<Int>(0)
    let start = loop.wallClockNow
    for rule: @Sendable (Date) -> Date? in [{ $0 }, { $0.addingTimeInterval(-5) }, { _ in start }] {
      try loop.scheduleRepeating(firstAt: start, nextDate: rule) { _ in
        calls.add(1, ordering: .relaxed)
      }
    }
    loop.advanceTime(by: .milliseconds(1))
    // Every 0.1 ms from 0 to 1 ms: 11 calls each.
    #expect(calls.load(ordering: .relaxed) == 33)
  }

  @Test func aScheduleThatNothingMatchesIsNeverScheduled() throws {
    let loop = VirtualEventLoop()
    let handle = try loop.scheduleRepeating(
      matching: DateComponents(month: 2, day: 30), in: newYork, matchingPolicy: .strict
    ) { _ in Issue.record("ran") }
    #expect(!handle.isValid)
    loop.advanceTime(by: .seconds(5 * 365 * 86_400))
  }

  @Test func calendarSchedulesAfterShutdownThrow() throws {
    let loop = VirtualEventLoop()
    loop.shutdown()
    #expect(throws: TimerLoopError.shutdown) {
      try loop.scheduleRepeating(matching: DateComponents(minute: 0), in: newYork) { _ in }
    }
    #expect(throws: TimerLoopError.shutdown) {
      try loop.scheduleRepeating(firstAt: Date(), nextDate: { $0 }) { _ in }
    }
  }

  /// The real loop's `ECANCELED` (faked by the seam), from the timerfd's
  /// read or from `timerfd_settime`, which reports a change made since the
  /// last read though it arms the timer (timerfd_create(2), NOTES; it
  /// stopped the loop as a failed call): a waiting rule timer takes its next
  /// date from its rule at the current time, and the loop goes on.
  @Test(arguments: ["read(clock timerfd)", "timerfd_settime"])
  func aClockChangeOnTheRealLoopReschedulesRuleTimersFromNow(reportedBy syscall: String) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let inputs = EventLog<Date>()
    let fired = DispatchSemaphore(value: 0)
    try onLoop(loop) {
      FaultInjection.inject([ECANCELED], into: syscall)
      try loop.scheduleRepeating(
        firstAt: loop.wallClockNow.addingTimeInterval(3600),
        nextDate: { date in
          inputs.append(date)
          return date.addingTimeInterval(3600)
        }
      ) { _ in }
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(0.005)) { fired.signal() }
    }
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
    let input = try #require(inputs.all.first)
    #expect(abs(input.timeIntervalSinceNow) < 30, "the rule was not asked at the clock change")
    #expect(loop.terminationError == nil)
  }
}
