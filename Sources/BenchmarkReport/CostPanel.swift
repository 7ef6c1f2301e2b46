/// The plot's panel of one cost of a workload (a CPU or memory figure): one horizontal bar per
/// implementation that printed it, on a linear scale from 0, labelled with the figure and its
/// ``TimesBest`` ratio. A case that failed a check or did not finish is drawn faint and dashed
/// and named as such; a figure of 0 or below gets no bar, only its label.
enum CostPanel {
  static let left = 150.0, right = 230.0, top = 34.0, bottom = 14.0
  static let barHeight = 14.0, barSpacing = 20.0
  /// The length of the longest bar.
  static var plotWidth: Double { BenchmarkPlot.width - left - right }

  /// The implementations that printed `metric` for `workload`, by column.
  static func bars(_ results: BenchmarkResults, _ workload: String, _ metric: String)
    -> [(column: Int, line: MetricLine)]
  {
    results.implementations.enumerated().compactMap { column, implementation in
      results.line(workload, implementation, metric).flatMap { line in
        line.number == nil ? nil : (column, line)
      }
    }
  }

  /// How high the panel of `bars` bars is.
  static func height(bars: Int) -> Double { top + Double(bars) * barSpacing + bottom }

  /// The panel of `metric` in `workload`, its top at `originY`.
  static func svg(
    _ results: BenchmarkResults, workload: String, metric: String, y originY: Double
  ) -> String {
    let bars = bars(results, workload, metric)
    let ratios = TimesBest.ratios(results, workload, metric)
    let largest = max(bars.map { $0.line.number! }.max() ?? 0, 0)
    let unit = bars.first?.line.unit ?? ""
    var svg = SVG.text(
      "\(workload): \(metric) (\(unit)), linear scale, lower is better",
      x: 70, y: originY + 22, anchor: "start", bold: true)
    svg += SVG.line(
      left, originY + top - 4, left, originY + height(bars: bars.count) - bottom,
      color: "#999999")
    for (rank, bar) in bars.enumerated() {
      let implementation = bar.line.implementation
      let outcome = results.outcome(of: workload, on: implementation)
      let number = bar.line.number!
      let y = originY + top + Double(rank) * barSpacing
      let length = largest > 0 && number > 0 ? plotWidth * number / largest : 0
      svg += SVG.text(implementation, x: left - 8, y: y + barHeight - 3, anchor: "end")
      if length > 0 {
        svg += SVG.bar(
          x: left, y: y, width: max(length, 1), height: barHeight, color: SVG.color(bar.column),
          faint: !outcome.isRanked)
      }
      let figure =
        "\(TextLayout.grouped(bar.line.value)) \(unit)"
        + (ratios[implementation].map { " " + TimesBest.format($0) } ?? "")
        + (outcome.isRanked ? "" : " (\(outcome))")
      svg += SVG.text(figure, x: left + length + 6, y: y + barHeight - 3, anchor: "start")
    }
    return svg
  }
}
