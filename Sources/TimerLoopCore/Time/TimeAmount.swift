/// A signed span of time in whole nanoseconds: the engine's interval type.
///
/// Not public: the public API takes and returns Swift's `Duration`, and
/// converts it here once, at the edge (``init(_:)``). Inside, an `Int64`
/// count of nanoseconds (about ±292 years) keeps the timer paths' arithmetic
/// exact and cheap, where a `Duration` is 128-bit attoseconds. Every way in
/// saturates instead of trapping:
///
/// | input | result |
/// |---|---|
/// | a value beyond ±`Int64.max` ns (including `.infinity`, `Duration`'s extremes) | `.max` / `.min` |
/// | a fraction of a nanosecond | rounded **up** (towards +∞), so a timer never fires early |
/// | NaN seconds | ``TimerLoopError/invalidInterval`` is thrown |
///
/// `.max` means "never": a deadline that far away saturates to
/// ``Deadline/distantFuture``. The representation follows SwiftNIO's
/// `TimeAmount` (Int64 nanoseconds with saturating constructors); rounding up
/// follows tokio's `deadline_to_tick`.
@usableFromInline
package struct TimeAmount: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The amount in nanoseconds.
  @usableFromInline package let nanoseconds: Int64

  /// Creates an amount of `nanoseconds` nanoseconds.
  @inlinable
  package init(nanoseconds: Int64) {
    self.nanoseconds = nanoseconds
  }

  /// The longest representable amount (`Int64.max` ns, about 292 years): "never".
  @inlinable package static var max: TimeAmount { TimeAmount(nanoseconds: .max) }
  /// The most negative representable amount.
  @inlinable package static var min: TimeAmount { TimeAmount(nanoseconds: .min) }
  /// No time at all.
  @inlinable package static var zero: TimeAmount { TimeAmount(nanoseconds: 0) }

  /// `n` nanoseconds.
  package static func nanoseconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: n) }
  /// `n` microseconds; saturates at ``max`` / ``min``.
  package static func microseconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000) }
  /// `n` milliseconds; saturates at ``max`` / ``min``.
  package static func milliseconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000_000) }
  /// `n` seconds; saturates at ``max`` / ``min``.
  package static func seconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000_000_000) }

  private static func scaled(_ n: Int64, by unit: Int64) -> TimeAmount {
    let (product, overflow) = n.multipliedReportingOverflow(by: unit)
    if overflow { return n < 0 ? .min : .max }
    return TimeAmount(nanoseconds: product)
  }

  /// Converts a Swift `Duration`, rounding a fraction of a nanosecond up
  /// (towards +∞), so the result is never shorter than `duration`, and
  /// saturating at ``max`` / ``min``.
  ///
  /// The one conversion from `Duration` in the package: every public call
  /// that takes a `Duration` goes through it. Inlinable, so that a delay
  /// under about 9.2 s (whose attoseconds fit an `Int64`) costs a
  /// comparison and a division by a constant; longer ones take the 128-bit
  /// path.
  @inlinable
  package init(_ duration: Duration) {
    let attoseconds = duration.attoseconds
    guard let short = Int64(exactly: attoseconds) else {
      self = Self(long: attoseconds)
      return
    }
    let (whole, fraction) = short.quotientAndRemainder(dividingBy: 1_000_000_000)
    self.init(nanoseconds: fraction > 0 ? whole + 1 : whole)
  }

  /// ``init(_:)`` for attoseconds beyond `Int64` (delays of 9.2 s and more,
  /// such as idle timeouts). Divides in 64-bit halves by the constant 10^9,
  /// which compiles to multiplications: `Int128`'s division, and a 128-by-64
  /// one, are calls into the runtime library. Inlinable too, so that a
  /// constant timeout (`.seconds(30)`) converts at compile time.
  @inlinable
  init(long attoseconds: Int128) {
    // Beyond these, the result rounded up leaves Int64: ceil(a / 1e9) is at
    // most Int64.max for a <= Int64.max × 1e9, at least Int64.min for
    // a > (Int64.min - 1) × 1e9.
    guard attoseconds <= 9_223_372_036_854_775_807_000_000_000 else {
      self = .max
      return
    }
    guard attoseconds > -9_223_372_036_854_775_809_000_000_000 else {
      self = .min
      return
    }
    // magnitude = high × 2^64 + low, high < 5 × 10^8 in range; with
    // 2^64 = 18,446,744,073 × 10^9 + 709,551,616:
    // magnitude = 10^9 × (high × 18,446,744,073 + low / 10^9) + rest,
    // rest = high × 709,551,616 + low % 10^9 (under 4 × 10^17).
    let magnitude = attoseconds.magnitude
    let high = UInt64(truncatingIfNeeded: magnitude >> 64)
    let low = UInt64(truncatingIfNeeded: magnitude)
    let rest = high &* 709_551_616 &+ low % 1_000_000_000
    let quotient = high &* 18_446_744_073 &+ low / 1_000_000_000 &+ rest / 1_000_000_000
    let remainder = rest % 1_000_000_000
    // Rounding up adds one to a positive quotient with a remainder; a
    // negative one, truncated towards zero, is rounded up already (and may
    // be 2^63: Int64.min).
    self.init(
      nanoseconds: attoseconds > 0
        ? Int64(quotient) + (remainder > 0 ? 1 : 0) : Int64(bitPattern: 0 &- quotient))
  }

  /// Converts a `TimeInterval` (a `Double` count of seconds), rounding up to a
  /// whole nanosecond and saturating at ``max`` / ``min`` (so `.infinity` and
  /// `1e300` both mean "never").
  ///
  /// This is the only conversion from `Double` seconds in the package.
  ///
  /// - Throws: ``TimerLoopError/invalidInterval`` when `seconds` is NaN.
  package init(seconds: Double) throws(TimerLoopError) {
    guard !seconds.isNaN else { throw .invalidInterval }
    let ns = (seconds * 1e9).rounded(.up)
    // Int64.max is not representable as a Double; 2^63 is the first value beyond it.
    if ns >= 0x1p63 {
      self = .max
    } else if ns < -0x1p63 {
      self = .min
    } else {
      self.init(nanoseconds: Int64(ns))
    }
  }

  /// The amount as a `Duration` (exact).
  package var duration: Duration { .nanoseconds(nanoseconds) }

  /// The amount in seconds, as a `Double`.
  package var seconds: Double { Double(nanoseconds) / 1e9 }

  /// Whether `lhs` is the shorter amount.
  @inlinable
  package static func < (lhs: TimeAmount, rhs: TimeAmount) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }

  /// Saturating sum.
  package static func + (lhs: TimeAmount, rhs: TimeAmount) -> TimeAmount {
    TimeAmount(nanoseconds: lhs.nanoseconds.addingSaturated(rhs.nanoseconds))
  }

  /// The amount in nanoseconds, for logs: `"1500 ns"`.
  @usableFromInline package var description: String { "\(nanoseconds) ns" }
}
