import Foundation

/// What a workload shows in the report: the rows of the comparison table, the metric its
/// verdict ranks by and the figures its plot draws as bars. Declared by the workload; the
/// table, verdicts and plot are generic.
public struct WorkloadSummary: Sendable {
  /// The workload's name, as in the metric lines.
  public var name: String
  /// The metrics the table shows, in order; `nil` shows every metric the workload printed,
  /// in the order it printed them.
  public var rows: [String]?
  /// The metric the verdict ranks implementations by, lower being better; `nil` for a
  /// workload with nothing to rank (one that runs on one implementation).
  public var headline: String?
  /// The CPU and memory figures `--plot` draws as bars, one panel each (its lateness
  /// percentiles are drawn whatever this says).
  public var plotted: [String]

  /// A summary of the workload `name`; see ``rows``, ``headline`` and ``plotted``.
  public init(name: String, rows: [String]?, headline: String?, plotted: [String] = []) {
    self.name = name
    self.rows = rows
    self.headline = headline
    self.plotted = plotted
  }
}

/// An implementation the report compares: its name, as in the metric lines, and what it is in
/// words, for the report's legend. Declared by the program that runs the cases, so that a new
/// implementation brings its own line of the legend.
public struct ImplementationSummary: Sendable {
  /// The name, as in the metric lines (`timerloop`, `continuous`, `libevent-ct`).
  public var name: String
  /// What it is, in words: the library and API, and where its timers run (for example
  /// "Task.sleep on ContinuousClock, tasks on the default executor").
  public var about: String

  /// The implementation `name`; see ``about``.
  public init(name: String, about: String) {
    self.name = name
    self.about = about
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
/// case ended: the input of ``ComparisonTable``, the verdicts and ``BenchmarkPlot``.
public struct BenchmarkResults: Sendable {
  /// The workloads, in report order.
  public let workloads: [WorkloadSummary]
  /// The implementations, in column order, with what each is.
  public let summaries: [ImplementationSummary]
  /// The implementations' names, in column order.
  public var implementations: [String] { summaries.map(\.name) }
  /// Lines by workload, then implementation, in the order they were printed.
  private var printed: [String: [String: [MetricLine]]] = [:]
  /// Why a case failed, by workload, then implementation.
  private var failures: [String: [String: String]] = [:]

  /// Empty results for `workloads` on `implementations`.
  public init(workloads: [WorkloadSummary], implementations: [ImplementationSummary]) {
    self.workloads = workloads
    self.summaries = implementations
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
    !implementations(running: summary.name).isEmpty
  }

  /// The implementations that ran `workload` (passed, failed or did not finish), in column
  /// order.
  func implementations(running workload: String) -> [String] {
    implementations.filter { outcome(of: workload, on: $0) != .notRun }
  }
}

extension CaseOutcome: CustomStringConvertible {
  /// For the table's checks row and the verdicts: `pass`, `FAIL ok=0`, `FAIL exit status 1`,
  /// `-` when it did not run.
  public var description: String {
    switch self {
    case .notRun: "-"
    case .passed: "pass"
    case .failedChecks(let checks): "FAIL " + checks.map { "\($0)=0" }.joined(separator: ",")
    case .failed(let reason): "FAIL \(reason)"
    }
  }
}
