/// The four workloads of `WORKLOADS.md`.
enum Workload: String, CaseIterable, Sendable {
  /// W1: ``MillionWorkload``.
  case million
  /// W2: ``ChurnWorkload``.
  case churn
  /// W3: ``JitterWorkload``.
  case jitter
  /// W4: ``MemoryWorkload``.
  case memory

  /// The default of the count `--timers` sets: N (million, memory), C (churn) or K (jitter).
  var defaultTimers: Int {
    switch self {
    case .million: MillionWorkload.defaultCount
    case .churn: ChurnWorkload.defaultCount
    case .jitter: JitterWorkload.defaultCount
    case .memory: MemoryWorkload.defaultCount
    }
  }
}

/// One workload on one implementation: what the benchmark runs, in this process or in a
/// child process of its own.
struct BenchmarkCase: CustomStringConvertible {
  var workload: Workload
  var implementation: Implementation

  var description: String { "\(workload.rawValue) on \(implementation.rawValue)" }

  /// Runs the case in this process and prints its metric lines on standard output.
  /// `timers` and `seconds` default to the workload's own sizes.
  func run(timers: Int?, seconds: Double?) throws {
    let sink = MetricSink(implementation: implementation, workload: workload)
    let count = timers ?? workload.defaultTimers
    switch workload {
    case .million:
      try MillionWorkload.run(implementation, count: count, sink: sink)
    case .churn:
      try ChurnWorkload.run(implementation, count: count, sink: sink)
    case .jitter:
      try JitterWorkload.run(
        implementation, count: count, seconds: seconds ?? JitterWorkload.defaultSeconds,
        sink: sink)
    case .memory:
      try MemoryWorkload.run(implementation, count: count, sink: sink)
    }
  }
}
