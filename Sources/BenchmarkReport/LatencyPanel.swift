import Foundation

/// The plot's panel of a workload's lateness percentiles: one line per implementation across
/// `min_us`, `p50_us`, `p99_us`, `p999_us`, `max_us` (every metric named `min_us`, `max_us` or
/// `p<digits>_us` in µs), on a logarithmic scale. A case that failed a check or did not finish
/// is drawn dashed and named as such.
enum LatencyPanel {
  static let height = 300.0
  static let left = 70.0, right = 230.0, top = 40.0, bottom = 40.0

  /// Where a metric sits on the panel's axis: 0 for `min_us`, 0.5 for `p50_us`, 0.999 for
  /// `p999_us`, 1 for `max_us`; `nil` for anything else.
  static func position(of line: MetricLine) -> Double? {
    guard line.unit == "us", line.metric.hasSuffix("_us") else { return nil }
    let name = line.metric.dropLast(3)
    switch name {
    case "min": return 0
    case "max": return 1
    default:
      guard name.first == "p", name.count > 1, name.dropFirst().allSatisfy(\.isNumber) else {
        return nil
      }
      return Double("0." + name.dropFirst())
    }
  }

  /// The percentiles `workload` printed, in axis order; empty when it printed none.
  static func axis(_ results: BenchmarkResults, _ workload: String) -> [String] {
    var positions: [String: Double] = [:]
    for implementation in results.implementations {
      for line in results.lines(workload, implementation) {
        if let position = position(of: line) { positions[line.metric] = position }
      }
    }
    return positions.keys.sorted { positions[$0]! < positions[$1]! }
  }

  /// The panel of `workload` over `axis`, its top at `originY`, ``height`` high.
  static func svg(
    _ results: BenchmarkResults, workload: String, axis: [String], y originY: Double
  ) -> String {
    let plotWidth = BenchmarkPlot.width - left - right
    let plotHeight = height - top - bottom
    let series = results.implementations.enumerated().compactMap {
      index, implementation -> (Int, String, [Double?])? in
      let values = axis.map { results.line(workload, implementation, $0)?.number }
      return values.contains { $0 != nil } ? (index, implementation, values) : nil
    }
    let positive = series.flatMap { $0.2.compactMap { $0 } }.filter { $0 > 0 }
    let low = (positive.min().map(log10) ?? -1).rounded(.down)
    let high = max((positive.max().map(log10) ?? 0).rounded(.up), low + 1)
    func x(_ column: Int) -> Double {
      left + (axis.count == 1 ? plotWidth / 2 : plotWidth * Double(column) / Double(axis.count - 1))
    }
    func y(_ value: Double) -> Double {
      let clamped = max(log10(max(value, pow(10, low))), low)
      return originY + top + plotHeight * (1 - (clamped - low) / (high - low))
    }
    var svg = SVG.text(
      "\(workload): lateness percentiles, log scale (0 or below: on the bottom line)",
      x: left, y: originY + 22, anchor: "start", bold: true)
    for decade in stride(from: low, through: high, by: 1) {
      let lineY = y(pow(10, decade))
      svg += SVG.line(left, lineY, left + plotWidth, lineY, color: "#dddddd")
      svg += SVG.text(microseconds(pow(10, decade)), x: left - 6, y: lineY + 4, anchor: "end")
    }
    for (column, metric) in axis.enumerated() {
      svg += SVG.line(
        x(column), originY + top, x(column), originY + top + plotHeight, color: "#eeeeee")
      svg += SVG.text(
        String(metric.dropLast(3)), x: x(column), y: originY + top + plotHeight + 18,
        anchor: "middle")
    }
    for (rank, (index, implementation, values)) in series.enumerated() {
      let color = SVG.color(index)
      let outcome = results.outcome(of: workload, on: implementation)
      let dash = outcome.isRanked ? "" : SVG.dashed
      let points = values.enumerated().compactMap { column, value in
        value.map { (x(column), y($0)) }
      }
      svg +=
        "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash) points=\""
        + points.map { "\(SVG.format($0.0)),\(SVG.format($0.1))" }.joined(separator: " ")
        + "\"/>\n"
      for point in points {
        svg +=
          "<circle cx=\"\(SVG.format(point.0))\" cy=\"\(SVG.format(point.1))\" r=\"3\" "
          + "fill=\"\(color)\"/>\n"
      }
      let legendX = BenchmarkPlot.width - right
      let legendY = originY + top + 8 + Double(rank) * 18
      svg += SVG.line(
        legendX + 16, legendY - 4, legendX + 40, legendY - 4, color: color, dash: dash)
      let label = outcome.isRanked ? implementation : "\(implementation) (\(outcome))"
      svg += SVG.text(label, x: legendX + 46, y: legendY, anchor: "start")
    }
    return svg
  }

  /// `0.1 µs`, `10 µs`, `1 ms`, `10 s`.
  static func microseconds(_ value: Double) -> String {
    let (scaled, unit) =
      value >= 1e6 ? (value / 1e6, "s") : value >= 1e3 ? (value / 1e3, "ms") : (value, "µs")
    let digits = scaled < 1 ? "%.1f" : "%.0f"
    return String(format: digits, scaled) + " " + unit
  }
}
