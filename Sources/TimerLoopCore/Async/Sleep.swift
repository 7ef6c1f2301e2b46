/// The handle of the one-shot timer a sleep waits on, on whichever clock:
/// cancelled when the sleeping task is.
protocol SleepTimer: Sendable {
  func cancel()
}

extension TimerHandle: SleepTimer {}
extension ClockTimerHandle: SleepTimer {}

/// One task's sleep on a loop: its continuation and the one-shot timer that
/// resumes it. Three things can end a sleep: the timer fires, the task is
/// cancelled, or the loop shuts down (which releases the timer's closure
/// without calling it). Whichever comes first takes the continuation out of
/// `phase` under the lock and resumes it; the others find nothing to resume,
/// so it is resumed exactly once and never leaked. Sleeps on every clock share
/// this one path through an existential handle, not a generic parameter: a
/// generic class's nested state has its metadata looked up at run time on
/// every lock (about a fifth of a sleep's instructions at 100,000 sleeping
/// tasks, Benchmarks/RESULTS.md).
final class Sleep: Sendable {
  private enum Phase {
    /// The continuation does not exist yet.
    case idle
    /// Suspended. The handle is `nil` until the timer is scheduled; from then
    /// on the sleep counts in ``SleepingTasks`` (`counted`), at once or once
    /// the job that scheduled it has returned (see ``SleepCountDeferral``).
    case waiting(UnsafeContinuation<Void, any Error>, (any SleepTimer)?, counted: Bool)
    case finished
  }

  /// Schedules the sleep's one-shot timer to call `alarm` at the sleep's end.
  typealias Arm = (_ alarm: @escaping @Sendable () -> Void) throws(TimerLoopError) -> any SleepTimer

  private let phase = Locked(Phase.idle)
  /// The count the sleep is in, not the scheduler: the timer's closure
  /// holds the sleep, and a sleep holding the scheduler made a cycle that
  /// kept a loop alive while a cancel sent from another thread waited in
  /// its inbox.
  private let sleepingTasks: SleepingTasks

  private init(sleepingTasks: SleepingTasks) {
    self.sleepingTasks = sleepingTasks
  }

  /// Suspends the calling task until the timer that `arm` schedules on
  /// `scheduler`'s loop fires; see ``TimerEventLoop/sleep(until:)-(Deadline)``.
  nonisolated(nonsending) static func run(on scheduler: TimerScheduler, arm: Arm) async throws {
    let sleep = Sleep(sleepingTasks: scheduler.sleepingTasks)
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        sleep.start(continuation, arm: arm)
      }
    } onCancel: {
      sleep.finish(.cancelled)
    }
  }

  /// What ended a sleep. Not an `any Error`: the alarm's release asks to end
  /// every sleep with `shutdown`, almost always one already ended by its
  /// timer, and boxing that error each time cost an allocation per sleep.
  fileprivate enum Ending {
    case rang
    case cancelled
    case failed(TimerLoopError)
  }

  private func start(_ continuation: UnsafeContinuation<Void, any Error>, arm: Arm) {
    phase.withLock { $0 = .waiting(continuation, nil, counted: false) }
    // A cancellation before this point found no continuation to resume.
    if Task.isCancelled { return finish(.cancelled) }
    let handle: any SleepTimer
    // Held until `arm` has returned or its error has finished the sleep: a
    // failing `arm` releases its closure, and the alarm's release alone
    // would end the sleep with `shutdown` instead of the error thrown.
    let alarm = Alarm(self)
    defer { withExtendedLifetime(alarm) {} }
    do {
      handle = try arm { [alarm] in alarm.ring() }
    } catch {
      return finish(.failed(error))
    }
    let armed = phase.withLock { phase in
      guard case .waiting(let continuation, nil, _) = phase else { return false }
      let countNow = !SleepCountDeferral.defer(self)
      phase = .waiting(continuation, handle, counted: countNow)
      if countNow { sleepingTasks.increment() }
      return true
    }
    // Finished while the timer was being scheduled: if by cancellation, the
    // timer must go (after a firing or a shutdown this does nothing).
    if !armed { handle.cancel() }
  }

  /// Counts the sleep in ``SleepingTasks`` if it is still waiting and not
  /// counted yet: called by ``SleepCountDeferral`` once the job that
  /// scheduled its timer has returned.
  func countIfStillWaiting() {
    phase.withLock { phase in
      guard case .waiting(let continuation, let handle?, counted: false) = phase else { return }
      phase = .waiting(continuation, handle, counted: true)
      sleepingTasks.increment()
    }
  }

  /// Resumes the task as `ending` says, unless it was resumed already.
  /// Cancellation also cancels the timer.
  fileprivate func finish(_ ending: Ending) {
    let taken = phase.withLock { phase -> (UnsafeContinuation<Void, any Error>, (any SleepTimer)?)? in
      guard case .waiting(let continuation, let handle, let counted) = phase else { return nil }
      phase = .finished
      if counted { sleepingTasks.decrement() }
      return (continuation, handle)
    }
    guard let (continuation, handle) = taken else { return }
    switch ending {
    case .rang:
      continuation.resume()
    case .cancelled:
      handle?.cancel()
      continuation.resume(throwing: CancellationError())
    case .failed(let error):
      continuation.resume(throwing: error)
    }
  }
}

/// The only thing the sleep's timer closure holds. The loop releases the
/// closure after firing it, when the timer is cancelled, and at shutdown
/// without firing it; in that last case nothing else would resume the task,
/// so the release itself does.
private final class Alarm: Sendable {
  private let sleep: Sleep

  init(_ sleep: Sleep) {
    self.sleep = sleep
  }

  func ring() {
    sleep.finish(.rang)
  }

  deinit {
    // After `ring()` or a cancellation the sleep is finished and this does nothing.
    sleep.finish(.failed(.shutdown))
  }
}
