/// One line per workload: the implementations ranked by the workload's headline metric, best
/// (lowest) first, each with its figure and its ``TimesBest`` ratio, as the table gives them.
/// Only cases that passed their checks are ranked; the others are named with the reason.
public struct Verdict: Sendable {
  /// A ranked case: its headline line and its ×best ratio (`nil` when the row gets none,
  /// see ``TimesBest``).
  public struct Place: Sendable {
    /// The line of the headline metric the case printed.
    public var line: MetricLine
    /// Its figure ÷ the best figure.
    public var ratio: Double?
  }

  /// The workload.
  public var workload: String
  /// The headline metric it is judged by; `nil` if the workload declares none.
  public var metric: String?
  /// The cases that passed their checks and printed the headline metric, best first (ties
  /// in column order).
  public var ranking: [Place] = []
  /// Implementations that ran but are not ranked, with how they ended.
  public var unranked: [(implementation: String, outcome: CaseOutcome)]

  /// The ranked implementation with the lowest headline figure, and that figure's line.
  public var best: MetricLine? { ranking.first?.line }

  /// The verdict of every workload that ran, in report order.
  public static func all(_ results: BenchmarkResults) -> [Verdict] {
    results.workloads.filter(results.ran).map { Verdict(results, $0) }
  }

  init(_ results: BenchmarkResults, _ summary: WorkloadSummary) {
    workload = summary.name
    metric = summary.headline
    let ran = results.implementations(running: summary.name).map {
      ($0, results.outcome(of: summary.name, on: $0))
    }
    unranked = ran.filter { !$0.1.isRanked }.map { (implementation: $0.0, outcome: $0.1) }
    guard let metric = summary.headline else { return }
    let ratios = TimesBest.ratios(results, summary.name, metric)
    let lines = ran.filter { $0.1.isRanked }.compactMap {
      results.line(summary.name, $0.0, metric)
    }.filter { $0.number != nil }
    ranking = lines.enumerated().sorted {
      ($0.element.number!, $0.offset) < ($1.element.number!, $1.offset)
    }.map { Place(line: $0.element, ratio: ratios[$0.element.implementation]) }
  }

  /// For example `million (run_cpu_ns_per_timer, ns): timerloop-handler 118.0 1.00×,
  /// timerloop 153.0 1.30×, dispatch 742.4 6.29×; not ranked: foundation (FAIL ok=0)`.
  public var text: String {
    let head: String
    var parts: [String] = []
    switch (metric, best) {
    case (let metric?, let best?):
      head = "\(workload) (\(metric), \(best.unit))"
      let places = ranking.map { place in
        "\(place.line.implementation) \(TextLayout.grouped(place.line.value))"
          + (place.ratio.map { " " + TimesBest.format($0) } ?? "")
      }
      parts.append(
        places.joined(separator: ", ") + (ranking.count == 1 ? " (the only case ranked)" : ""))
    case (let metric?, nil):
      head = workload
      parts.append("\(metric): no implementation passed its checks")
    case (nil, _):
      head = workload
      parts.append("nothing to rank (no headline metric)")
    }
    if !unranked.isEmpty {
      parts.append(
        "not ranked: "
          + unranked.map { "\($0.implementation) (\($0.outcome))" }.joined(separator: ", "))
    }
    return head + ": " + parts.joined(separator: "; ")
  }
}
