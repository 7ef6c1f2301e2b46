/// Errors the loop throws for a request it cannot honour. Nothing is scheduled
/// when one is thrown, and the closure that was passed in is released.
public enum TimerLoopError: Error, Hashable, Sendable, CustomStringConvertible {
  /// An interval or date was NaN (`Double.nan` seconds), which has no place on a clock.
  case invalidInterval
  /// The loop has been shut down: it accepts no more timers or tasks.
  case shutdown
  /// The call is for the loop's own thread (descriptor registration,
  /// embedding) and came from another one.
  case wrongThread
  /// The deadline of ``TimerEventLoop/withDeadline(_:isolation:operation:)-(Deadline,_,_)`` (or the timeout
  /// of ``TimerEventLoop/withTimeout(_:isolation:operation:)``) passed before
  /// the operation finished; the operation was cancelled.
  case timedOut
  /// The loop has no timers on the boot-time or wall clock (a `Date`, a
  /// `ContinuousClock.Instant`, a calendar rule, a wall-clock grid,
  /// ``TimerEventLoop/onWallClockSet(_:)``, or a sleep until one of those):
  /// only ``EpollEventLoop`` and ``VirtualEventLoop`` host them, with their
  /// timerfds or virtual clocks. TimerLoopNIO's `NIOTimerLoop` has monotonic
  /// timers only. Thrown before anything else is checked, so it does not
  /// depend on the loop's state.
  case unsupportedClock

  /// A one-line explanation for logs.
  public var description: String {
    switch self {
    case .invalidInterval: "invalid interval: NaN seconds"
    case .shutdown: "the event loop has been shut down"
    case .wrongThread: "this call must be made on the event loop's own thread"
    case .timedOut: "the operation did not finish before its deadline and was cancelled"
    case .unsupportedClock: "this event loop has no boot-time or wall-clock timers"
    }
  }
}
