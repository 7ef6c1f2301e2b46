/// The engine's arithmetic on amounts of time beyond `+`: negation and
/// division, both saturating instead of trapping. Division, the one
/// operation that must round, rounds up (towards +∞), as the conversions do,
/// so a delay computed from another is never shorter than the exact result.
///
/// | expression | result |
/// |---|---|
/// | `.seconds(1) / 3` | 333,333,334 ns (rounded up) |
/// | `-TimeAmount.min` | ``TimeAmount/max`` |
/// | `amount / 0` | ``TimeAmount/max`` if `amount > 0`, ``TimeAmount/min`` if `amount < 0`, ``TimeAmount/zero`` if it is zero |
extension TimeAmount {
  /// The amount with its sign flipped; `-min` saturates to ``max`` (the
  /// exact result is one nanosecond more than ``max``).
  package static prefix func - (amount: TimeAmount) -> TimeAmount {
    amount == .min ? .max : TimeAmount(nanoseconds: -amount.nanoseconds)
  }

  /// The quotient by a count of any integer type, rounded up (towards +∞):
  /// `.seconds(1) / 3` is 333,333,334 ns, `.nanoseconds(-7) / 2` is -3 ns.
  ///
  /// Never traps. Dividing by zero gives the limit of dividing by ever
  /// smaller positive counts: ``max`` ("never") for a positive amount,
  /// ``min`` for a negative one, ``zero`` for zero. `.min / -1`, whose exact
  /// result is one nanosecond beyond ``max``, gives ``max``.
  package static func / <Count: BinaryInteger>(lhs: TimeAmount, rhs: Count) -> TimeAmount {
    if rhs == 0 {
      return lhs.nanoseconds > 0 ? .max : lhs.nanoseconds < 0 ? .min : .zero
    }
    guard let divisor = Int64(exactly: rhs) else {
      // |rhs| > Int64.max, and |lhs| <= 2^63: the exact quotient lies in
      // [-1, 1], and is -1 only for min / 2^63. Rounded up, one in (0, 1) is 1
      // and one in (-1, 0] is 0.
      if lhs == .min, UInt64(exactly: rhs) == UInt64(1) << 63 { return .nanoseconds(-1) }
      let positive = lhs.nanoseconds != 0 && (lhs.nanoseconds < 0) == (rhs < 0)
      return positive ? .nanoseconds(1) : .zero
    }
    if lhs == .min, divisor == -1 { return .max }
    let (quotient, remainder) = lhs.nanoseconds.quotientAndRemainder(dividingBy: divisor)
    // Truncation moved a positive quotient towards zero, that is down: undo it.
    let roundUp = remainder != 0 && (remainder < 0) == (divisor < 0)
    return TimeAmount(nanoseconds: roundUp ? quotient + 1 : quotient)
  }
}
