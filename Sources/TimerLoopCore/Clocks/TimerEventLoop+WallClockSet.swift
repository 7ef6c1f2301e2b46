extension TimerEventLoop {
  /// Runs `body` on the loop's thread each time the wall clock is set (an
  /// NTP step, a user setting the date, `clock_settime`), until cancelled:
  /// the news the loop already hears for its wall-clock timers, for code
  /// that keeps dates of its own (a cache of "today", a displayed time).
  ///
  /// On an ``EpollEventLoop`` this is the `ECANCELED` of the loop's
  /// `CLOCK_REALTIME` timerfd armed with `TFD_TIMER_CANCEL_ON_SET`
  /// (`timerfd_create(2)`; libev's `ev_periodic` rescheduling, since 4.31,
  /// hears the same): the first call opens that timerfd, and while no
  /// wall-clock timer waits for a date it stays armed for the end of its
  /// range, so that the kernel reports steps; cancelling the last such
  /// callback then disarms it. The kernel also reports the machine resuming
  /// from a suspend this way. On a ``VirtualEventLoop``,
  /// ``VirtualEventLoop/setWallClock(to:)`` and
  /// ``VirtualEventLoop/suspend(for:)-(Duration)`` are the steps, and `body`
  /// runs before they return (called from a callback: in a later pass).
  ///
  /// `body` runs once per report, after the loop has re-evaluated its
  /// wall-clock timers for the step, in a task of the loop (so it may itself
  /// schedule, cancel and read ``wallClockNow``); steps made close together
  /// may come as one report. It gets the callback's handle, which can cancel
  /// it. A step made before this call returns may or may not be reported.
  ///
  /// - Returns: a handle that cancels the callback (``ClockTimerHandle/cancel()``:
  ///   exact from any thread). It has no date: ``ClockTimerHandle/fireDate``
  ///   is `nil`, and ``ClockTimerHandle/reschedule(to:)-(Date)`` does nothing.
  /// - Throws: ``TimerLoopError/unsupportedClock`` or ``TimerLoopError/shutdown``
  ///   as ``schedule(at:_:)-(Date,_)``
  ///   does; `body` is released. A shutdown ends the callback.
  /// - Complexity: O(1) to add; each report costs O(k) for k callbacks, on
  ///   top of the O(n) re-evaluation of n wall-clock timers.
  @discardableResult
  public func onWallClockSet(
    _ body: @escaping @Sendable (ClockTimerHandle) -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let host = try clockHost
    guard !scheduler.isShutdown else { throw .shutdown }
    let queue = try host.clockTimers.queue(.wall)
    let timer = ClockTimer(repeats: .clockSet, body: .repeating(body), deadline: .max, queue: queue)
    try queue.observe(timer)
    return ClockTimerHandle(timer: timer)
  }
}
