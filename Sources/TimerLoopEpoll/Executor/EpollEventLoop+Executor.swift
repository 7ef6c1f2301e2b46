@_spi(TimerLoopHost) import TimerLoopCore

/// The loop as an executor of Swift concurrency, as SwiftNIO's event loops
/// are (`NIOSerialEventLoopExecutor`): pin an actor to it, or prefer it for
/// tasks, and their code runs on the loop's thread between timer callbacks.
///
/// ```swift
/// actor Session {
///   let loop: EpollEventLoop
///   var requests = 0
///   init(loop: EpollEventLoop) { self.loop = loop }
///   // Every method of the actor runs on the loop's thread.
///   nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
/// }
///
/// await withTaskExecutorPreference(loop) {
///   // Child tasks created in here, and nonisolated async code, run on the loop.
/// }
/// ```
///
/// - **Thread.** Every job (a task, or the part of one between two
///   suspensions) runs on the loop's thread in one of its passes, one at a
///   time, interleaved with timer callbacks and task closures and never at the
///   same time as one. An actor pinned to the loop therefore shares its
///   isolation with the loop's callbacks: a callback may use
///   `actor.assumeIsolated { ... }`, which ``checkIsolated()`` and
///   ``isIsolatingCurrentContext()`` answer by the calling thread.
/// - **Order.** Jobs and the closures of ``TimerEventLoop/execute(_:)`` share one
///   first-in, first-out queue. Of two enqueued where one call happens before
///   the other (on one thread, or on threads ordered by a lock, a semaphore
///   or an `await`), the first runs first. What a pass runs, jobs included,
///   enqueues for the next pass (see ``TimerEventLoop``), so a task that keeps
///   yielding cannot starve the loop's timers.
/// - **Cost.** A job enqueued on the loop's thread (a task resumed by a timer
///   callback, for example) takes one slot of an array that keeps its
///   capacity: no allocation, no lock, no wake-up. From another thread it is
///   a request in the loop's inbox (one short lock, one eventfd write per
///   burst), like ``TimerEventLoop/execute(_:)``.
/// - **Shutdown.** A job is never dropped, since its task would never resume.
///   Jobs not yet run when the loop stops, and jobs enqueued after it
///   stopped, run in the same order on a serial `DispatchQueue` of the loop's
///   own, still as this executor, so that their tasks can finish (a sleep on
///   the stopped loop throws ``TimerLoopError/shutdown``, for example). An
///   actor pinned to a stopped loop keeps working, serially, on that queue.
///   That queue is not the loop's thread: ``TimerEventLoop/assumeIsolated()`` and
///   ``checkIsolated()`` called there stop the program.
///   A loop that never runs never runs its jobs.
extension EpollEventLoop: SerialExecutor, TaskExecutor {
  /// Queues `job` to run on the loop's thread in its next pass, on the loop
  /// as a task executor; see the order and cost rules above. Safe from any
  /// thread; never fails.
  public func enqueue(_ job: consuming ExecutorJob) {
    scheduler.enqueue(job: UnownedJob(job), .task)
  }

  /// The loop's serial executor, for actors: return it from the actor's
  /// `nonisolated var unownedExecutor`. Its jobs run on the loop isolated to
  /// it. (It is a companion object of the loop, not the loop itself: the
  /// runtime calls one `enqueue` for both roles of an object, and a task
  /// preferring the loop must not run isolated to it, or its nonisolated code
  /// would hop once more before running.) Unowned: the actor must keep the
  /// loop alive, for example in a stored property.
  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    scheduler.actorExecutor.asUnownedSerialExecutor()
  }

  /// The loop as a task executor, for `withTaskExecutorPreference(_:operation:)`
  /// and `Task(executorPreference:operation:)`.
  public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
    UnownedTaskExecutor(ordinary: self)
  }

  /// Stops the program unless the caller runs on the loop's thread (in
  /// ``run()`` or ``runOnce()``). Swift calls it when `assumeIsolated` or
  /// `preconditionIsolated` cannot tell from the running task, as in a
  /// timer callback.
  public func checkIsolated() {
    precondition(inEventLoop, IsolationCheck.message(loopType: "EpollEventLoop"))
  }

  /// Whether the caller runs on the loop's thread (in ``run()`` or
  /// ``runOnce()``): what `assumeIsolated` asks first (SE-0471).
  public func isIsolatingCurrentContext() -> Bool? {
    inEventLoop
  }
}
