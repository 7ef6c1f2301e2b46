@_spi(TimerLoopHost) import TimerLoopCore

extension EpollEventLoop {
  /// Sets the closure to call if the loop stops because one of its own system
  /// calls failed (`epoll_wait`, `timerfd_settime`, a read of its timerfd or
  /// eventfd), that is, stops with ``terminationError`` set; it receives that
  /// error. A loop started with ``startOnNewThread(name:leeway:metricsDelegate:)``
  /// has no caller of ``run()`` to throw to; this is how such a failure is heard.
  ///
  /// - When and where: once, on the thread that ran the loop (the loop's own
  ///   thread, the caller of ``run()`` or of ``runOnce()``), after the loop has shut down: every
  ///   timer, task and descriptor closure released, its descriptors closed,
  ///   every later scheduling call throwing ``TimerLoopError/shutdown``. It runs
  ///   before ``run()`` throws, and before a ``shutdown()`` waiting on another
  ///   thread returns.
  /// - Set after the loop stopped on such a failure, `handler` runs at once, on
  ///   the calling thread, before this method returns; so a failure is never
  ///   missed, however late the handler is set.
  /// - A loop stopped by ``shutdown()`` never calls it; it is released when the
  ///   loop stops, or at once if set later.
  /// - Setting another replaces it (the previous one is released, not called).
  public func onTermination(_ handler: @escaping @Sendable (SystemError) -> Void) {
    let replaced: TerminationHandler.State = termination.withLock { state in
      defer { if !state.loopStopped { state.handler = handler } }
      return state
    }
    guard replaced.loopStopped else { return }  // the replaced handler is released here
    if let error = terminationError { handler(error) }
  }

  /// Marks the loop stopped and calls the handler if a system call stopped
  /// it. Called once by the thread that stopped the loop, after cleanup.
  func terminationDidHappen() {
    let handler = termination.withLock { state in
      state.loopStopped = true
      defer { state.handler = nil }
      return state.handler
    }
    if let handler, let error = terminationError { handler(error) }
  }
}

/// The state behind ``EpollEventLoop/onTermination(_:)``.
enum TerminationHandler {
  struct State {
    var handler: (@Sendable (SystemError) -> Void)?
    /// The loop has stopped: a handler set from now on learns the outcome at once.
    var loopStopped = false
  }
}
