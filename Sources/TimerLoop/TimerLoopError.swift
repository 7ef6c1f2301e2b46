/// Errors the loop throws for a request it cannot honour. Nothing is scheduled
/// when one is thrown, and the closure that was passed in is released.
public enum TimerLoopError: Error, Hashable, Sendable, CustomStringConvertible {
  /// An interval or date was NaN (`Double.nan` seconds), which has no place on a clock.
  case invalidInterval
  /// The loop has been shut down: it accepts no more timers or tasks.
  case shutdown

  public var description: String {
    switch self {
    case .invalidInterval: "invalid interval: NaN seconds"
    case .shutdown: "the event loop has been shut down"
    }
  }
}
