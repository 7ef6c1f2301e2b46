/// What a ``TickSequence`` does when its consumer asks for a tick after that
/// tick's grid point has passed (it was busy, or its task was not run in
/// time). Named and defined as tokio's `MissedTickBehavior`; the examples
/// take ticks every 10 ms from 0 and a consumer busy from 10 ms to 45 ms.
public enum MissedTickBehavior: Sendable, Hashable {
  /// Delivers every missed tick at once, one per request, until it has caught
  /// up with the grid: 20, 30 and 40 ms at 45 ms, then 50, 60, ...
  case burst
  /// Delivers the first missed tick at once and starts a new grid one
  /// interval after that moment: 20 ms at 45 ms, then 55, 65, ...
  case delay
  /// Delivers the first missed tick at once and drops the rest, keeping to
  /// the grid: 20 ms at 45 ms, then 50, 60, ... The default here, as Apple's
  /// `Timer` fires once for missed ticks and stays on its grid (tokio's
  /// default is `Burst`).
  case skip
}
