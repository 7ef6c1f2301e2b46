import Foundation

/// What a workload shows in the report: the rows of the comparison table and the metric its
/// verdict ranks by. Declared by the workload; the table, verdicts and plot are generic.
public struct WorkloadSummary: Sendable {
  /// The workload's name, as in the metric lines.
  public var name: String
  /// The metrics the table shows, in order; `nil` shows every metric the workload printed,
  /// in the order it printed them.
  public var rows: [String]?
  /// The metric the verdict ranks implementations by, lower being better; `nil` for a
  /// workload with nothing to rank (one that runs on one implementation).
  public var headline: String?

  /// A summary of the workload `name`; see ``rows`` and ``headline``.
  public init(name: String, rows: [String]?, headline: String?) {
    self.name = name
    self.rows = rows
    self.headline = headline
  }
}

/// How one workload went on one implementation.
public enum CaseOutcome: Equatable, Sendable {
  /// It was not run (not selected, or the workload does not run there).
  case notRun
  /// It ran and passed every check it printed.
  case passed
  /// It ran, and printed a check of 0: the names of those checks (`ok`, `kept_up`).
  /// Its figures are shown but not ranked: they do not measure the same work.
  case failedChecks([String])
  /// Its process did not finish normally (the reason, e.g. `exit status 1`). What it
  /// printed before is shown but not ranked.
  case failed(String)

  /// Whether its figures can be ranked against others.
  public var isRanked: Bool { self == .passed }
}

/// The metric lines of a run of several cases (workload on implementation), with how each
/// case ended: the input of ``ComparisonTable``, the verdicts and ``LatencyPlot``.
public struct BenchmarkResults: Sendable {
  /// The workloads, in report order.
  public let workloads: [WorkloadSummary]
  /// The implementations, in column order.
  public let implementations: [String]
  /// The implementation the others are compared with (`timerloop`).
  public let reference: String
  /// Lines by workload, then implementation, in the order they were printed.
  private var printed: [String: [String: [MetricLine]]] = [:]
  /// Why a case failed, by workload, then implementation.
  private var failures: [String: [String: String]] = [:]

  /// Empty results for `workloads` on `implementations`, compared with `reference`.
  public init(workloads: [WorkloadSummary], implementations: [String], reference: String) {
    self.workloads = workloads
    self.implementations = implementations
    self.reference = reference
  }

  /// Takes in a case's output (anything that is not a metric line is ignored) and, if its
  /// process did not finish normally, why; a case that printed no metric line of its own
  /// counts as failed. Lines of other cases in `output` count as theirs.
  public mutating func record(
    output: some StringProtocol, workload: String, implementation: String, failure: String? = nil
  ) {
    for line in output.split(separator: "\n") {
      guard let metric = MetricLine(parsing: line) else { continue }
      printed[metric.workload, default: [:]][metric.implementation, default: []].append(metric)
    }
    let failure =
      failure ?? (printed[workload]?[implementation] == nil ? "no metrics printed" : nil)
    if let failure { failures[workload, default: [:]][implementation] = failure }
  }

  /// How `workload` went on `implementation`.
  public func outcome(of workload: String, on implementation: String) -> CaseOutcome {
    if let failure = failures[workload]?[implementation] { return .failed(failure) }
    guard let lines = printed[workload]?[implementation] else { return .notRun }
    let failed = lines.filter { $0.isCheck && $0.number != 1 }.map(\.metric)
    return failed.isEmpty ? .passed : .failedChecks(failed)
  }

  /// The lines `implementation` printed for `workload`, in order.
  public func lines(_ workload: String, _ implementation: String) -> [MetricLine] {
    printed[workload]?[implementation] ?? []
  }

  /// The line of `metric` that `implementation` printed for `workload`, if it did.
  public func line(_ workload: String, _ implementation: String, _ metric: String) -> MetricLine? {
    lines(workload, implementation).last { $0.metric == metric }
  }

  /// The metrics the table shows for `summary`: its rows, or every metric printed for it.
  func rows(of summary: WorkloadSummary) -> [String] {
    if let rows = summary.rows { return rows }
    var seen: Set<String> = []
    return implementations.flatMap { lines(summary.name, $0) }.map(\.metric).filter {
      seen.insert($0).inserted
    }
  }

  /// Whether any implementation ran `summary`'s workload.
  func ran(_ summary: WorkloadSummary) -> Bool {
    implementations.contains { outcome(of: summary.name, on: $0) != .notRun }
  }
}

extension CaseOutcome: CustomStringConvertible {
  /// For the table's checks row and the verdicts: `pass`, `FAIL ok=0`, `FAIL exit status 1`.
  public var description: String {
    switch self {
    case .notRun: "-"
    case .passed: "pass"
    case .failedChecks(let checks): "FAIL " + checks.map { "\($0)=0" }.joined(separator: ",")
    case .failed(let reason): "FAIL \(reason)"
    }
  }
}

/// A ratio with about three significant digits: `0.67x`, `48.6x`, `333x`.
func formatRatio(_ ratio: Double) -> String {
  let digits = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2
  return String(format: "%.\(digits)fx", ratio)
}
