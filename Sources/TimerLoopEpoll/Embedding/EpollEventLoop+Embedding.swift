import Glibc
import Synchronization
@_spi(TimerLoopHost) import TimerLoopCore

/// Driving the loop from a host loop of the program's own, on the host's
/// thread, the way libuv offers `uv_backend_fd`, `uv_backend_timeout` and
/// `uv_run(UV_RUN_NOWAIT)`, and libev its embed watcher: no second thread.
///
/// The host watches ``EpollEventLoop/backendDescriptor`` for readability
/// (with `poll`, `select` or its own epoll) and calls
/// ``EpollEventLoop/runOnce()`` whenever it is readable. The loop keeps its
/// timerfd armed for its next deadline and writes its eventfd for work it
/// must do at once, so the descriptor alone says when to call; a host that
/// prefers a timeout can use ``EpollEventLoop/nextDeadline`` instead.
extension EpollEventLoop {
  /// The loop's epoll descriptor: readable whenever ``runOnce()`` has work,
  /// a timer due, a request from another thread, a registered descriptor
  /// ready. Watch it for readability only; do not read it or close it.
  public var backendDescriptor: CInt { selector.epollFD }

  /// When the loop next needs ``runOnce()`` if its descriptor does not become
  /// readable first: `nil` when no timer is pending, now or earlier when work
  /// is waiting. Updated by each ``runOnce()``; monotonic clock. Boot-time
  /// and wall-clock timers count too, their deadlines turned into monotonic
  /// ones when ``runOnce()`` returns: a suspend or a wall-clock step after
  /// that moves them, and makes the descriptor readable (their timerfds are
  /// in its epoll set), so a host that waits for this deadline must also
  /// watch the descriptor to hear of those.
  public var nextDeadline: Deadline? {
    let nanoseconds = embeddedDeadline.load(ordering: .acquiring)
    return nanoseconds == .max ? nil : Deadline(uptimeNanoseconds: nanoseconds)
  }

  /// Runs, on the calling thread and without blocking, what is due now:
  /// requests from other threads, tasks, due timers and ready descriptor
  /// handlers, one pass of each, then re-arms the timerfd. During the call
  /// the calling thread is the loop's thread (``TimerEventLoop/inEventLoop``).
  ///
  /// Call it from one host thread at a time (a concurrent call throws
  /// ``TimerLoopError/wrongThread``). ``shutdown()`` is safe from any thread:
  /// during a ``runOnce()`` it only marks the loop, and that call releases
  /// everything as it returns. Once any thread has called ``run()``,
  /// ``runOnce()`` throws; and the other way round.
  ///
  /// - Throws: ``TimerLoopError/wrongThread`` if the loop runs with ``run()``,
  ///   ``TimerLoopError/shutdown`` after shutdown, ``SystemError`` from the
  ///   loop's own calls or another thread's failed wake-up write (the loop is shut down first and
  ///   ``EpollEventLoop/terminationError`` keeps it, as with ``run()``).
  public func runOnce() throws {
    let state = lifecycle.withLock { state in
      defer { if state == .idle || state == .embedded { state = .embeddedRunning } }
      return state
    }
    switch state {
    case .idle, .embedded: break
    case .running, .embeddedRunning: throw TimerLoopError.wrongThread
    case .stopped: throw TimerLoopError.shutdown
    }
    scheduler.claimLoopThread()
    let previous = CurrentLoop.set(self)
    defer {
      CurrentLoop.restore(previous)
      // A shutdown() meanwhile, from a callback or another thread, only marked
      // the loop: the state is released here, by the thread that owns it.
      let stopping = lifecycle.withLock { state in
        state = scheduler.isShutdown ? .stopped : .embedded
        return state == .stopped
      }
      if stopping {
        releaseState()
        selector.close()
        terminationDidHappen()
      }
      scheduler.releaseLoopThread()
    }
    do throws(SystemError) {
      try selector.wait(block: false)
      dispatchReadyDescriptors()
      var buffers = TimerScheduler.PassBuffers()
      let start = Deadline.now()
      let outcome = scheduler.runPass(now: start, buffers: &buffers)
      let now = Deadline.now()
      // Every call follows a wait of the host's.
      scheduler.passDidEnd(
        outcome, start: start, end: now, wokeUp: true, delegate: scheduler.metricsDelegate)
      guard !scheduler.isShutdown else {
        // A clock timerfd's failure stopped it from a handler (see EpollEventLoop+Clocks).
        if let error = scheduler.wakeUpFailure ?? terminationError { throw error }
        return
      }
      let (earliest, hasTasks) = scheduler.pendingWork
      if hasTasks || earliest.map({ $0 <= now }) == true {
        // Work for the very next call: make the descriptor readable now.
        try EventFD.signal(selector.eventFD)
        embeddedDeadline.store(now.uptimeNanoseconds, ordering: .releasing)
      } else {
        try selector.arm(earliest, leeway: leewayAmount, now: now)
        var next = earliest
        if let clockDeadline = earliestClockTimerDeadline() {
          next = min(next ?? clockDeadline, clockDeadline)
        }
        embeddedDeadline.store(next?.uptimeNanoseconds ?? .max, ordering: .releasing)
      }
    } catch {
      failure.withLock { $0 = error }
      scheduler.shutdown()
      throw error
    }
  }
}
