import Dispatch

extension VirtualEventLoop {
  /// A task executor that keeps a task on virtual time without needing
  /// anyone to run the loop for it: a job that becomes ready inside one of
  /// the loop's passes (the loop resumed the task: a sleep's timer fired, a
  /// callback resumed a continuation) runs in that ``advanceTime(to:)`` call,
  /// before the clock moves on; a job that becomes ready anywhere else (the
  /// task starts, or is cancelled, or is resumed by another thread) runs on
  /// a thread of the global pool, as it would without a preference (the
  /// sleeps it starts count for ``TimerEventLoop/waitForSleepingTasks(atLeast:)``
  /// once it has suspended).
  ///
  /// ``TimerEventLoop/withDeadline(_:isolation:operation:)-(Deadline,_,_)`` prefers it for its operation,
  /// so that on virtual time the operation's end and the deadline are
  /// ordered by virtual time, while an operation cancelled or resumed from
  /// outside the loop still finishes when nobody advances it.
  final class PassExecutor: TaskExecutor {
    let loop: VirtualEventLoop

    init(loop: VirtualEventLoop) {
      self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      guard VirtualEventLoop.current === loop else {
        // On a thread of Dispatch's global pool, as on the global executor;
        // a sleep the job starts counts as sleeping once its task has
        // suspended (see `SleepCountDeferral`).
        return DispatchQueue.global().async { [self] in
          SleepCountDeferral.run { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
      }
      do {
        // On the loop's thread inside a pass: queued in its table, run
        // before the pass's advanceTime moves the clock.
        try loop.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
      } catch {
        // Shut down meanwhile (from another thread): the job must still run.
        DispatchQueue.global().async { [self] in
          job.runSynchronously(on: asUnownedTaskExecutor())
        }
      }
    }
  }
}
