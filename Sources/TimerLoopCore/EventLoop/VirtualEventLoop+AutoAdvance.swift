import Synchronization

extension VirtualEventLoop {
  /// Runs `body` on this loop and moves virtual time by itself whenever
  /// everything on the loop waits, as tokio's paused clock advances when
  /// every task is idle; returns what `body` returns. The way to test async
  /// code on virtual time with no rituals: no ``TimerEventLoop/waitForSleepingTasks(atLeast:)``,
  /// no `advanceTime`, no executor preference in the code under test.
  ///
  /// ```swift
  /// let loop = VirtualEventLoop()
  /// let start = loop.now
  /// let reply = try await loop.runAutoAdvancing {
  ///   try await loop.withTimeout(.seconds(2)) {
  ///     try await loop.sleep(for: .milliseconds(1500))  // a slow server
  ///     return loop.now
  ///   }
  /// }
  /// // reply == start + 1.5 s of virtual time, at once, in every run
  /// ```
  ///
  /// The calling task drives the loop until `body` ends: it takes the loop
  /// over (see ``VirtualEventLoop``) and runs its passes on the loop's
  /// queue, whose thread holds the loop meanwhile; when the call returns, no
  /// thread holds it, as after ``advance(to:)``. `body`
  /// runs as a task that prefers the loop (so do the child tasks it creates,
  /// `async let` and task groups, unless they choose another executor), and
  /// actors pinned to the loop run there too.
  ///
  /// Guaranteed, for that work on the loop: nothing on it runs while the
  /// clock moves, and the clock moves only when the loop has nothing to run
  /// (no job or closure queued, no request from another thread waiting),
  /// then to the earliest deadline. The timers due there fire in deadline
  /// order (first scheduled first at the same instant), and the tasks they
  /// resume run until they wait again before the clock moves on. So the same
  /// code gives the same interleaving at the same virtual times in every
  /// run. Work sent from other threads (a plain `Task` calling an actor
  /// pinned to the loop, a sleep scheduled by a task on another executor)
  /// runs as it arrives, at the virtual time the loop has then reached.
  ///
  /// Not guaranteed: tasks on other executors (a plain `Task {}` or
  /// `Task.detached`, which do not inherit an executor preference; actors
  /// not pinned to the loop; the main actor) are not seen by the loop. Time
  /// may move while they run, and what they schedule counts from whatever
  /// `now` they read. Give such tasks the loop (`Task(executorPreference:
  /// loop)`) to put them on virtual time. If `body` waits for something that
  /// never comes and no timer is pending, the call waits too: give the test
  /// a time limit.
  ///
  /// Time moves forward only; a timer at ``Deadline/distantFuture`` is never
  /// reached. `body` must not call ``advanceTime(to:)``, ``run()`` or
  /// ``advance(to:)``: they stop the program, as any nested advance does; it sleeps to let time
  /// pass. Cancelling the calling task cancels `body`, and the loop is
  /// driven until it ends. If the loop shuts down, `body`'s jobs run on the
  /// loop's fallback queue, and the call returns once it ends.
  ///
  /// - Parameter body: the test's async code.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws.
  /// - Precondition: not called from a pass of the loop it would drive
  ///   (from `body`, a callback, or a task on the loop). A synchronous
  ///   `advanceTime` from another thread meanwhile waits for the current
  ///   turn and then takes the loop (don't).
  public func runAutoAdvancing<Result: Sendable>(
    _ body: @escaping @Sendable () async throws -> Result
  ) async throws -> Result {
    precondition(VirtualEventLoop.current !== self, Self.nestedAutoAdvanceMessage)
    // Take the loop over first, so that the body's first job, and whatever
    // other threads send, runs at once on the loop's queue.
    await onQueue { _ in }
    let ended = BodyEnded()
    let task = Task(executorPreference: self) { [arrivals] in
      defer {
        ended.flag.store(true, ordering: .releasing)
        arrivals.signal()
      }
      return try await body()
    }
    await withTaskCancellationHandler {
      while !ended.flag.load(ordering: .acquiring) {
        if await onQueue({ $0.autoAdvanceTurn(ended: ended) }) { await arrivals.wait() }
      }
    } onCancel: {
      task.cancel()
    }
    return try await task.value
  }

  /// One turn of ``runAutoAdvancing(_:)`` on the loop's queue: runs what is
  /// due now, then, if nothing else waits, moves the clock to the earliest
  /// deadline and runs what is due there. Returns whether nothing is left
  /// to do but wait for work from other threads.
  private func autoAdvanceTurn(ended: BodyEnded) -> Bool {
    drive(to: now, settling: true)
    if ended.flag.load(ordering: .acquiring) { return false }
    guard let next = scheduler.pendingWork.earliestDeadline, next != .distantFuture else {
      return true
    }
    drive(to: next, settling: true)
    return false
  }

  static let nestedAutoAdvanceMessage =
    "VirtualEventLoop.runAutoAdvancing(_:) called from a pass of the loop it would drive (from its"
    + " body, a callback or a task on the loop); sleep in the body to let virtual time pass"

  /// Set when the body of ``runAutoAdvancing(_:)`` has ended.
  final class BodyEnded: Sendable {
    let flag = Atomic<Bool>(false)
  }

  /// Work arriving from other threads, for ``runAutoAdvancing(_:)``: the
  /// scheduler's wake-up signals it, and the driver waits on it when
  /// nothing on the loop is due.
  final class Arrivals: Sendable {
    private struct State {
      var pending = false
      var waiter: UnsafeContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Resumes the waiting driver, or leaves the signal for the next wait.
    func signal() {
      let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
        guard let waiter = state.waiter else {
          state.pending = true
          return nil
        }
        state.waiter = nil
        return waiter
      }
      waiter?.resume()
    }

    /// Whether a signal came since the last wait or check; clears it.
    func takePending() -> Bool {
      state.withLock { state in
        defer { state.pending = false }
        return state.pending
      }
    }

    /// Returns at the next signal, or at once if one is pending.
    func wait() async {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        let signalled = state.withLock { state in
          if state.pending {
            state.pending = false
            return true
          }
          state.waiter = continuation
          return false
        }
        if signalled { continuation.resume() }
      }
    }
  }
}
