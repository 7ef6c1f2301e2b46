import Synchronization
import TimerLoop

/// Chooses the event loop that timers run on when the caller names none: the
/// BlockTimers stand-in for `RunLoop.current`.
///
/// Apple's `Timer.scheduledTimer(...)` adds the timer to the current thread's
/// run loop, which a command-line program or a test on Linux never spins. Here
/// the choice is, in order:
/// 1. the loop set with ``withCurrent(_:_:)`` for the running code (BlockTimers
///    sets it to a timer's own loop while that timer's block runs on a
///    delivery queue or in `fire()`, so a timer scheduled from inside a block
///    lands on the same loop, as it would on Apple's platforms; a block the
///    loop calls on its own thread finds the loop by point 2);
/// 2. the loop whose closures the caller runs in: `EpollEventLoop.current` on
///    an event loop's thread, `VirtualEventLoop.current` inside a virtual
///    loop's `advanceTime`;
/// 3. the ``shared()`` loop, started on a background thread the first time it
///    is needed, so `BlockTimer.scheduledTimer(...)` just works.
public enum DefaultLoop {
  @TaskLocal private static var scoped: (any TimerEventLoop)?

  private static let sharedLoop = Locked<EpollEventLoop?>(nil)

  /// The loop a timer scheduled from here without an explicit loop runs on
  /// (see the order above), or `nil` only if the shared loop cannot be started
  /// (its descriptors or thread cannot be created; see ``shared()``).
  ///
  /// Cheap once the shared loop runs: a task-local read, a thread-specific
  /// read and a lock.
  public static var current: (any TimerEventLoop)? {
    try? resolved()
  }

  /// ``current``, with the reason when there is none.
  static func resolved() throws(SystemError) -> any TimerEventLoop {
    if let scoped { return scoped }
    if let loop = EpollEventLoop.current { return loop }
    if let loop = VirtualEventLoop.current { return loop }
    return try shared()
  }

  /// The process-wide default loop: an `EpollEventLoop` on a background thread
  /// named `BlockTimers`, started by the first call and then returned by every
  /// call. It runs until the process exits (or someone calls its `shutdown()`,
  /// after which timers scheduled on it are invalid at once).
  ///
  /// - Throws: `SystemError` when the loop cannot be started (typically
  ///   `EMFILE`); the next call tries again.
  public static func shared() throws(SystemError) -> EpollEventLoop {
    try sharedLoop.withLock { (loop) throws(SystemError) -> EpollEventLoop in
      if let loop { return loop }
      let started = try EpollEventLoop.startOnNewThread(name: "BlockTimers")
      loop = started
      return started
    }
  }

  /// Runs `body` with `loop` as ``current`` on this thread (and in tasks it
  /// creates), so that code written against `BlockTimer.scheduledTimer(...)`
  /// without a loop can be driven by a `VirtualEventLoop` in a test.
  /// Nests; the previous choice is restored when `body` returns.
  @discardableResult
  public static func withCurrent<Result>(
    _ loop: any TimerEventLoop, _ body: () throws -> Result
  ) rethrows -> Result {
    try $scoped.withValue(loop, operation: body)
  }
}
