/// The virtual loop as an executor of Swift concurrency, so that async code
/// is tested on virtual time: jobs run inside ``advanceTime(by:)``,
/// ``advanceTime(to:)`` and ``run()``, on the thread that calls them, or
/// inside ``advance(to:)`` and ``runAutoAdvancing(_:)``, on the loop's queue,
/// in the passes that also run timers. A task preferring the loop that sleeps on a
/// timer of it resumes when the test advances past the deadline, in the same
/// order on every run.
///
/// ```swift
/// let loop = VirtualEventLoop()
/// let task = Task(executorPreference: loop) { loop.now }
/// loop.run()                        // runs the task's first (and only) job
/// print(await task.value)
/// ```
///
/// Order, cost and shutdown rules are those of ``EpollEventLoop``'s
/// conformance. While a thread or task holds the loop (the one that created
/// it, or last called the synchronous `advanceTime` or ``run()``), jobs wait
/// for the next advance or ``run()``, and a job for an actor pinned to the
/// loop that arrives then from outside the loop stops the program with a
/// message saying what to do if no advance has begun 30 seconds later. Once
/// ``advance(to:)`` or ``runAutoAdvancing(_:)`` has handed the loop back,
/// jobs from other threads run at once, at the current virtual time. See
/// ``VirtualEventLoop``. Isolation is judged as for every other call on the
/// loop: the caller is isolated to it on the thread, or in the task, that
/// holds it.
extension VirtualEventLoop: SerialExecutor, TaskExecutor {
  /// Queues `job` for the loop's next pass; safe from any thread, never fails.
  public func enqueue(_ job: consuming ExecutorJob) {
    scheduler.enqueue(job: UnownedJob(job), .task)
  }

  /// The loop's serial executor, for actors (`nonisolated var unownedExecutor`);
  /// see ``EpollEventLoop/asUnownedSerialExecutor()``. Unowned: the actor must
  /// keep the loop alive.
  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    scheduler.actorExecutor.asUnownedSerialExecutor()
  }

  /// The loop as a task executor, for `withTaskExecutorPreference(_:operation:)`
  /// and `Task(executorPreference:operation:)`.
  public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
    UnownedTaskExecutor(ordinary: self)
  }

  /// Stops the program unless the caller runs on the loop's thread.
  public func checkIsolated() {
    precondition(inEventLoop, IsolationCheck.message(loopType: "VirtualEventLoop"))
  }

  /// Whether the caller runs on the loop's thread.
  public func isIsolatingCurrentContext() -> Bool? {
    inEventLoop
  }
}
