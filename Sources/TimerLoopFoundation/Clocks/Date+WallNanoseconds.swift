import Foundation
import TimerLoopCore

extension Date {
  /// Seconds from 1970 to 2001, the epochs of `CLOCK_REALTIME` and `Date`.
  private static let secondsFrom1970To2001: Int64 = 978_307_200

  /// The date `nanoseconds` after 1970-01-01 00:00:00 UTC (`CLOCK_REALTIME`),
  /// to the nearest `Date` (a `Double` of seconds since 2001).
  package init(wallNanoseconds nanoseconds: Int64) {
    let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    let (whole, part) = fraction < 0 ? (seconds - 1, fraction + 1_000_000_000) : (seconds, fraction)
    self.init(
      timeIntervalSinceReferenceDate: Double(whole - Self.secondsFrom1970To2001)
        + Double(part) / 1e9)
  }

  /// Nanoseconds after 1970-01-01 00:00:00 UTC, rounded up (exactly: a
  /// deadline is never before the date), saturating at the range of `Int64`.
  /// A NaN or positive-infinite date gives `Int64.max` ("never"), a
  /// negative-infinite one `Int64.min`.
  package var wallNanoseconds: Int64 {
    let interval = timeIntervalSinceReferenceDate
    guard !interval.isNaN else { return .max }
    let whole = interval.rounded(.down)
    // 2^62 seconds is far outside Int64 nanoseconds either way.
    guard abs(whole) < 0x1p62 else { return whole > 0 ? .max : .min }
    let fraction = interval - whole  // exact, in [0, 1)
    var fractionNanoseconds = (fraction * 1e9).rounded(.up)
    // The product was rounded once; a fused multiply-add tells if it lost
    // a part that rounding up must still count.
    if (-fractionNanoseconds).addingProduct(fraction, 1e9) > 0 { fractionNanoseconds += 1 }
    let seconds = Int64(whole).addingSaturated(Self.secondsFrom1970To2001)
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds > 0 ? .max : .min }
    return scaled.addingSaturated(Int64(fractionNanoseconds))
  }
}
