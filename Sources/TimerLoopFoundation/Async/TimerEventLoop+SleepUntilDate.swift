import Foundation
import TimerLoopCore

extension TimerEventLoop {
  /// Suspends the calling task until the loop's wall clock
  /// (``wallClockNow``: `CLOCK_REALTIME`, as `Date()` reads it) reaches
  /// `date`, or later, without blocking any thread: a one-shot wall-clock
  /// timer of this loop (``schedule(at:_:)-(Date,_)``) resumes the task,
  /// which then continues on its own executor. Runs on the caller's
  /// isolation, as ``sleep(until:)-(Deadline)`` does.
  ///
  /// Follows changes of the wall clock: set forward past `date`, the task
  /// resumes in the loop's next pass; set back, it waits until the clock
  /// reaches `date` again (a monotonic sleep would do neither). Time the
  /// machine spends suspended counts. A past date (`Date.distantPast`
  /// included) resumes in the next pass; a date beyond 2262, infinite or NaN
  /// (`Date.distantFuture` included) never resumes by itself. `date` is
  /// rounded up to whole nanoseconds, so the sleep never ends before it.
  /// Costs one wall-clock timer (O(log n) for n of them on the loop) and,
  /// while suspended, the same two small objects as
  /// ``sleep(until:)-(Deadline)``; it counts in ``sleepingTaskCount``.
  ///
  /// Disfavoured, so that `.distantPast` and `.distantFuture` without a type
  /// keep meaning ``Deadline``: pass a `Date` value.
  ///
  /// - Throws: `CancellationError` when the task is cancelled, before or
  ///   during the sleep (the timer is cancelled at once);
  ///   ``TimerLoopError/shutdown`` if the loop is, or gets, shut down first;
  ///   ``TimerLoopError/unsupportedClock`` at once on a loop that has no
  ///   wall-clock timers (TimerLoopNIO's `NIOTimerLoop`).
  ///   Exactly one of these outcomes, or the return, ends each call.
  @_disfavoredOverload
  nonisolated(nonsending) public func sleep(until date: Date) async throws {
    try await sleep(untilWallNanoseconds: date.wallNanoseconds)
  }
}
