/// A loop that runs closures, now (``execute(_:)``) or at a deadline
/// (`schedule`), one at a time on its own thread.
///
/// This package's two loops conform: ``EpollEventLoop`` runs on a real thread
/// over epoll and a timerfd; ``VirtualEventLoop`` runs on a clock that a test
/// moves. The TimerLoopNIO package adds a third, hosted on a SwiftNIO event
/// loop's thread. All share one scheduler, so they order, cancel and repeat
/// timers identically; a type of your own cannot conform.
///
/// Semantics (each is tested on every loop):
/// - **Thread.** Every closure runs on the loop's thread, one at a time, never
///   re-entered. Scheduling, cancelling and rescheduling are safe from any thread.
/// - **Never early.** A timer never fires before its deadline on the monotonic
///   clock. It may fire late: when the loop is busy, or, on a real loop, by the
///   kernel's wake-up latency.
/// - **Order.** Timers with equal deadlines fire in the order they were
///   scheduled (FIFO). Timers with different deadlines fire in deadline order
///   when both are due in the same pass.
/// - **Passes.** A pass first collects every due timer, then runs them. A
///   callback that cancels a sibling due in the same pass stops it; work a
///   callback adds (even with zero delay) runs in the next pass.
/// - **Time.** Delays and intervals are Swift `Duration`s, rounded up to whole
///   nanoseconds (a timer never fires early); deadlines are ``Deadline``s.
/// - **Bad input.** A delay of zero or less runs in the next pass, in
///   scheduling order (a negative delay counts as zero). A huge delay
///   (beyond about 292 years, `Duration`'s extremes included) saturates to
///   ``Deadline/distantFuture``: it never fires and costs no CPU while
///   pending. A repeat interval under 0.1 ms (zero or negative included) is
///   raised to 0.1 ms, as Apple's `Timer` does, so it cannot spin.
/// - **Shutdown.** ``shutdown()`` releases every pending closure; later calls
///   that add work throw ``TimerLoopError/shutdown``.
public protocol TimerEventLoop: AnyObject, Sendable {
  /// The loop's timer and task state: the package's loops, and TimerLoopNIO's
  /// through the scheduler's host interface (`@_spi(TimerLoopHost)`),
  /// provide it. Not API: code that uses a loop calls the methods of
  /// ``TimerEventLoop``, and a type of its own cannot conform.
  @_documentation(visibility: internal)
  var scheduler: TimerScheduler { get }

  /// Stops the loop and releases every pending timer and task closure.
  /// Idempotent and safe from any thread, including from inside a callback.
  func shutdown()
}

extension TimerEventLoop {
  /// The loop's current time on the monotonic clock (a ``VirtualEventLoop``'s
  /// own clock). Deadlines for relative delays are computed from it.
  public var now: Deadline { scheduler.now }

  /// Whether the caller is running on the loop's thread.
  public var inEventLoop: Bool { scheduler.inLoopThread }

  /// How many timers are scheduled and have not ended (one-shots not yet
  /// fired, repeating timers not cancelled, kept handler timers not
  /// invalidated, armed or not). Any thread; O(1).
  ///
  /// On the loop thread the count is exact: requests other threads made
  /// before the read (schedules, cancels) are applied first. On any other
  /// thread, where the loop's table cannot be read without racing it, it is
  /// the count the loop published at the end of its latest pass, as
  /// ``EventLoopStats/liveTimers`` (0 before the first pass). Changes made
  /// since (requests not yet applied, timers scheduled or ended on the loop
  /// thread after that pass) show in the next pass's count. One relaxed
  /// atomic load; the
  /// loop publishes the count once per pass whether or not anyone reads it.
  ///
  /// Monotonic timers only: boot-time and wall-clock timers live in queues
  /// of their own (on a ``VirtualEventLoop`` a pending one adds the one
  /// monotonic timer that wakes its queue).
  public var liveTimerCount: Int { scheduler.liveTimerCount }

  /// Runs `task` on the loop's thread in its next pass, after the tasks
  /// queued before it. From another thread, wakes the loop (one eventfd
  /// write for a burst of calls). O(1) amortised.
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `task` is released.
  public func execute(_ task: @escaping @Sendable () -> Void) throws(TimerLoopError) {
    try scheduler.execute(task)
  }

  // The two `schedule` calls below are inlinable, as the calls on a
  // TimerKey are: specialised for the caller's loop, they read `scheduler`
  // without a protocol witness that returns it retained. They take the closure
  // `consuming`, so that it moves into the table without a retain and a
  // release, and make the handle after the scheduler's call, so that a caller
  // who drops it pays no retain and release of the scheduler for it
  // (figures in Benchmarks/RESULTS.md).

  /// Runs `body` once on the loop's thread at `deadline` (monotonic clock) or
  /// later. A deadline in the past runs in the next pass; ``Deadline/distantFuture``
  /// never runs. O(1) amortised in the number of pending timers (a hierarchical
  /// timing wheel; see <doc:Architecture>), or O(log k) for a timer among the k
  /// due within the current 65 µs tick that arrived out of order (the wheel's
  /// near queue, as ``TimerHandle`` says).
  ///
  /// - Returns: a handle that cancels or moves the timer.
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `body` is released.
  @inlinable @discardableResult
  public func schedule(
    at deadline: Deadline, _ body: consuming @escaping @Sendable () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    let id = try scheduler.schedule(at: deadline, once: body)
    return TimerHandle(scheduler: scheduler, id: id)
  }

  /// Runs `body` once on the loop's thread `delay` from ``now`` or later (see
  /// ``schedule(at:_:)-(Deadline,_)``). `delay` is rounded up to a whole nanosecond; a
  /// negative delay counts as zero, so zero and negative delays alike run in
  /// the next pass in scheduling order; a huge one (`Duration`'s extremes
  /// included) saturates to ``Deadline/distantFuture``.
  @inlinable @discardableResult
  public func schedule(
    after delay: Duration, _ body: consuming @escaping @Sendable () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try schedule(at: now.after(delay), body)
  }

  /// Runs `body` on the loop's thread at `first` and then every `interval`
  /// until cancelled. `body` receives the timer's handle so it can cancel or
  /// reschedule itself.
  ///
  /// - Parameters:
  ///   - first: the first deadline (monotonic clock); a past one runs in the
  ///     next pass, once (with ``MissedTickBehavior/burst`` too: the ticks
  ///     before scheduling were not missed).
  ///   - interval: the period, rounded up to a whole nanosecond; below 0.1 ms
  ///     (zero and negative included) it is 0.1 ms, as Apple's `Timer` does.
  ///   - missedTicks: what follows a call that comes after the next tick's
  ///     time (the loop was busy, or the callback ran long); see
  ///     ``MissedTickBehavior``. ``MissedTickBehavior/skip`` by default, as
  ///     Apple's `Timer`: stay on the grid `first + n × interval`, one call
  ///     for missed ticks.
  ///   - body: runs on the loop thread with the timer's handle.
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `body` is released.
  /// - Complexity: O(1) amortised per schedule and per firing, or O(log k) for a
  ///   timer among the k due within the current 65 µs tick (see ``TimerHandle``).
  @discardableResult
  public func scheduleRepeating(
    firstAt first: Deadline, every interval: Duration,
    missedTicks: MissedTickBehavior = .skip,
    _ body: @escaping @Sendable (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduler.schedule(
      at: first, interval: TimeAmount(interval), missedTicks: missedTicks,
      body: .repeating(body))
  }

  /// Runs `body` on the loop's thread `initialDelay` from ``now`` (rounded up;
  /// negative counts as zero) and then every `interval`; see
  /// ``scheduleRepeating(firstAt:every:missedTicks:_:)-(Deadline,_,_,_)``.
  @discardableResult
  public func scheduleRepeating(
    after initialDelay: Duration, every interval: Duration,
    missedTicks: MissedTickBehavior = .skip,
    _ body: @escaping @Sendable (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(
      firstAt: now.after(initialDelay), every: interval, missedTicks: missedTicks, body)
  }
}
