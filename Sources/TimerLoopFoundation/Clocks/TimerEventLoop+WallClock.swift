import Foundation
@_spi(TimerLoopHost) import TimerLoopCore

/// Timers on the wall clock, `CLOCK_REALTIME`: "at this `Date`", following
/// changes of the clock (an NTP step, a user setting the date), as
/// `DispatchWallTime` and libev's `ev_periodic` do.
///
/// They live in a binary heap beside the loop's timing wheel (O(log n) per
/// schedule and per firing; the wheel is the path for very many timers).
/// The first one opens a timerfd on `CLOCK_REALTIME` in the loop's epoll
/// set, armed for the earliest date with `TFD_TIMER_ABSTIME |
/// TFD_TIMER_CANCEL_ON_SET` (`timerfd_create(2)`): when the clock is set,
/// the kernel wakes the loop at once, as it has woken libev's loop for its
/// `ev_periodic`s since libev 4.31 (before that, or with `EVFLAG_NOTIMERFD`,
/// libev notices a jump only when it next wakes and compares clocks). The
/// loop then re-evaluates every wall-clock timer: one whose date has now
/// passed fires in that pass, once; one moved further away waits. A loop
/// that never schedules one has no such descriptor and makes no extra
/// system call.
///
/// Never early against the wall clock: the loop reads it again just before
/// each call, and a timer whose date is still ahead (the clock was set back
/// meanwhile) waits for it instead. Otherwise these timers follow the rules
/// of ``TimerEventLoop``: FIFO among equal dates, passes, shutdown.
extension TimerEventLoop {
  /// The loop's wall clock now: the system's (`CLOCK_REALTIME`, as `Date()`)
  /// on an ``EpollEventLoop``; on a ``VirtualEventLoop``, a virtual one that
  /// starts at the system's reading when the loop is made, in whole seconds
  /// (so `Date()` and
  /// `Date(timeIntervalSinceNow:)` mean what they mean on a real loop), moves
  /// with its virtual monotonic clock, and is set by
  /// ``VirtualEventLoop/setWallClock(to:)`` (call it first for a fixed start:
  /// a test of dates should not depend on the day it runs); on a loop that
  /// has no wall-clock timers (TimerLoopNIO's `NIOTimerLoop`), the system's,
  /// whatever the loop's own time. Any thread; O(1), one clock read.
  public var wallClockNow: Date {
    Date(wallNanoseconds: wallClockNanoseconds)
  }

  /// Runs `body` once on the loop's thread when the wall clock reaches
  /// `date`, or later, following changes of the wall clock: set forward
  /// past `date`, the timer fires at once; set back, it waits until the
  /// clock reaches `date` again.
  ///
  /// A date in the past (`Date.distantPast` included) runs in the next pass.
  /// A date beyond the range of `CLOCK_REALTIME` nanoseconds (after the year
  /// 2262: `Date.distantFuture` included), positive infinity or NaN never
  /// runs and costs no CPU. `date` is rounded up to whole nanoseconds, so the
  /// timer never fires before it. Equal dates fire in the order they were
  /// scheduled.
  ///
  /// On an ``EpollEventLoop`` the first wall-clock timer opens a timerfd on
  /// `CLOCK_REALTIME`, armed for the earliest date with `TFD_TIMER_ABSTIME |
  /// TFD_TIMER_CANCEL_ON_SET` (`timerfd_create(2)`): when the clock is set,
  /// the kernel wakes the loop at once (its read fails with `ECANCELED`),
  /// and the loop re-evaluates every wall-clock timer, as libev (since 4.31)
  /// does for its `ev_periodic`s. Just before each call the loop reads the
  /// wall clock again; a timer whose date is still ahead (the clock was set
  /// back meanwhile) waits for it. A loop that never schedules one has no
  /// such descriptor. Scheduled on another thread, the first wall-clock
  /// timer opens and arms the timerfd on that thread, so that a change of
  /// the clock made before the loop watches it is reported too (if that
  /// fails, the loop opens it itself). Wall-clock timers are kept in a
  /// binary heap beside the loop's timing wheel.
  ///
  /// Cancel it with ``ClockTimerHandle/cancel()``: exact from any thread.
  ///
  /// - Returns: a handle that cancels the timer.
  /// - Throws: ``TimerLoopError/unsupportedClock`` on a loop that has no
  ///   wall-clock timers (TimerLoopNIO's `NIOTimerLoop`), whatever its
  ///   state; ``TimerLoopError/shutdown`` after shutdown, or when opening
  ///   or arming the wall-clock timerfd fails on the loop's thread, as
  ///   ``schedule(at:_:)-(ContinuousClock.Instant,_)`` describes; `body` is
  ///   released.
  /// - Complexity: O(log n) for n timers on this clock; the first one on a
  ///   loop opens its timerfd.
  ///
  /// Disfavoured, so that `.distantPast` and `.distantFuture` without a type
  /// keep meaning ``Deadline`` (monotonic) as before wall-clock timers
  /// existed: pass a `Date` value, or write `Date.distantFuture`.
  @_disfavoredOverload @discardableResult
  public func schedule(
    at date: Date, _ body: @escaping @Sendable () -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    try scheduleClockTimer(on: .wall, at: date.wallNanoseconds, repeats: .never, body: .once(body))
  }
}
