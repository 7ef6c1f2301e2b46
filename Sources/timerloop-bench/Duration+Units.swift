/// A `Duration` as the numbers the metrics print.
///
/// Both go through `components` (two `Int64`s): converting `attoseconds`, an
/// `Int128`, runs the standard library's generic integer conversion, some
/// thousands of instructions, which a workload converting per timer counted.
extension Duration {
  /// The duration in seconds, as a `Double`.
  var inSeconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// The duration in whole nanoseconds, rounded towards zero (the benchmarks'
  /// durations are whole nanoseconds: differences of clock readings), clamped
  /// to `Int64`.
  var inNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    guard !overflow && !carry else { return seconds < 0 ? .min : .max }
    return total
  }
}
