import Foundation
@_spi(TimerLoopHost) import TimerLoopCore

/// Repeating wall-clock timers whose next date comes from a rule: a closure
/// (libev's `ev_periodic` with a reschedule callback) or a `Calendar` match
/// ("at 03:00 every day"), computed with Foundation's
/// `Calendar.nextDate(after:matching:matchingPolicy:)`, so time zones,
/// daylight-saving transitions and leap days are Foundation's.
///
/// They are wall-clock timers (see ``schedule(at:_:)-(Date,_)``): on the
/// `CLOCK_REALTIME` timerfd, never early against the wall clock, FIFO among
/// equal dates. When the wall clock is set, one whose date has now passed
/// fires once in the next pass; one whose date is still ahead takes its next
/// date from its rule at the current time, so dates a jump skipped are never
/// replayed, and a jump back does not leave it waiting for a date computed
/// before the jump.
extension TimerEventLoop {
  /// Runs `body` on the loop's thread at `first` on the wall clock, then at
  /// each date `nextDate` gives, until cancelled or until `nextDate`
  /// returns `nil`.
  ///
  /// libev's `ev_periodic` with a reschedule callback, on the wall clock
  /// (see ``schedule(at:_:)-(Date,_)``: `CLOCK_REALTIME`, following clock
  /// changes). After a call, `nextDate` is called on the loop's thread with the date
  /// the timer was due (a date the loop reached, never early); it must
  /// return the first date of the schedule strictly after its argument. A
  /// date less than 0.1 ms after its argument (or not after it) is raised to
  /// 0.1 ms after it, the floor of repeat intervals, so a wrong rule cannot
  /// spin the loop. If the date it gives has passed too (the
  /// loop was late, or the clock was set forward past it), `nextDate` is
  /// called again with the current wall-clock time: missed dates get one
  /// call, never a burst. When the wall clock is set, a timer still waiting
  /// for a date is rescheduled with `nextDate(now)`.
  ///
  /// - Parameters:
  ///   - first: the first date; a past one runs in the next pass; one that
  ///     never comes (NaN, `Date.distantFuture`) never runs. Rounded up to
  ///     whole nanoseconds.
  ///   - nextDate: the schedule's rule; `nil` ends the timer. A date that
  ///     never comes (NaN, `Date.distantFuture`) leaves the timer waiting,
  ///     valid and costing no CPU, until it is cancelled: a change of the
  ///     wall clock does not ask the rule again for such a timer.
  ///   - body: runs on the loop thread with the timer's handle, which can
  ///     cancel or move it; its ``ClockTimerHandle/fireDate`` is the date
  ///     this call was due (the occurrence it runs for, however late).
  /// - Returns: a handle that cancels the timer (``ClockTimerHandle/cancel()``:
  ///   exact from any thread); invalid once `nextDate` returned `nil`.
  /// - Throws: ``TimerLoopError/unsupportedClock`` or ``TimerLoopError/shutdown``
  ///   as ``schedule(at:_:)-(Date,_)``
  ///   does; `body` and `nextDate` are released.
  /// - Complexity: O(log n) per schedule and per call, for n timers on the
  ///   wall clock, plus the rule's own cost; O(n) when the clock is set.
  @discardableResult
  public func scheduleRepeating(
    firstAt first: Date, nextDate: @escaping @Sendable (Date) -> Date?,
    _ body: @escaping @Sendable (ClockTimerHandle) -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let rule: @Sendable (Int64) -> Int64? = { nextDate(Date(wallNanoseconds: $0))?.wallNanoseconds }
    return try scheduleClockTimer(
      on: .wall, at: first.wallNanoseconds, repeats: .rule(rule), body: .repeating(body))
  }

  /// Runs `body` on the loop's thread at every wall-clock date that matches
  /// `components` in `calendar` ("every day at 03:00": `DateComponents(hour: 3,
  /// minute: 0)`), until cancelled, or until no date matches any more.
  ///
  /// A wall-clock timer (see ``schedule(at:_:)-(Date,_)``: `CLOCK_REALTIME`,
  /// following clock changes). Each date is
  /// `calendar.nextDate(after:matching:matchingPolicy:repeatedTimePolicy:)`
  /// of the previous one
  /// (Apple's Foundation documentation describes the matching), the first
  /// of ``wallClockNow``, so the calendar's time zone
  /// decides what 03:00 is, and `matchingPolicy` what happens to a time a
  /// daylight-saving transition skips (with `.nextTime`, the default, 02:30
  /// on a spring-forward day fires at the first time after the gap) or to a
  /// day some years lack (29 February: `.strict` waits for a leap year), and
  /// `repeatedTimePolicy` which occurrence of a time a fall-back transition
  /// repeats fires: once, at the first (`.first`, Foundation's default) or
  /// at the last (`.last`; 01:30 on the day New York leaves daylight saving
  /// time fires at 01:30 EST, 06:30 UTC, not at 01:30 EDT). Late calls,
  /// clock changes and bad rules are handled as in
  /// ``scheduleRepeating(firstAt:nextDate:_:)``.
  ///
  /// - Parameters:
  ///   - components: the fields to match, as Apple documents for
  ///     `Calendar.nextDate(after:matching:matchingPolicy:repeatedTimePolicy:direction:)`.
  ///   - calendar: the calendar and time zone; `Calendar.current` by default.
  ///   - matchingPolicy: how to treat dates that do not exist as asked.
  ///   - repeatedTimePolicy: which occurrence of a repeated time fires;
  ///     `.first` by default.
  ///   - body: runs on the loop thread with the timer's handle, which can
  ///     cancel or move it; its ``ClockTimerHandle/fireDate`` is the date
  ///     this call was due (the occurrence it runs for, however late).
  /// - Returns: a handle that cancels the timer; already invalid if no date
  ///   matches `components` (the timer is then never scheduled).
  /// - Throws: ``TimerLoopError/unsupportedClock`` or ``TimerLoopError/shutdown``
  ///   as ``schedule(at:_:)-(Date,_)``
  ///   does; `body` is released.
  /// - Complexity: that of ``scheduleRepeating(firstAt:nextDate:_:)`` plus a
  ///   `Calendar.nextDate` search per date.
  @discardableResult
  public func scheduleRepeating(
    matching components: DateComponents, in calendar: Calendar = .current,
    matchingPolicy: Calendar.MatchingPolicy = .nextTime,
    repeatedTimePolicy: Calendar.RepeatedTimePolicy = .first,
    _ body: @escaping @Sendable (ClockTimerHandle) -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let rule: @Sendable (Date) -> Date? = { date in
      calendar.nextDate(
        after: date, matching: components, matchingPolicy: matchingPolicy,
        repeatedTimePolicy: repeatedTimePolicy)
    }
    _ = try clockHost
    let first = rule(wallClockNow)
    guard !scheduler.isShutdown else { throw .shutdown }
    guard let first else { return ClockTimerHandle(timer: .ended) }
    return try scheduleRepeating(firstAt: first, nextDate: rule, body)
  }
}
