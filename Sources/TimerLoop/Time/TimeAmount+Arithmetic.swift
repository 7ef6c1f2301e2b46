/// Arithmetic on the engine's amounts of time. Like every way into ``TimeAmount``, it
/// saturates at ``TimeAmount/max`` / ``TimeAmount/min`` instead of trapping,
/// and division, the one operation that must round, rounds up (towards +∞),
/// as the conversions do, so a delay computed from another is never shorter
/// than the exact result. ``TimeAmount/max`` means "never", so an overflow
/// towards +∞ gives a timer that never fires, not one that fires early or a crash.
///
/// | expression | result |
/// |---|---|
/// | `.milliseconds(100) * 2` | 200 ms |
/// | `.seconds(1) / 3` | 333,333,334 ns (rounded up) |
/// | `.max + .seconds(1)`, `.max * 2`, `-TimeAmount.min` | ``TimeAmount/max`` |
/// | `.min - .seconds(1)`, `.max * -2` | ``TimeAmount/min`` |
/// | `amount / 0` | ``TimeAmount/max`` if `amount > 0`, ``TimeAmount/min`` if `amount < 0`, ``TimeAmount/zero`` if it is zero |
///
/// `+`, `<` and the unit constructors up to seconds are declared with the type.
/// SwiftNIO's `TimeAmount` has `+`, `-` and `*` by any integer type, in either
/// order, and traps on overflow; these saturate instead, following the
/// module's rule that bad input never crashes, and add `/` and negation.
extension TimeAmount {
  /// `n` minutes; saturates at ``max`` / ``min``.
  package static func minutes(_ n: Int64) -> TimeAmount { .seconds(n) * 60 }

  /// `n` hours; saturates at ``max`` / ``min``.
  package static func hours(_ n: Int64) -> TimeAmount { .seconds(n) * 3_600 }

  /// The amount with its sign flipped; `-min` saturates to ``max`` (the
  /// exact result is one nanosecond more than ``max``).
  package static prefix func - (amount: TimeAmount) -> TimeAmount {
    amount == .min ? .max : TimeAmount(nanoseconds: -amount.nanoseconds)
  }

  /// Saturating difference: clamped to ``min`` ... ``max``.
  package static func - (lhs: TimeAmount, rhs: TimeAmount) -> TimeAmount {
    TimeAmount(nanoseconds: lhs.nanoseconds.subtractingSaturated(rhs.nanoseconds))
  }

  /// Saturating product with a count of any integer type: clamped to
  /// ``min`` ... ``max``, so `.max * 2` is ``max`` and `.seconds(1) * -Int64.max` is ``min``.
  package static func * <Count: BinaryInteger>(lhs: TimeAmount, rhs: Count) -> TimeAmount {
    guard let count = Int64(exactly: rhs) else {
      // |rhs| > Int64.max: every nonzero amount overflows.
      return lhs == .zero ? .zero : (lhs.nanoseconds < 0) == (rhs < 0) ? .max : .min
    }
    let (product, overflow) = lhs.nanoseconds.multipliedReportingOverflow(by: count)
    if overflow { return (lhs.nanoseconds < 0) == (count < 0) ? .max : .min }
    return TimeAmount(nanoseconds: product)
  }

  /// `rhs * lhs`: the same saturating product, count first.
  package static func * <Count: BinaryInteger>(lhs: Count, rhs: TimeAmount) -> TimeAmount {
    rhs * lhs
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

  /// Adds `rhs` to `lhs` in place, saturating; see ``+(_:_:)``.
  package static func += (lhs: inout TimeAmount, rhs: TimeAmount) { lhs = lhs + rhs }

  /// Subtracts `rhs` from `lhs` in place, saturating; see ``-(_:_:)``.
  package static func -= (lhs: inout TimeAmount, rhs: TimeAmount) { lhs = lhs - rhs }

  /// Multiplies `lhs` by `rhs` in place, saturating.
  package static func *= <Count: BinaryInteger>(lhs: inout TimeAmount, rhs: Count) {
    lhs = lhs * rhs
  }

  /// Divides `lhs` by `rhs` in place, rounding up; dividing by zero as ``/(_:_:)``.
  package static func /= <Count: BinaryInteger>(lhs: inout TimeAmount, rhs: Count) {
    lhs = lhs / rhs
  }
}
