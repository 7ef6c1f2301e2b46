extension TimerEventLoop {
  /// Runs `operation` in a child task isolated to `isolation` (by default
  /// the caller's actor) and returns its result, or cancels it when
  /// `deadline` (on the loop's monotonic clock) passes first and throws
  /// ``TimerLoopError/timedOut``.
  ///
  /// The deadline costs one timer on this loop, a sleep in a second child
  /// task. Which came first, the operation's end or the deadline, is decided
  /// where each happens: the deadline in its timer's callback, on the loop's
  /// thread; the operation when it returns or throws. The other child is
  /// then cancelled. Structured concurrency: the call returns only after
  /// both children have ended, so the operation never outlives it and the
  /// timer is gone from the loop's table when it returns, either way.
  ///
  /// **Isolation**, as the standard library's `withTaskGroup(of:returning:isolation:body:)`
  /// takes it: the operation need not be `Sendable` and its result is
  /// `sending`, so an actor (or code bound to a loop's executor) can time
  /// out work on its own non-`Sendable` state. The operation's child task
  /// runs isolated to `isolation`, and the caller waits, suspended, for it
  /// to end: the two never run at once. With `isolation` `nil` (a
  /// nonisolated caller), the operation runs on the global concurrent
  /// executor (or the task's executor preference), and learns of the
  /// deadline only through cancellation.
  ///
  /// On a ``VirtualEventLoop``, whatever the caller's executor, the
  /// operation's task prefers an executor that runs its jobs inside the
  /// loop's passes when the loop resumed it (a sleep on the loop ended, a
  /// timer's callback resumed it) and on the global concurrent executor
  /// otherwise; an actor without a custom executor runs the operation's
  /// jobs there too (SE-0417, task executor preference), once no other
  /// thread holds it: the thread that ran the actor up to the operation's
  /// sleep may hold it a moment after the sleep began, and a job the loop
  /// resumes meanwhile waits for that thread, in real time, so a test calling
  /// from such an actor awaits one of its methods before it advances time
  /// (see <doc:TestingWithVirtualTime>). So an operation
  /// that waits only on the loop ends, or is still waiting, at a definite
  /// virtual instant, and which of its end and the deadline came first is
  /// decided by virtual time in every run; at the same instant the deadline
  /// wins, its timer having been scheduled first. An actor with its own
  /// executor (the main actor, one pinned to another loop) runs the
  /// operation there, and work the operation waits for elsewhere (another
  /// actor, another task) runs in real time: the loop does not wait for it
  /// (see <doc:TestingWithVirtualTime>).
  ///
  /// **An operation that ignores cancellation** keeps the call
  /// waiting until it returns; the call then throws
  /// ``TimerLoopError/timedOut`` and discards what the operation returned or
  /// threw, since the deadline passed first.
  ///
  /// A deadline in the past cancels the operation in the loop's next pass:
  /// it times out unless it finishes before then. ``Deadline/distantFuture``
  /// never times out. As with Kotlin's `withTimeout`, the operation is
  /// cancelled at the deadline and the call throws.
  ///
  /// - Parameters:
  ///   - deadline: when the operation is cancelled, on the loop's monotonic
  ///     clock (time the machine spends suspended does not count; see
  ///     ``withDeadline(_:isolation:operation:)-(ContinuousClock.Instant,_,_)``
  ///     for a deadline that counts it).
  ///   - isolation: the actor the operation runs on; leave it to its
  ///     default, the caller's isolation.
  ///   - operation: the work to time out, called once.
  /// - Throws: ``TimerLoopError/timedOut`` when the deadline passes first;
  ///   what `operation` throws when it ends first; when the calling task is
  ///   cancelled, both children are and the call returns or throws what the
  ///   operation does; ``TimerLoopError/shutdown`` if the loop is shut down
  ///   (the operation does not start), or gets shut down before the
  ///   operation ends (then it is cancelled and waited for first), since the
  ///   deadline can no longer be kept.
  public func withDeadline<Value>(
    _ deadline: Deadline,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> sending Value
  ) async throws -> sending Value {
    try await race(isolation: isolation, operation: operation) { alarm throws(TimerLoopError) in
      try self.schedule(at: deadline, alarm)
    }
  }

  /// Runs `operation` as ``withDeadline(_:isolation:operation:)-(Deadline,_,_)``
  /// does, with the deadline `instant` on the loop's boot time
  /// (``continuousNow``: `CLOCK_BOOTTIME`, Swift's `ContinuousClock` on
  /// Linux), which keeps counting while the machine is suspended: an
  /// operation still running when a suspend covers its deadline times out
  /// in the loop's first pass after it.
  ///
  /// The deadline costs one boot-time timer
  /// (``schedule(at:_:)-(ContinuousClock.Instant,_)``); a past instant
  /// cancels the operation in the loop's next pass; an instant beyond the
  /// clock's range never times out. Isolation, virtual time, and an
  /// operation that ignores cancellation are as for the monotonic form.
  ///
  /// - Throws: ``TimerLoopError/timedOut``, what `operation` throws, or
  ///   ``TimerLoopError/shutdown``, as the monotonic form does;
  ///   ``TimerLoopError/unsupportedClock`` at once, without calling
  ///   `operation`, on a loop that has no boot-time timers (TimerLoopNIO's
  ///   `NIOTimerLoop`).
  public func withDeadline<Value>(
    _ instant: ContinuousClock.Instant,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> sending Value
  ) async throws -> sending Value {
    _ = try clockHost
    return try await race(isolation: isolation, operation: operation) {
      alarm throws(TimerLoopError) in
      try self.schedule(at: instant, alarm)
    }
  }

  /// Runs `operation` in a child task and cancels it if it has not finished
  /// `timeout` from ``now``;
  /// ``withDeadline(_:isolation:operation:)-(Deadline,_,_)`` with the
  /// deadline ``now`` + `timeout` (rounded up; zero or negative: the next
  /// pass; huge: never), with the same isolation and outcomes.
  ///
  /// - Throws: ``TimerLoopError/timedOut``, what `operation` throws, or
  ///   ``TimerLoopError/shutdown``, as
  ///   ``withDeadline(_:isolation:operation:)-(Deadline,_,_)`` does.
  public func withTimeout<Value>(
    _ timeout: Duration,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> sending Value
  ) async throws -> sending Value {
    try await withDeadline(now.after(timeout), isolation: isolation, operation: operation)
  }

  /// The race of every deadline form: `arm` schedules the deadline's
  /// one-shot timer on this loop to call its alarm.
  private func race<Value, Timer: SleepTimer>(
    isolation: isolated (any Actor)?,
    operation: () async throws -> sending Value,
    arm: @escaping @Sendable (_ alarm: @escaping @Sendable () -> Void) throws(TimerLoopError) -> Timer
  ) async throws -> sending Value {
    guard !scheduler.isShutdown else { throw TimerLoopError.shutdown }
    let verdict = TimeoutVerdict()
    let onVirtualTime: VirtualEventLoop.PassExecutor?
    if let virtual = self as? VirtualEventLoop {
      onVirtualTime = VirtualEventLoop.PassExecutor(loop: virtual)
    } else {
      onVirtualTime = nil
    }
    typealias Outcome = Result<Handover<Value>, any Error>
    let outcome: Outcome = await withoutActuallyEscaping(operation) {
      (operation: @escaping () async throws -> sending Value) async -> Outcome in
      let handover = Handover(operation)
      return await withTaskGroup(of: Outcome?.self, returning: Outcome.self, isolation: isolation) {
        group in
        // The deadline's timer first, so that at the same instant it fires
        // before a timer the operation schedules.
        group.addImmediateTask { () async -> Outcome? in
          do {
            try await Sleep.run(on: self.scheduler) { alarm throws(TimerLoopError) in
              try arm {
                verdict.decide(.deadlinePassed)
                alarm()
              }
            }
          } catch is CancellationError {
          } catch {
            verdict.decide(.deadlineFailed(error))
          }
          return nil
        }
        group.addTask(executorPreference: onVirtualTime) { () async -> Outcome? in
          let result: Outcome
          do {
            result = .success(
              Handover(
                try await Self.call(handover.value, isolatedTo: isolation, verdict: verdict)))
          } catch {
            result = .failure(error)
          }
          return result
        }
        var operationOutcome: Outcome?
        for await ended in group {
          group.cancelAll()
          if let ended { operationOutcome = ended }
        }
        switch verdict.decision {
        case .deadlinePassed: return .failure(TimerLoopError.timedOut)
        case .deadlineFailed(let error): return .failure(error)
        case .operationEnded, nil: return operationOutcome!
        }
      }
    }
    return try outcome.get().value
  }

  /// Calls `operation` on `isolation`'s executor (the call hops there
  /// because the parameter is `isolated`) and gives the operation's verdict
  /// there as it ends, before hopping back: on virtual time, at the instant
  /// it ended, whatever executor the hop back finds.
  private static func call<Value>(
    _ operation: () async throws -> sending Value, isolatedTo isolation: isolated (any Actor)?,
    verdict: TimeoutVerdict
  ) async throws -> sending Value {
    defer { verdict.decide(.operationEnded) }
    return try await operation()
  }
}

/// Carries the operation into its child task and its result back out.
/// `@unchecked Sendable` because one task at a time uses it: the caller
/// creates it and then only waits in the task group while the child calls
/// the operation on the caller's isolation; the result, `sending`, belongs
/// to no one else.
private struct Handover<Value>: @unchecked Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// Which came first in a ``TimerEventLoop/withDeadline(_:isolation:operation:)-(Deadline,_,_)``:
/// the first call of ``decide(_:)`` stands. The deadline decides in its
/// timer's callback (on the loop's thread, so on a virtual loop at its
/// virtual instant, in the pass's order), the operation when it ends.
private final class TimeoutVerdict: Sendable {
  enum Decision: Sendable {
    case operationEnded
    case deadlinePassed
    /// The deadline can no longer be kept (the loop shut down).
    case deadlineFailed(any Error)
  }

  private let first = Locked<Decision?>(nil)

  var decision: Decision? { first.withLock { $0 } }

  func decide(_ decision: Decision) {
    first.withLock { if $0 == nil { $0 = decision } }
  }
}
