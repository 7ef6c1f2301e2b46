/// The one test behind every "must run on the loop" precondition of the
/// package (``TimerEventLoop/assumeIsolated()``, `checkIsolated()`), kept apart
/// from the trap so that tests can check it without crashing.
@_spi(TimerLoopHost)
public enum IsolationCheck {
  /// `nil` when the caller runs on `loop`'s thread; otherwise what the trap says.
  static func violation(of loop: some TimerEventLoop) -> String? {
    loop.inEventLoop ? nil : message(loopType: "\(type(of: loop))")
  }

  /// What a caller off the loop's thread is told.
  public static func message(loopType: String) -> String {
    "TimerLoop: this code must run on the thread of its \(loopType) (in one of the loop's "
      + "callbacks, or in a task or actor on it), but runs on another thread. Get there with "
      + "execute(_:), a timer, or an actor pinned to the loop."
  }
}
