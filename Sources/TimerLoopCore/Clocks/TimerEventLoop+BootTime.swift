/// Timers on the boot-time clock, `CLOCK_BOOTTIME`: monotonic like the
/// loop's own clock, but counting the time the machine spent suspended, so a
/// lease, a token expiry or a "retry in 10 minutes" comes due after a sleep
/// that covered it (a monotonic timer would wait that long again). Swift's
/// `ContinuousClock` reads this clock on Linux, so its instants are the
/// deadlines.
///
/// These timers live in a binary heap beside the loop's timing wheel, for
/// the few timers such deadlines need: O(log n) per schedule and per firing.
/// The first one opens a second timerfd (`timerfd_create(2)` with
/// `CLOCK_BOOTTIME`, armed with `TFD_TIMER_ABSTIME`) in the loop's epoll set;
/// a loop that never schedules one has no such descriptor and makes no
/// extra system call. Otherwise they follow the rules of ``TimerEventLoop``:
/// never early (the loop reads the boot-time clock before each call), FIFO
/// among equal deadlines, passes, and shutdown.
extension TimerEventLoop {
  /// The loop's boot-time clock now: `ContinuousClock.now` on an
  /// ``EpollEventLoop`` (both read `CLOCK_BOOTTIME`); on a
  /// ``VirtualEventLoop``, its virtual monotonic time plus the time
  /// ``VirtualEventLoop/suspend(for:)`` simulated; on a loop that has no
  /// boot-time timers (TimerLoopNIO's `NIOTimerLoop`), the system's
  /// `CLOCK_BOOTTIME`, whatever the loop's own time. Any thread; O(1), one
  /// clock read.
  public var continuousNow: ContinuousClock.Instant {
    ContinuousClock.Instant(bootNanoseconds: reading(of: .boot))
  }

  /// Runs `body` once on the loop's thread when the boot-time clock reaches
  /// `instant`, or later. Time the machine spends suspended counts (see
  /// ``continuousNow``). An instant in the past runs in the next pass; one
  /// beyond the clock's range (about 292 years after boot) never runs and
  /// costs no CPU. The instant is converted to whole nanoseconds rounding
  /// up, so the timer never fires before it. Equal instants fire in the
  /// order they were scheduled.
  ///
  /// On an ``EpollEventLoop`` the first boot-time timer opens a timerfd on
  /// `CLOCK_BOOTTIME` (`timerfd_create(2)`), armed with `TFD_TIMER_ABSTIME`
  /// for the earliest instant, in the loop's epoll set; a loop that never
  /// schedules one has no such descriptor. Boot-time timers are kept in a
  /// binary heap beside the loop's timing wheel: for leases and expiries,
  /// not for millions of timers, which is the monotonic wheel's O(1) path.
  ///
  /// Cancel it with ``ClockTimerHandle/cancel()``: exact from any thread.
  ///
  /// - Returns: a handle that cancels the timer.
  /// - Throws: ``TimerLoopError/unsupportedClock`` on a loop that has no
  ///   boot-time timers (TimerLoopNIO's `NIOTimerLoop`), whatever its state;
  ///   ``TimerLoopError/shutdown`` after shutdown. Either way `body` is
  ///   released and nothing is scheduled. Also ``TimerLoopError/shutdown`` when, called on the loop's thread, opening or arming
  ///   the boot-time timerfd fails (`timerfd_create`, `epoll_ctl`,
  ///   `timerfd_settime`): the loop then shuts down, as for any failing
  ///   system call of the loop, and ``EpollEventLoop/terminationError`` says
  ///   why. Called on another thread, the loop opens and arms it itself, and
  ///   such a failure shuts the loop down in the same way later.
  /// - Complexity: O(log n) for n timers on this clock; the first one on a
  ///   loop opens its timerfd.
  @discardableResult
  public func schedule(
    at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    try scheduleClockTimer(
      on: .boot, at: instant.bootNanoseconds, repeats: .never, body: .once(body))
  }

  /// Runs `body` on the loop's thread when the boot-time clock reaches
  /// `first`, and then every `interval` until cancelled, counting time the
  /// machine spends suspended.
  ///
  /// After a suspend (or a busy loop) covering several ticks, `body` goes
  /// on by `missedTicks`, as a monotonic repeating timer does: by default
  /// (``MissedTickBehavior/skip``) it runs once for all of them and then at
  /// the next tick of its grid `first + n × interval`.
  ///
  /// - Parameters:
  ///   - first: the first deadline on the boot-time clock; a past one runs
  ///     in the next pass, once (with ``MissedTickBehavior/burst`` too: the
  ///     ticks before scheduling were not missed). Rounded up to whole
  ///     nanoseconds.
  ///   - interval: the period, rounded up to whole nanoseconds; below 0.1 ms
  ///     (zero and negative included) it is 0.1 ms, as for monotonic timers.
  ///   - missedTicks: what follows missed ticks; see ``MissedTickBehavior``.
  ///   - body: runs on the loop thread with the timer's handle, which can
  ///     cancel it.
  /// - Returns: a handle that cancels the timer.
  /// - Throws: ``TimerLoopError/unsupportedClock`` or ``TimerLoopError/shutdown`` as
  ///   ``schedule(at:_:)-(ContinuousClock.Instant,_)`` does; `body` is released.
  /// - Complexity: O(log n) per schedule and per call, for n timers on this clock.
  @discardableResult
  public func scheduleRepeating(
    firstAt first: ContinuousClock.Instant, every interval: Duration,
    missedTicks: MissedTickBehavior = .skip,
    _ body: @escaping @Sendable (ClockTimerHandle) -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let period = max(TimeAmount(interval), TimerScheduler.minimumRepeatInterval).nanoseconds
    let repeats: ClockTimer.Repeat =
      switch missedTicks {
      case .skip: .fixedRate(interval: period)
      case .delay: .fixedDelay(interval: period)
      case .burst: .burst(interval: period)
      }
    let start =
      missedTicks == .burst
      ? first.bootNanoseconds.burstStart(now: reading(of: .boot), interval: period)
      : first.bootNanoseconds
    return try scheduleClockTimer(on: .boot, at: start, repeats: repeats, body: .repeating(body))
  }
}

extension ContinuousClock.Instant {
  /// The instant `nanoseconds` after boot (`ContinuousClock`'s epoch on Linux).
  init(bootNanoseconds nanoseconds: Int64) {
    self = ContinuousClock().systemEpoch.advanced(by: .nanoseconds(nanoseconds))
  }

  /// Nanoseconds after boot, rounded up and saturating at the range of `Int64`.
  var bootNanoseconds: Int64 {
    TimeAmount(ContinuousClock().systemEpoch.duration(to: self)).nanoseconds
  }
}
