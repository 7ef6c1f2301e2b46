/// A `Duration` as the numbers the metrics print.
extension Duration {
  /// The duration in seconds, as a `Double`.
  var inSeconds: Double { Double(attoseconds) / 1e18 }

  /// The duration in whole nanoseconds, rounded towards zero (the benchmarks'
  /// durations are whole nanoseconds: differences of clock readings).
  var inNanoseconds: Int64 { Int64(clamping: attoseconds / 1_000_000_000) }
}
