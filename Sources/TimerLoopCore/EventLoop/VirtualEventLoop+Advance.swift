extension VirtualEventLoop {
  /// Moves the clock forward by `amount` from async code: the asynchronous
  /// form of ``advanceTime(by:)``; see ``advance(to:)``. Afterwards ``now``
  /// reads the old time plus `amount` (rounded up to a whole nanosecond); a
  /// negative amount runs what is due now and does not move the clock back,
  /// so `advance(by: .zero)` is the asynchronous ``run()``.
  ///
  /// The old time is the clock's reading when this call's turn on the
  /// loop's queue starts, not when the call was made: calls made at once
  /// (from several tasks) take turns, one driver at a time, in the order
  /// they reach the queue, and each moves the clock by its own amount from
  /// where the previous one left it. So eight concurrent one-second
  /// advances move it eight seconds, in every run. (Concurrent
  /// ``advance(to:)`` calls each move it to their own target, so together
  /// to the latest one.)
  public func advance(by amount: Duration) async {
    precondition(VirtualEventLoop.current !== self, Self.nestedAsyncAdvanceMessage)
    await onQueue { $0.drive(to: $0.now + amount, settling: true) }
  }

  /// Moves the clock forward to `target` from async code, running every
  /// instant due on the way, each at its own deadline, as
  /// ``advanceTime(to:)`` does; modelled on SwiftNIO's
  /// `NIOAsyncTestingEventLoop.advanceTime(to:)`. Named apart from
  /// `advanceTime` because Swift prefers an `async` overload in async code,
  /// which would turn every synchronous `advanceTime` call there into an
  /// error.
  ///
  /// ```swift
  /// let loop = VirtualEventLoop()
  /// let start = loop.now
  /// let wakes = Task(executorPreference: loop) {
  ///   var wakes: [Duration] = []
  ///   for _ in 0..<3 {
  ///     try await loop.sleep(for: .seconds(1))
  ///     wakes.append(loop.now - start)
  ///   }
  ///   return wakes
  /// }
  /// await loop.advance(by: .seconds(3))
  /// // try await wakes.value == [1 s, 2 s, 3 s], in every run
  /// ```
  ///
  /// The passes run on the loop's queue, on a thread that holds the loop
  /// meanwhile (taking it over from the thread or task that created it or
  /// last called the synchronous `advanceTime`, which must not be using the
  /// loop as this call starts); the calling task waits without blocking a
  /// thread. When the call returns, no thread holds the loop (see
  /// ``VirtualEventLoop``).
  ///
  /// Guaranteed, for work on the loop (tasks that prefer it, the child
  /// tasks they create, and actors pinned to it, while they run there):
  /// - Jobs queued on the loop before the call (a task created with
  ///   `Task(executorPreference: loop)` has its first job queued at once)
  ///   run first, at the current time: no ``TimerEventLoop/waitForSleepingTasks(atLeast:)``
  ///   is needed for such a task to reach its first sleep.
  /// - The clock moves only when nothing on the loop is queued and no
  ///   request sent from another thread waits to be taken in; then to the
  ///   earliest deadline, never past `target`. The timers due there fire in
  ///   deadline order (first scheduled first at the same instant), and the
  ///   tasks and actors on the loop they resume run until they wait again
  ///   before the clock moves on. So the same code gives the same
  ///   interleaving at the same virtual times in every run.
  /// - When it returns, ``now`` reads `target` (or the later time it read
  ///   before) and everything due up to it has run. Work other threads
  ///   send afterwards (a plain `Task` calling an actor pinned to the loop,
  ///   ``TimerEventLoop/execute(_:)``, a timer due now) runs at once, at
  ///   that time, without moving the clock, until someone holds the loop
  ///   again.
  ///
  /// Not guaranteed, for tasks on other executors (a plain `Task {}` or
  /// `Task.detached`, which inherit no executor preference; actors not
  /// pinned to the loop; the main actor): the loop cannot see them. One that
  /// a pass resumes runs concurrently with the rest of the call, and what
  /// it sends reaches the loop whenever it arrives, to run at the time the
  /// loop has reached by then. A test of such tasks still steps time after
  /// ``TimerEventLoop/waitForSleepingTasks(atLeast:)``, or gives them the
  /// loop (`Task(executorPreference: loop)`), or runs them in
  /// ``runAutoAdvancing(_:)``.
  ///
  /// Other threads that never stop sending work keep the call from moving
  /// the clock, as they would keep a real loop busy; a callback that keeps
  /// scheduling work at the current time keeps it running. Time moves
  /// forward only. Cancelling the calling task does not stop the call.
  ///
  /// - Parameter target: the time to move to, on the loop's monotonic clock.
  /// - Precondition: not called from a pass of this loop (a callback, or a
  ///   task or actor running on the loop), which it would wait for; such
  ///   code sleeps to let time pass.
  public func advance(to target: Deadline) async {
    precondition(VirtualEventLoop.current !== self, Self.nestedAsyncAdvanceMessage)
    await onQueue { $0.drive(to: target, settling: true) }
  }

  static let nestedAsyncAdvanceMessage =
    "VirtualEventLoop.advance(to:) called from a pass of the loop it would drive (from a"
    + " callback, or a task or actor running on the loop); sleep there to let virtual time pass"
}
