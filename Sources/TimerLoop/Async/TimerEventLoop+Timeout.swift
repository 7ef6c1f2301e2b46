extension TimerEventLoop {
  /// Runs `operation` in a child task and returns its result, or cancels it
  /// when `deadline` (on the loop's monotonic clock) passes first and throws
  /// ``TimerLoopError/timedOut``.
  ///
  /// The deadline costs one timer on this loop, a ``sleep(until:)-(Deadline)`` in a
  /// second child task; whichever child ends first decides the outcome and
  /// the other is cancelled. Structured concurrency: the call returns only
  /// after both children have ended, so the operation never outlives it and
  /// the timer is gone from the loop's table when it returns, either way.
  ///
  /// The operation runs on the global concurrent executor (or the task's
  /// executor preference), and learns of the deadline only through
  /// cancellation. **An operation that ignores cancellation** keeps the call
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
    return try await withTaskGroup(of: DeadlineRace<Value>.self) { group in
      group.addTask {
        do { return .operationEnded(.success(try await operation())) } catch {
          return .operationEnded(.failure(error))
        }
      }
      group.addTask {
        do { try await self.sleep(until: deadline) } catch { return .deadlineFailed(error) }
        return .deadlinePassed
      }
      let first = await group.next()!
      group.cancelAll()
      let second = await group.next()!
      switch (first, second) {
      case (.operationEnded(let result), _),
        (.deadlineFailed(is CancellationError), .operationEnded(let result)):
        return result
      case (.deadlineFailed(let error), _):
        return .failure(error)
      default:
        return .failure(TimerLoopError.timedOut)
      }
    }.get()
  }

  /// Runs `operation` in a child task and cancels it if it has not finished
  /// `timeout` nanoseconds from ``now``; ``withDeadline(_:operation:)`` with
  /// the deadline ``now`` + `timeout` (zero or negative: the next pass; huge:
  /// never), with the same outcomes.
  ///
  /// - Throws: ``TimerLoopError/timedOut``, what `operation` throws, or
  ///   ``TimerLoopError/shutdown``, as ``withDeadline(_:operation:)`` does.
  public func withTimeout<Value: Sendable>(
    _ timeout: TimeAmount, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await withDeadline(now + max(timeout, .zero), operation: operation)
  }

  /// `Duration` form of ``withTimeout(_:operation:)-(TimeAmount,_)``, the timeout
  /// converted by ``TimeAmount/init(_:)`` (rounded up, saturating).
  @_disfavoredOverload
  public func withTimeout<Value: Sendable>(
    _ timeout: Duration, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await withTimeout(TimeAmount(timeout), operation: operation)
  }
}

/// How one child of ``TimerEventLoop/withDeadline(_:operation:)`` ended.
private enum DeadlineRace<Value: Sendable>: Sendable {
  case operationEnded(Result<Value, any Error>)
  case deadlinePassed
  /// The deadline's sleep was cancelled (the caller was) or the loop shut down.
  case deadlineFailed(any Error)
}
