/// The comparison table, one block per workload that ran: a title naming the workload and its
/// headline metric, then a `checks` row (how each case ended) and the workload's rows, one
/// column per implementation that ran it. Each time or size of a case that passed its checks
/// is followed by its ``TimesBest`` ratio.
///
/// Figures of a case that failed a check or did not finish carry a `!` and get no ratio, so
/// they are never read as comparable. A block wider than the terminal is split into several,
/// each with as many implementations as fit, so that no line is wider than
/// ``TextLayout/width`` however many implementations ran.
public enum ComparisonTable {
  /// The table as aligned text: names to the left, figures to the right; lines of at most
  /// `width` columns unless a single implementation's column is wider than that.
  public static func render(_ results: BenchmarkResults, width: Int = TextLayout.width) -> String {
    results.workloads.filter(results.ran).map { block(results, $0, width: width) }
      .joined(separator: "\n\n")
  }

  /// What one cell shows: a figure (a check's outcome, or a value as printed) and, for a
  /// ranked cost, its ratio, which gets a sub-column of its own so that figures and ratios
  /// each line up.
  private struct Cell {
    var figure: String
    var ratio: String?
  }

  private struct Row {
    var label: String
    var cells: [Cell]
  }

  /// A row's label: the metric, then its unit in parentheses unless the name already says it
  /// (the unit is one of its words, as `ns` in `reset_ns`) or the unit is `count` or `bool`,
  /// which a name says well enough: `reset_ns`, `fired`, `n (timers)`.
  static func label(_ metric: String, unit: String) -> String {
    let words = metric.split(separator: "_")
    guard !unit.isEmpty, !["count", "bool"].contains(unit), !words.contains(Substring(unit))
    else { return metric }
    return "\(metric) (\(unit))"
  }

  /// Left of the label column.
  private static let indent = "  "
  /// Between columns.
  private static let gap = "  "

  private static func block(_ results: BenchmarkResults, _ summary: WorkloadSummary, width: Int)
    -> String
  {
    let names = results.implementations(running: summary.name)
    let outcomes = names.map { results.outcome(of: summary.name, on: $0) }
    var rows = [Row(label: "checks", cells: outcomes.map { Cell(figure: "\($0)") })]
    for metric in results.rows(of: summary) {
      let lines = names.map { results.line(summary.name, $0, metric) }
      guard let unit = lines.lazy.compactMap({ $0?.unit }).first else { continue }
      let ratios = TimesBest.ratios(results, summary.name, metric)
      let cells = zip(names, zip(lines, outcomes)).map { name, pair in
        let (line, outcome) = pair
        return Cell(
          figure: line.map { TextLayout.grouped($0.value) + (outcome.isRanked ? "" : "!") } ?? "-",
          ratio: ratios[name].map(TimesBest.format))
      }
      rows.append(Row(label: label(metric, unit: unit), cells: cells))
    }
    let labelWidth = max("metric".count, rows.map(\.label.count).max() ?? 0)
    let figureWidths = names.indices.map { column in
      rows.dropFirst().map { $0.cells[column].figure.count }.max() ?? 0
    }
    let ratioWidths = names.indices.map { column in
      rows.map { $0.cells[column].ratio?.count ?? 0 }.max() ?? 0
    }
    let columnWidths = names.indices.map { column in
      max(
        names[column].count, rows[0].cells[column].figure.count,
        figureWidths[column] + (ratioWidths[column] > 0 ? 1 + ratioWidths[column] : 0))
    }

    // The checks row's outcomes take the whole column; figures leave room for the ratios.
    func render(_ row: Row, _ column: Int, whole: Bool) -> String {
      let cell = row.cells[column]
      guard !whole, ratioWidths[column] > 0 else {
        return TextLayout.right(cell.figure, columnWidths[column])
      }
      let figure =
        TextLayout.right(cell.figure, figureWidths[column]) + " "
        + TextLayout.right(cell.ratio ?? "", ratioWidths[column])
      return TextLayout.right(figure, columnWidths[column])
    }

    let title =
      summary.name + (summary.headline.map { ", ranked by \($0)" } ?? "")
    let fixed = indent.count + labelWidth
    return groups(of: columnWidths, fitting: width - fixed).enumerated().map { index, group in
      let header =
        TextLayout.left("metric", labelWidth)
        + group.map { gap + TextLayout.right(names[$0], columnWidths[$0]) }.joined()
      let lines = rows.enumerated().map { index, row in
        TextLayout.left(row.label, labelWidth)
          + group.map { gap + render(row, $0, whole: index == 0) }.joined()
      }
      return
        ([index == 0 ? title : "\(summary.name) (continued)"]
        + ([header] + lines).map { trimmedRight(indent + $0) }).joined(separator: "\n")
    }.joined(separator: "\n\n")
  }

  /// The columns, in order, cut into as few runs as fit `room` (each column's width counted
  /// with its gap), with as even a number of columns per run as fits, so that a split block
  /// does not end in a lone column; a column wider than `room` gets a run of its own.
  static func groups(of widths: [Int], fitting room: Int) -> [[Int]] {
    let greedy = greedyGroups(of: widths, fitting: room)
    guard greedy.count > 1 else { return greedy }
    let size = (widths.count + greedy.count - 1) / greedy.count
    let even = stride(from: 0, to: widths.count, by: size).map {
      Array($0..<min($0 + size, widths.count))
    }
    let fits = even.allSatisfy { group in
      group.count == 1 || group.map { gap.count + widths[$0] }.reduce(0, +) <= room
    }
    return fits && even.count == greedy.count ? even : greedy
  }

  /// The columns cut where the next one would pass `room`.
  private static func greedyGroups(of widths: [Int], fitting room: Int) -> [[Int]] {
    var groups: [[Int]] = []
    var current: [Int] = []
    var used = 0
    for (column, width) in widths.enumerated() {
      if !current.isEmpty && used + gap.count + width > room {
        groups.append(current)
        current = []
        used = 0
      }
      current.append(column)
      used += gap.count + width
    }
    if !current.isEmpty { groups.append(current) }
    return groups
  }

  private static func trimmedRight(_ line: String) -> String {
    String(line.reversed().drop { $0 == " " }.reversed())
  }
}
