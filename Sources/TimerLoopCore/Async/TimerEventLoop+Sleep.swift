extension TimerEventLoop {
  /// Suspends the calling task until `deadline` on the loop's monotonic clock
  /// (a ``VirtualEventLoop``'s virtual clock) or later, without blocking any
  /// thread: the task is resumed by a one-shot timer on this loop and then
  /// continues on its own executor (the loop thread only runs the timer).
  /// The call runs on the caller's isolation (`nonisolated(nonsending)`,
  /// SE-0461), so it adds no executor hop of its own: each hop of a task that
  /// prefers a task executor costs the runtime a look-up of that preference.
  ///
  /// Never resumes before `deadline`: the timer follows ``TimerEventLoop``'s
  /// never-early rule. A deadline in the past resumes in the loop's next
  /// pass; ``Deadline/distantFuture`` never resumes by itself. Costs one timer
  /// (O(1) amortised) and, while suspended, two small objects: the sleep's
  /// state and the token its timer's closure holds.
  ///
  /// - Throws: `CancellationError` when the task is cancelled, before or
  ///   during the sleep: the timer is cancelled at once (it leaves the loop's
  ///   table, as with ``TimerHandle/cancel()``) and the task resumes without
  ///   waiting for the deadline. ``TimerLoopError/shutdown`` if the loop is
  ///   shut down before the deadline, or was already: the task resumes when
  ///   the loop releases the timer (for a ``VirtualEventLoop`` shut down from
  ///   another thread, when its loop thread next runs). Exactly one of these
  ///   outcomes, or the return, ends each call.
  nonisolated(nonsending) public func sleep(until deadline: Deadline) async throws {
    try await Sleep.run(on: scheduler) { alarm throws(TimerLoopError) in
      TimerHandle(scheduler: scheduler, id: try scheduler.schedule(at: deadline, once: alarm))
    }
  }

  /// Suspends the calling task until `instant` on the loop's boot time
  /// (``continuousNow``: `CLOCK_BOOTTIME`, Swift's `ContinuousClock` on Linux,
  /// which keeps counting while the machine is suspended; a
  /// ``VirtualEventLoop``'s virtual boot time) or later, without blocking any
  /// thread: the task is resumed by a one-shot boot-time timer on this loop
  /// (``schedule(at:_:)-(ContinuousClock.Instant,_)``) and then continues on
  /// its own executor (the loop thread only runs the timer). Runs on the
  /// caller's isolation, as ``sleep(until:)-(Deadline)`` does.
  ///
  /// Never resumes before `instant` on that clock. Time the machine spends
  /// suspended counts: a sleep whose instant passes during a suspend resumes
  /// in the loop's first pass after it, where ``sleep(until:)-(Deadline)``
  /// would still wait for the rest of its running time. A past instant
  /// resumes in the loop's next pass. Costs one boot-time timer and, while
  /// suspended, the same two small objects as ``sleep(until:)-(Deadline)``.
  ///
  /// - Throws: `CancellationError` when the task is cancelled, before or
  ///   during the sleep: the timer is cancelled at once and the task resumes
  ///   without waiting for `instant`. ``TimerLoopError/shutdown`` if the loop
  ///   is shut down before `instant`, or was already: the task resumes when
  ///   the loop releases the timer. ``TimerLoopError/unsupportedClock`` at
  ///   once on a loop that has no boot-time timers (TimerLoopNIO's
  ///   `NIOTimerLoop`). Exactly one of these outcomes, or the
  ///   return, ends each call. It counts in ``sleepingTaskCount`` as the
  ///   monotonic sleeps do.
  nonisolated(nonsending) public func sleep(until instant: ContinuousClock.Instant) async throws {
    try await Sleep.run(on: scheduler) { alarm throws(TimerLoopError) in
      try schedule(at: instant, alarm)
    }
  }

  /// Suspends the calling task for `duration` from ``now`` (rounded up to a
  /// whole nanosecond); see ``sleep(until:)-(Deadline)``. A zero or negative
  /// duration resumes in the loop's next pass; a huge one saturates to
  /// ``Deadline/distantFuture`` (never resumes by itself, only by
  /// cancellation or shutdown). Runs on the caller's isolation, as
  /// ``sleep(until:)-(Deadline)`` does.
  ///
  /// - Throws: `CancellationError` or ``TimerLoopError/shutdown``, as
  ///   ``sleep(until:)-(Deadline)`` does.
  nonisolated(nonsending) public func sleep(for duration: Duration) async throws {
    try await sleep(until: now.after(duration))
  }

  /// Suspends the calling task for `duration` from ``now``, or up to
  /// `tolerance` later, so that sleeps due close together share one
  /// wake-up: the `Clock` protocol's `sleep(for:tolerance:)`, on the loop's
  /// monotonic clock (``clock``'s sleep, so a ``VirtualEventLoop`` runs it on
  /// virtual time).
  ///
  /// The deadline `now + duration` is rounded up to a multiple of the
  /// largest power of two nanoseconds not above `tolerance` (10 ms: an
  /// 8.39 ms grid), so it ends less than `tolerance` late and never early;
  /// `nil`, zero, negative and sub-2 ns tolerances leave the deadline as it
  /// is, as does a deadline rounding would carry past
  /// ``Deadline/distantFuture``. The loop's own leeway comes on top, as for
  /// every timer. A zero or negative `duration` resumes in the loop's next
  /// pass (or on the grid point after it); both durations are rounded up to
  /// whole nanoseconds, saturating.
  ///
  /// - Throws: `CancellationError` or ``TimerLoopError/shutdown``, as
  ///   ``sleep(until:)-(Deadline)`` does.
  /// - Complexity: one timer, as ``sleep(until:)-(Deadline)``.
  public func sleep(for duration: Duration, tolerance: Duration?) async throws {
    try await clock.sleep(for: max(duration, .zero), tolerance: tolerance)
  }

  /// ``sleep(until:)-(Date)`` with the date in nanoseconds since 1970.
  nonisolated(nonsending) package func sleep(untilWallNanoseconds nanoseconds: Int64) async throws {
    try await Sleep.run(on: scheduler) { alarm throws(TimerLoopError) in
      try scheduleClockTimer(on: .wall, at: nanoseconds, repeats: .never, body: .once(alarm))
    }
  }

  /// How many tasks are suspended in a sleep on this loop: ``sleep(until:)-(Deadline)``
  /// and its forms, ``clock``'s sleeps, a ``ticks(every:tolerance:missedTicks:)``
  /// iteration waiting for its next tick, and the deadline of a
  /// ``withDeadline(_:isolation:operation:)-(Deadline,_,_)`` or `withTimeout`. A sleep counts from when
  /// its timer is scheduled until it resumes; a sleep of a `withDeadline` operation on a
  /// ``VirtualEventLoop`` running outside the loop's passes, from when its task has
  /// suspended. Readable from any thread (one lock).
  public var sleepingTaskCount: Int { scheduler.sleepingTasks.count }

  /// Returns once at least `count` tasks are suspended in a sleep on this loop
  /// (``sleepingTaskCount``), or when the calling task is cancelled.
  ///
  /// The hook that makes async tests on a ``VirtualEventLoop`` deterministic:
  /// when it returns, the timers of those sleeps are scheduled, so a following
  /// ``VirtualEventLoop/advanceTime(by:)`` resumes them, and a `withDeadline`
  /// operation sleeping among them has suspended, so that the pass that ends its
  /// sleep runs its next steps. Suspends without
  /// blocking a thread; waits for ever if the count is never reached and the
  /// task is not cancelled (give such tests a time limit).
  public func waitForSleepingTasks(atLeast count: Int) async {
    await scheduler.sleepingTasks.wait(atLeast: count)
  }
}
