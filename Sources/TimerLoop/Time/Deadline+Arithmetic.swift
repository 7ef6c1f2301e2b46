/// Moving a deadline by an amount of time, with either ``TimeAmount`` or a
/// Swift `Duration`. Like ``Deadline/+(_:_:)``, every operator clamps the
/// result to ``Deadline/distantPast`` ... ``Deadline/distantFuture`` instead of
/// trapping, and a fraction of a nanosecond in a `Duration` moves the result
/// later, never earlier, so a deadline computed here is never before the exact one.
///
/// The `Duration` forms are disfavoured, so that an expression both types can
/// spell (`.milliseconds(100) * 2`) means a ``TimeAmount``.
extension Deadline {
  /// `lhs` moved back by `rhs`, clamped to ``distantPast`` ... ``distantFuture``
  /// (moving back by ``TimeAmount/min`` gives ``distantFuture``).
  public static func - (lhs: Deadline, rhs: TimeAmount) -> Deadline {
    lhs + -rhs
  }

  /// `rhs` moved by `lhs`: the same as `rhs + lhs`.
  public static func + (lhs: TimeAmount, rhs: Deadline) -> Deadline {
    rhs + lhs
  }

  /// `lhs` moved by `rhs`, converted by ``TimeAmount/init(_:)`` (rounded up
  /// to a whole nanosecond, saturating); clamped like `deadline + amount`.
  @_disfavoredOverload
  public static func + (lhs: Deadline, rhs: Duration) -> Deadline {
    lhs + TimeAmount(rhs)
  }

  /// `lhs` moved back by `rhs`, rounded down to a whole nanosecond (so the
  /// deadline is rounded up) and clamped like `deadline - amount`.
  @_disfavoredOverload
  public static func - (lhs: Deadline, rhs: Duration) -> Deadline {
    let roundedUp = TimeAmount(rhs)
    // TimeAmount(_:) rounds up; subtracting that would move the deadline
    // earlier than exact, so take one nanosecond off an inexact conversion.
    let roundedDown = roundedUp.duration > rhs ? roundedUp - .nanoseconds(1) : roundedUp
    return lhs - roundedDown
  }

  /// Moves `lhs` by `rhs` in place: `lhs = lhs + rhs`.
  public static func += (lhs: inout Deadline, rhs: TimeAmount) { lhs = lhs + rhs }

  /// Moves `lhs` back by `rhs` in place: `lhs = lhs - rhs`.
  public static func -= (lhs: inout Deadline, rhs: TimeAmount) { lhs = lhs - rhs }

  /// Moves `lhs` by `rhs` in place: `lhs = lhs + rhs`.
  @_disfavoredOverload
  public static func += (lhs: inout Deadline, rhs: Duration) { lhs = lhs + rhs }

  /// Moves `lhs` back by `rhs` in place: `lhs = lhs - rhs`.
  @_disfavoredOverload
  public static func -= (lhs: inout Deadline, rhs: Duration) { lhs = lhs - rhs }
}
