extension TimerEventLoop {
  /// Runs `operation` in a child task and returns its result, or cancels it
  /// when `deadline` (on the loop's monotonic clock) passes first and throws
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
  /// The operation runs on the global concurrent executor (or the task's
  /// executor preference), and learns of the deadline only through
  /// cancellation. On a ``VirtualEventLoop``, whatever the caller's executor,
  /// its jobs run inside the loop's passes when the loop resumed it (a sleep
  /// on the loop ended, a timer's callback resumed it) and on the global
  /// concurrent executor otherwise. So an operation that waits only on the
  /// loop ends, or is still waiting, at a definite virtual instant, and
  /// which of its end and the deadline came first is decided by virtual
  /// time in every run; at the same instant the deadline wins, its timer
  /// having been scheduled first. Work the operation waits for elsewhere (an
  /// actor not pinned to the loop, another task) runs in real time, and the
  /// loop does not wait for it (see <doc:TestingWithVirtualTime>).
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
  /// - Throws: ``TimerLoopError/timedOut`` when the deadline passes first;
  ///   what `operation` throws when it ends first; when the calling task is
  ///   cancelled, both children are and the call returns or throws what the
  ///   operation does; ``TimerLoopError/shutdown`` if the loop is shut down
  ///   (the operation does not start), or gets shut down before the
  ///   operation ends (then it is cancelled and waited for first), since the
  ///   deadline can no longer be kept.
  public func withDeadline<Value: Sendable>(
    _ deadline: Deadline, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    guard !scheduler.isShutdown else { throw TimerLoopError.shutdown }
    let verdict = TimeoutVerdict()
    return try await withTaskGroup(
      of: Result<Value, any Error>?.self, returning: Result<Value, any Error>.self
    ) { group in
      // The deadline's timer first, so that at the same instant it fires
      // before a timer the operation schedules.
      group.addImmediateTask {
        do {
          try await Sleep.run(on: self.scheduler) { alarm throws(TimerLoopError) in
            try self.schedule(at: deadline) {
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
      let onVirtualTime = (self as? VirtualEventLoop).map(VirtualEventLoop.PassExecutor.init)
      group.addTask(executorPreference: onVirtualTime) {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        verdict.decide(.operationEnded)
        return result
      }
      var operationResult: Result<Value, any Error>?
      for await ended in group {
        group.cancelAll()
        if let ended { operationResult = ended }
      }
      switch verdict.decision {
      case .deadlinePassed: return .failure(TimerLoopError.timedOut)
      case .deadlineFailed(let error): return .failure(error)
      case .operationEnded, nil: return operationResult!
      }
    }.get()
  }

  /// Runs `operation` in a child task and cancels it if it has not finished
  /// `timeout` from ``now``; ``withDeadline(_:operation:)`` with the deadline
  /// ``now`` + `timeout` (rounded up; zero or negative: the next pass; huge:
  /// never), with the same outcomes.
  ///
  /// - Throws: ``TimerLoopError/timedOut``, what `operation` throws, or
  ///   ``TimerLoopError/shutdown``, as ``withDeadline(_:operation:)`` does.
  public func withTimeout<Value: Sendable>(
    _ timeout: Duration, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await withDeadline(now.after(timeout), operation: operation)
  }
}

/// Which came first in a ``TimerEventLoop/withDeadline(_:operation:)``: the
/// first call of ``decide(_:)`` stands. The deadline decides in its timer's
/// callback (on the loop's thread, so on a virtual loop at its virtual
/// instant, in the pass's order), the operation when it ends.
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
