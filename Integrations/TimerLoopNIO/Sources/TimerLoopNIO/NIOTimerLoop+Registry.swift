import NIOCore
import TimerLoopCore

extension NIOTimerLoop {
  /// The timer loops of NIO loops, by NIO loop.
  private struct Registry {
    /// Timer loops that run. An entry holds its NIO loop, so the key cannot
    /// be reused while it is there; it leaves when the timer loop shuts down.
    var running: [ObjectIdentifier: NIOTimerLoop] = [:]
    /// NIO loops that have shut down with a timer loop, held weakly: their
    /// later timer loops are made shut down. An entry whose loop is gone
    /// names nothing (its key may be reused) and is dropped.
    var stopped: [ObjectIdentifier: WeakEventLoop] = [:]
  }

  /// `Locked`, not `Mutex`: ThreadSanitizer reports a contended `Mutex` on
  /// Linux as a race (see `Locked`), as it did for loops made on parallel
  /// test threads.
  private static let registry = Locked(Registry())

  /// The timer loop of `eventLoop`, made on first use. Any thread; O(1) with
  /// a lock, so a handler that uses it often keeps the result (in
  /// `handlerAdded`, say). Once `eventLoop` has shut down, the loop returned
  /// is shut down: its calls throw `TimerLoopError.shutdown`. (Asking for the
  /// first timer loop of an NIO loop that has already shut down is NIO's
  /// programmer error: NIO prints that a task was scheduled on a loop that
  /// has shut down, and that timer loop never runs.)
  public static func on(_ eventLoop: any EventLoop) -> NIOTimerLoop {
    let key = ObjectIdentifier(eventLoop)
    let (loop, made) = registry.withLock { registry in
      if let existing = registry.running[key] { return (existing, false) }
      if let stopped = registry.stopped[key], stopped.loop === eventLoop {
        return (NIOTimerLoop(shutDownOn: eventLoop), false)
      }
      registry.stopped[key] = nil
      let made = NIOTimerLoop(eventLoop: eventLoop)
      registry.running[key] = made
      return (made, true)
    }
    // Outside the lock: NIO takes its own locks to queue the first pass.
    if made { loop.driver.start() }
    return loop
  }

  /// Removes the entry of `eventLoop` if it is still the loop of
  /// `scheduler`; `eventLoopStopped`: because the NIO loop shut down.
  static func forget(
    _ eventLoop: any EventLoop, scheduler: TimerScheduler, eventLoopStopped: Bool
  ) {
    let key = ObjectIdentifier(eventLoop)
    let removed = registry.withLock { registry -> NIOTimerLoop? in
      guard registry.running[key]?.scheduler === scheduler else { return nil }
      if eventLoopStopped {
        registry.stopped = registry.stopped.filter { $0.value.loop != nil }
        registry.stopped[key] = WeakEventLoop(loop: eventLoop)
      }
      return registry.running.removeValue(forKey: key)
    }
    // Released outside the lock: its deinit releases the NIO loop.
    withExtendedLifetime(removed) {}
  }
}

/// An NIO loop, held weakly.
private struct WeakEventLoop {
  weak var loop: (any EventLoop)?
}

extension EventLoop {
  /// TimerLoop's timers on this loop: its ``NIOTimerLoop``, made on first
  /// use (see ``NIOTimerLoop/on(_:)``). Any thread.
  public var timerLoop: NIOTimerLoop { NIOTimerLoop.on(self) }
}
