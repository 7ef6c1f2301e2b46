/// A signed span of time in whole nanoseconds, used for delays and repeat intervals.
///
/// `TimeAmount` is the loop's only interval type. It holds an `Int64` count of
/// nanoseconds (about ±292 years), so arithmetic on it is exact and cheap.
/// Every way in saturates instead of trapping:
///
/// | input | result |
/// |---|---|
/// | a value beyond ±`Int64.max` ns (including `.infinity`, `Duration` max) | `.max` / `.min` |
/// | a fraction of a nanosecond | rounded **up** (towards +∞), so a timer never fires early |
/// | NaN seconds | ``TimerLoopError/invalidInterval`` is thrown |
///
/// A negative amount is allowed; a timer scheduled with it is already due and
/// runs in the loop's next pass. `.max` means "never": a deadline that far
/// away saturates to ``Deadline/distantFuture``.
///
/// The representation follows SwiftNIO's `TimeAmount` (Int64 nanoseconds with
/// saturating constructors); rounding up follows tokio's `deadline_to_tick`.
public struct TimeAmount: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The amount in nanoseconds.
  public let nanoseconds: Int64

  /// Creates an amount of `nanoseconds` nanoseconds.
  public init(nanoseconds: Int64) {
    self.nanoseconds = nanoseconds
  }

  /// The longest representable amount (`Int64.max` ns, about 292 years): "never".
  public static let max = TimeAmount(nanoseconds: .max)
  /// The most negative representable amount.
  public static let min = TimeAmount(nanoseconds: .min)
  /// No time at all.
  public static let zero = TimeAmount(nanoseconds: 0)

  /// `n` nanoseconds.
  public static func nanoseconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: n) }
  /// `n` microseconds; saturates at ``max`` / ``min``.
  public static func microseconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000) }
  /// `n` milliseconds; saturates at ``max`` / ``min``.
  public static func milliseconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000_000) }
  /// `n` seconds; saturates at ``max`` / ``min``.
  public static func seconds(_ n: Int64) -> TimeAmount { scaled(n, by: 1_000_000_000) }

  private static func scaled(_ n: Int64, by unit: Int64) -> TimeAmount {
    let (product, overflow) = n.multipliedReportingOverflow(by: unit)
    if overflow { return n < 0 ? .min : .max }
    return TimeAmount(nanoseconds: product)
  }

  /// Converts a Swift `Duration`, saturating at ``max`` / ``min`` and rounding a
  /// fraction of a nanosecond up, so the result is never shorter than `duration`.
  ///
  /// This is the only conversion from `Duration` in the module.
  public init(_ duration: Duration) {
    // Out-of-range durations are caught as 128-bit `Duration`s first:
    // `components` traps when the whole seconds do not fit an `Int64`.
    guard duration <= Self.max.duration else {
      self = .max
      return
    }
    guard duration > Self.min.duration else {
      self = .min
      return
    }
    let (seconds, attoseconds) = duration.components
    // attoseconds is in (-1e18, 1e18) and has the sign of the duration. In
    // range, neither the product nor the rounded-up sum can overflow.
    let (wholeNs, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    self.init(nanoseconds: seconds * 1_000_000_000 + wholeNs + (remainder > 0 ? 1 : 0))
  }

  /// Converts a `TimeInterval` (a `Double` count of seconds), rounding up to a
  /// whole nanosecond and saturating at ``max`` / ``min`` (so `.infinity` and
  /// `1e300` both mean "never").
  ///
  /// This is the only conversion from `Double` seconds in the module.
  ///
  /// - Throws: ``TimerLoopError/invalidInterval`` when `seconds` is NaN.
  public init(seconds: Double) throws(TimerLoopError) {
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

  /// The amount as a `Duration`.
  public var duration: Duration { .nanoseconds(nanoseconds) }

  /// The amount in seconds, as a `Double`.
  public var seconds: Double { Double(nanoseconds) / 1e9 }

  /// Whether `lhs` is the shorter amount.
  public static func < (lhs: TimeAmount, rhs: TimeAmount) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }

  /// Saturating sum.
  public static func + (lhs: TimeAmount, rhs: TimeAmount) -> TimeAmount {
    TimeAmount(nanoseconds: lhs.nanoseconds.addingSaturated(rhs.nanoseconds))
  }

  /// The amount in nanoseconds, for logs: `"1500 ns"`.
  public var description: String { "\(nanoseconds) ns" }
}
