import Dispatch

extension VirtualEventLoop {
  /// A task executor that keeps a task on virtual time without needing
  /// anyone to run the loop for it: a job that becomes ready inside one of
  /// the loop's passes (the loop resumed the task: a sleep's timer fired, a
  /// callback resumed a continuation) runs in that ``advanceTime(to:)`` call,
  /// before the clock moves on; a job that becomes ready anywhere else (the
  /// task starts, or is cancelled, or is resumed by another thread) runs on
  /// the global concurrent executor, as it would without a preference.
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
      guard VirtualEventLoop.current === loop else {
        return globalConcurrentExecutor.enqueue(job)
      }
      let job = UnownedJob(job)
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
