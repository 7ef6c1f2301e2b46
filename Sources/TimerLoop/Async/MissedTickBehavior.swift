/// What a ``TickSequence`` does after a missed tick: one delivered more than
/// 5 ms after it was due, because the loop fired its timer late or the
/// consumer asked for it late. Named and defined as tokio's
/// `MissedTickBehavior`, applied, as tokio's `Interval` applies it, when the
/// missed tick is delivered (``TickSequence`` lists where the sequence
/// differs from tokio's `Interval`). The examples take ticks every 10 ms from
/// 0 and a consumer busy from 10 ms to 45 ms, which asks for the 20 ms tick
/// at 45 ms.
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
