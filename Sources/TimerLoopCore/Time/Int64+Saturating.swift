extension Int64 {
  /// `self + other`, clamped to `Int64.min ... Int64.max`: the arithmetic
  /// under ``TimeAmount``, ``Deadline`` and the other clocks' nanoseconds, so
  /// that no time computation traps.
  package func addingSaturated(_ other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }

  /// `self - other`, clamped to `Int64.min ... Int64.max`.
  package func subtractingSaturated(_ other: Int64) -> Int64 {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? (other < 0 ? .max : .min) : difference
  }
}
