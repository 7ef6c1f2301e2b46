/// The comparison table: per workload, a checks row (how each case ended) and the
/// workload's rows, one column per implementation, then for times and sizes the ratio of
/// every other implementation's figure to the reference's (above 1 favours the reference).
///
/// Figures of a case that failed a check or did not finish carry a `!` and get no ratio, so
/// they are never read as comparable.
public enum ComparisonTable {
  /// Says what the marks and the ratio columns of `results`' table mean, for printing under it.
  public static func legend(_ results: BenchmarkResults) -> String {
    let reference = results.reference
    var legend =
      "! a case that failed a check (its checks row names it) or did not finish: shown, not compared."
    if results.implementations.contains(reference) && results.implementations.count > 1 {
      legend += """

        <impl>÷\(reference): that implementation's figure divided by \(reference)'s, for times and
        sizes, so above 1 favours \(reference).
        """
    }
    return legend
  }

  /// The table as aligned text: names to the left, figures to the right.
  public static func render(_ results: BenchmarkResults) -> String {
    let reference = results.reference
    let others =
      results.implementations.contains(reference)
      ? results.implementations.filter { $0 != reference } : []
    var table: [[String]] = [
      ["metric", "unit"] + results.implementations + others.map { "\($0)÷\(reference)" }
    ]
    for summary in results.workloads where results.ran(summary) {
      let outcomes = results.implementations.map { results.outcome(of: summary.name, on: $0) }
      table.append(
        ["\(summary.name).checks", ""] + outcomes.map(\.description) + others.map { _ in "" })
      for metric in results.rows(of: summary) {
        let lines = results.implementations.map { results.line(summary.name, $0, metric) }
        guard let unit = lines.lazy.compactMap({ $0?.unit }).first else { continue }
        let cells = zip(lines, outcomes).map { line, outcome in
          line.map { $0.value + (outcome.isRanked ? "" : "!") } ?? "-"
        }
        let ratios = others.map { other in
          ratio(results, summary.name, metric, other).map(formatRatio) ?? ""
        }
        table.append(["\(summary.name).\(metric)", unit] + cells + ratios)
      }
    }
    return align(table)
  }

  /// `other`'s figure ÷ the reference's, when both are ranked costs above zero.
  static func ratio(
    _ results: BenchmarkResults, _ workload: String, _ metric: String, _ other: String
  ) -> Double? {
    let reference = results.reference
    guard results.outcome(of: workload, on: reference).isRanked,
      results.outcome(of: workload, on: other).isRanked,
      let base = results.line(workload, reference, metric), base.isCost,
      let baseNumber = base.number, baseNumber > 0,
      let value = results.line(workload, other, metric)?.number, value > 0
    else { return nil }
    return value / baseNumber
  }

  private static func align(_ table: [[String]]) -> String {
    let widths = table[0].indices.map { column in table.map { $0[column].count }.max() ?? 0 }
    return table.map { cells in
      cells.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return column < 2 ? cell + padding : padding + cell
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }
}
