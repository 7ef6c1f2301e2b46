import Foundation
@_spi(TimerLoopHost) import TimerLoopCore

extension ClockTimerHandle {
  /// Moves the timer to `date` on the wall clock, from any thread, as libev's
  /// `ev_periodic_again` after changing a periodic's time, or setting
  /// Foundation's `Timer.fireDate`. Does nothing if the timer has ended.
  ///
  /// Exact, as ``cancel()`` is: once this returns, the timer does not start a
  /// call for its old date; its next call is at `date` or later, never
  /// earlier. A call running now (on the loop thread) finishes, and the
  /// timer then waits for `date` instead of the date it would have taken
  /// next, even a one-shot, which fires again instead of ending (the
  /// behaviour of ``TimerHandle/reschedule(to:)``). A repeating timer goes on
  /// from `date`: a fixed-rate one on the grid `date + n × interval`, a rule
  /// or calendar timer with its rule's first date after `date`. Among timers
  /// due at the same moment, a rescheduled one fires after those already
  /// scheduled for it. A past date fires in the next pass; a date that
  /// never comes (NaN, after 2262, `Date.distantFuture`) leaves the timer
  /// waiting, valid, until it is cancelled or rescheduled again. `date` is
  /// rounded up to whole nanoseconds.
  ///
  /// A boot-time timer is moved to the boot-time instant at which the wall
  /// clock would read `date` if it is not set meanwhile (the difference of
  /// the two clocks read now); a wall-clock timer follows the wall clock
  /// when it is set, as ever, and a rule or calendar timer then takes its
  /// next date from its rule again. A ``MissedTickBehavior/burst`` timer
  /// moved into the past runs once, in the next pass, for the last point of
  /// its new grid not after now: the ticks before the move were not missed. The loop's wake-up for the clock moves
  /// with the earliest timer, as after a ``cancel()``.
  ///
  /// - Complexity: O(log n) for n timers on the timer's clock; the old date
  ///   leaves the heap as a cancelled timer does (see ``cancel()``).
  public func reschedule(to date: Date) {
    reschedule(to: date.wallNanoseconds, on: .wall)
  }

  /// The date the timer is due on the wall clock, Foundation's `fireDate`
  /// read from any thread: while it waits, the date of its next call; inside
  /// its own call (on the loop thread), the date that call was due, never
  /// after the time it began: a calendar job reads the occurrence it runs
  /// for, however late the loop was. Once a call returns, the date of the
  /// next (Foundation's `fireDate` already tells the next one inside the
  /// block; TimerLoop tells it after). A ``reschedule(to:)-(Date)`` changes
  /// it at once, also inside the call.
  ///
  /// `nil` once the timer has ended (cancelled, a one-shot that fired, a
  /// rule that returned `nil`, shutdown) and while it waits for a date that
  /// never comes. Exact to the nanosecond the loop keeps, up to `Date`'s
  /// precision, for a wall-clock timer; for a boot-time timer, its instant
  /// as a date on the wall clock read now (which moves with the wall clock
  /// when it is set). O(1): one lock and, for a boot-time timer, two clock
  /// reads.
  public var fireDate: Date? {
    fire(on: .wall).map(Date.init(wallNanoseconds:))
  }
}
