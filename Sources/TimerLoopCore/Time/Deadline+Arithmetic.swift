/// Moving a deadline by a Swift `Duration`, and the time between two
/// deadlines. Every operator clamps the result to ``Deadline/distantPast``
/// ... ``Deadline/distantFuture`` instead of trapping, and a fraction of a
/// nanosecond moves the result later, never earlier, so a deadline computed
/// here is never before the exact one (a timer set for it never fires early).
///
/// | expression | result |
/// |---|---|
/// | `deadline + .milliseconds(5)` | 5,000,000 ns later |
/// | `deadline + .nanoseconds(1) / 2` | 1 ns later (rounded up) |
/// | `deadline - .nanoseconds(1) / 2` | `deadline` (rounded up) |
/// | `deadline + .seconds(Int64.max)` | ``Deadline/distantFuture`` |
/// | `deadline - .seconds(Int64.max)` | ``Deadline/distantPast`` |
/// | `later - earlier` | the exact `Duration` between them |
///
/// SwiftNIO's `NIODeadline` saturates the same way; rounding up follows
/// tokio's `deadline_to_tick`.
extension Deadline {
  /// `lhs` moved by `rhs` (back, if `rhs` is negative), rounded up to a whole
  /// nanosecond and clamped to ``distantPast`` ... ``distantFuture``.
  @inlinable
  public static func + (lhs: Deadline, rhs: Duration) -> Deadline {
    lhs + TimeAmount(rhs)
  }

  /// `rhs` moved by `lhs`: the same as `rhs + lhs`.
  @inlinable
  public static func + (lhs: Duration, rhs: Deadline) -> Deadline {
    rhs + TimeAmount(lhs)
  }

  /// `lhs` moved back by `rhs` (forward, if `rhs` is negative), rounded up to a
  /// whole nanosecond and clamped to ``distantPast`` ... ``distantFuture``.
  public static func - (lhs: Deadline, rhs: Duration) -> Deadline {
    // Beyond this, negating `rhs` could overflow; the result saturates anyway.
    guard rhs > TimeAmount.min.duration else { return .distantFuture }
    return lhs + TimeAmount(.zero - rhs)
  }

  /// The exact, signed time from `rhs` to `lhs`: negative if `lhs` is the
  /// earlier. Never traps: any two deadlines are less than 2^64 ns apart.
  public static func - (lhs: Deadline, rhs: Deadline) -> Duration {
    .nanoseconds(lhs.uptimeNanoseconds) - .nanoseconds(rhs.uptimeNanoseconds)
  }

  /// Moves `lhs` by `rhs` in place: `lhs = lhs + rhs`.
  public static func += (lhs: inout Deadline, rhs: Duration) { lhs = lhs + rhs }

  /// Moves `lhs` back by `rhs` in place: `lhs = lhs - rhs`.
  public static func -= (lhs: inout Deadline, rhs: Duration) { lhs = lhs - rhs }

  /// The deadline `delay` after `self`, a negative delay counting as zero:
  /// where every `after:` call of the loops puts its timer. Inlinable, so
  /// that the conversion's short path inlines into those calls.
  @inlinable
  package func after(_ delay: Duration) -> Deadline {
    self + Swift.max(TimeAmount(delay), .zero)
  }
}
