import NIOCore
import Synchronization
import TimerLoop

extension NIOTimerLoop {
  /// The timer loops of live NIO loops, by NIO loop. An entry holds its NIO
  /// loop, so the key cannot be reused while it is there; it leaves when
  /// the timer loop shuts down (with its NIO loop, or by ``shutdown()``).
  private static let loops = Mutex<[ObjectIdentifier: NIOTimerLoop]>([:])

  /// The timer loop of `eventLoop`, made on first use. Any thread; O(1) with
  /// a lock, so a handler that uses it often keeps the result (in
  /// `handlerAdded`, say). After `eventLoop` has shut down, a loop made now
  /// is shut down too: its calls throw ``TimerLoop/TimerLoopError/shutdown``.
  public static func on(_ eventLoop: any EventLoop) -> NIOTimerLoop {
    let (loop, made) = loops.withLock { loops in
      if let existing = loops[ObjectIdentifier(eventLoop)] { return (existing, false) }
      let made = NIOTimerLoop(eventLoop: eventLoop)
      loops[ObjectIdentifier(eventLoop)] = made
      return (made, true)
    }
    // Outside the lock: NIO takes its own locks to queue the first pass.
    if made { loop.driver.start() }
    return loop
  }

  /// Removes the entry of `eventLoop` if it is still the loop of `scheduler`.
  static func forget(_ eventLoop: any EventLoop, scheduler: TimerScheduler) {
    let removed = loops.withLock { loops -> NIOTimerLoop? in
      guard loops[ObjectIdentifier(eventLoop)]?.scheduler === scheduler else { return nil }
      return loops.removeValue(forKey: ObjectIdentifier(eventLoop))
    }
    // Released outside the lock: its deinit releases the NIO loop.
    withExtendedLifetime(removed) {}
  }
}

extension EventLoop {
  /// TimerLoop's timers on this loop: its ``TimerLoopNIO/NIOTimerLoop``, made on
  /// first use (see ``TimerLoopNIO/NIOTimerLoop/on(_:)``). Any thread.
  public var timerLoop: NIOTimerLoop { NIOTimerLoop.on(self) }
}
