/// One line per workload: which implementation did best on the workload's headline metric
/// (lower is better), and the reference implementation's figure as a multiple of that best.
/// Only cases that passed their checks are ranked; the others are named with the reason.
public struct Verdict: Sendable {
  /// The workload.
  public var workload: String
  /// The headline metric it is judged by; `nil` if the workload declares none.
  public var metric: String?
  /// The ranked implementation with the lowest headline figure, and that figure's line.
  public var best: MetricLine?
  /// The reference's figure ÷ the best figure (1 when the reference is best); `nil` when
  /// the reference is not ranked.
  public var referenceRatio: Double?
  /// Implementations that ran but are not ranked, with how they ended.
  public var unranked: [(implementation: String, outcome: CaseOutcome)]

  /// The verdict of every workload that ran, in report order.
  public static func all(_ results: BenchmarkResults) -> [Verdict] {
    results.workloads.filter(results.ran).map { Verdict(results, $0) }
  }

  init(_ results: BenchmarkResults, _ summary: WorkloadSummary) {
    workload = summary.name
    metric = summary.headline
    let ran = results.implementations.map { ($0, results.outcome(of: summary.name, on: $0)) }
      .filter { $0.1 != .notRun }
    unranked = ran.filter { !$0.1.isRanked }.map { (implementation: $0.0, outcome: $0.1) }
    guard let metric = summary.headline else { return }
    let ranked = ran.filter { $0.1.isRanked }.compactMap {
      results.line(summary.name, $0.0, metric)
    }.filter { $0.number != nil }
    best = ranked.min { $0.number! < $1.number! }
    if let best, let bestNumber = best.number, bestNumber > 0,
      let mine = ranked.first(where: { $0.implementation == results.reference })?.number
    {
      referenceRatio = mine / bestNumber
    }
  }

  /// For example `jitter: best timerloop (p99_us 195.2 us); timerloop÷best 1.00x; not
  /// ranked: foundation (FAIL kept_up=0)`.
  public func text(reference: String) -> String {
    var parts: [String] = []
    if let metric {
      if let best {
        parts.append("best \(best.implementation) (\(metric) \(best.value) \(best.unit))")
        if let referenceRatio {
          parts.append("\(reference)÷best \(formatRatio(referenceRatio))")
        }
      } else {
        parts.append("no implementation passed its checks")
      }
    } else {
      parts.append("nothing to rank (no headline metric)")
    }
    if !unranked.isEmpty {
      parts.append(
        "not ranked: "
          + unranked.map { "\($0.implementation) (\($0.outcome))" }.joined(separator: ", "))
    }
    return "\(workload): " + parts.joined(separator: "; ")
  }
}
