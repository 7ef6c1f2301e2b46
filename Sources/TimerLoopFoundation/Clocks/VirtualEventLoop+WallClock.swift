import Foundation
import TimerLoopCore

extension VirtualEventLoop {
  /// Sets the virtual wall clock (``TimerEventLoop/wallClockNow``) to `date`, a
  /// step forward or back, as NTP or a user setting the date does; the
  /// monotonic and boot-time clocks do not move. The loop then handles it
  /// as an ``EpollEventLoop`` handles `ECANCELED` from its
  /// `TFD_TIMER_CANCEL_ON_SET` timerfd: every wall-clock timer is
  /// re-evaluated at once, and those whose date has now passed run before
  /// this returns, once each (called from a callback: in a later pass of
  /// the running ``advanceTime(by:)``); those moved further away
  /// wait. The loop's virtual wall clock starts at the system's wall clock
  /// reading when the loop was made, in whole seconds.
  ///
  /// `date` is rounded up to whole nanoseconds, saturating; a NaN date does
  /// nothing. Call it from the thread that drives the loop.
  public func setWallClock(to date: Date) {
    guard !date.timeIntervalSinceReferenceDate.isNaN else { return }
    setWallClock(toWallNanoseconds: date.wallNanoseconds)
  }
}
