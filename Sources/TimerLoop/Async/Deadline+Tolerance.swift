extension Deadline {
  /// The deadline moved later, by less than `tolerance`, onto a grid that
  /// deadlines with a similar tolerance share, so that the loop can serve them
  /// with one wake-up: rounded up to a multiple of the largest power of two
  /// nanoseconds not above `tolerance`. Unchanged for a tolerance under 2 ns,
  /// and where rounding up would pass ``distantFuture``. Never earlier.
  func delayed(within tolerance: TimeAmount) -> Deadline {
    guard tolerance.nanoseconds > 1 else { return self }
    let grid = Int64(1) << (63 - tolerance.nanoseconds.leadingZeroBitCount)
    let (raised, overflow) = uptimeNanoseconds.addingReportingOverflow(grid - 1)
    guard !overflow else { return self }
    return Deadline(uptimeNanoseconds: raised & ~(grid - 1))
  }
}
