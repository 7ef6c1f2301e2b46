extension Deadline {
  /// The deadline moved later, by less than `tolerance`, onto a grid that
  /// deadlines with a similar tolerance share, so that the loop can serve them
  /// with one wake-up (see ``Swift/Int64/delayed(within:)``). Never earlier.
  func delayed(within tolerance: TimeAmount) -> Deadline {
    Deadline(uptimeNanoseconds: uptimeNanoseconds.delayed(within: tolerance.nanoseconds))
  }
}

extension Int64 {
  /// These nanoseconds (on any clock) rounded up to a multiple of the largest
  /// power of two nanoseconds not above `tolerance`, so that deadlines with
  /// a similar tolerance fall on shared grid points: less than `tolerance`
  /// later. Unchanged for a tolerance under 2 ns, and where rounding up would
  /// pass `Int64.max` ("never"). Never earlier.
  func delayed(within tolerance: Int64) -> Int64 {
    guard tolerance > 1 else { return self }
    let grid = Int64(1) << (63 - tolerance.leadingZeroBitCount)
    let (raised, overflow) = addingReportingOverflow(grid - 1)
    guard !overflow else { return self }
    return raised & ~(grid - 1)
  }
}
