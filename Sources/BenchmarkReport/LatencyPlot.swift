import Foundation

/// An SVG plot of lateness percentiles: one panel per workload that printed any, one line
/// per implementation across `min_us`, `p50_us`, `p99_us`, `p999_us`, `max_us` (every
/// metric named `min_us`, `max_us` or `p<digits>_us` in µs), on a logarithmic scale.
/// A case that failed a check or did not finish is drawn dashed and named as such.
///
/// Plain SVG 1.1 text, no script, no external resource.
public enum LatencyPlot {
  static let width = 760.0
  static let panelHeight = 300.0
  static let left = 70.0, right = 230.0, top = 40.0, bottom = 40.0
  static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

  /// Where a metric sits on the plot's axis: 0 for `min_us`, 0.5 for `p50_us`, 0.999 for
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

  /// The plot; `nil` when no workload printed a lateness percentile.
  public static func svg(_ results: BenchmarkResults) -> String? {
    let panels = results.workloads.compactMap { summary -> (workload: String, axis: [String])? in
      var positions: [String: Double] = [:]
      for implementation in results.implementations {
        for line in results.lines(summary.name, implementation) {
          if let position = position(of: line) { positions[line.metric] = position }
        }
      }
      guard !positions.isEmpty else { return nil }
      return (summary.name, positions.keys.sorted { positions[$0]! < positions[$1]! })
    }
    guard !panels.isEmpty else { return nil }
    let height = panelHeight * Double(panels.count)
    var svg = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>

      """
    for (index, panel) in panels.enumerated() {
      svg += self.panel(
        results, workload: panel.workload, axis: panel.axis, y: Double(index) * panelHeight)
    }
    return svg + "</svg>\n"
  }

  private static func panel(
    _ results: BenchmarkResults, workload: String, axis: [String], y originY: Double
  ) -> String {
    let plotWidth = width - left - right
    let plotHeight = panelHeight - top - bottom
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
    var svg = text(
      "\(workload): lateness percentiles, log scale (0 or below: on the bottom line)",
      x: left, y: originY + 22, anchor: "start", bold: true)
    for decade in stride(from: low, through: high, by: 1) {
      let lineY = y(pow(10, decade))
      svg += line(left, lineY, left + plotWidth, lineY, color: "#dddddd")
      svg += text(microseconds(pow(10, decade)), x: left - 6, y: lineY + 4, anchor: "end")
    }
    for (column, metric) in axis.enumerated() {
      svg += line(x(column), originY + top, x(column), originY + top + plotHeight, color: "#eeeeee")
      svg += text(
        String(metric.dropLast(3)), x: x(column), y: originY + top + plotHeight + 18,
        anchor: "middle")
    }
    for (rank, (index, implementation, values)) in series.enumerated() {
      let color = colors[index % colors.count]
      let outcome = results.outcome(of: workload, on: implementation)
      let dash = outcome.isRanked ? "" : " stroke-dasharray=\"6 4\""
      let points = values.enumerated().compactMap { column, value in
        value.map { (x(column), y($0)) }
      }
      svg +=
        "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash) points=\""
        + points.map { "\(format($0.0)),\(format($0.1))" }.joined(separator: " ") + "\"/>\n"
      for point in points {
        svg +=
          "<circle cx=\"\(format(point.0))\" cy=\"\(format(point.1))\" r=\"3\" fill=\"\(color)\"/>\n"
      }
      let legendY = originY + top + 8 + Double(rank) * 18
      svg += line(
        width - right + 16, legendY - 4, width - right + 40, legendY - 4, color: color, dash: dash)
      let label = outcome.isRanked ? implementation : "\(implementation) (\(outcome))"
      svg += text(label, x: width - right + 46, y: legendY, anchor: "start")
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

  private static func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, dash: String = ""
  ) -> String {
    "<line x1=\"\(format(x1))\" y1=\"\(format(y1))\" x2=\"\(format(x2))\" y2=\"\(format(y2))\" "
      + "stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
  }

  private static func text(
    _ content: String, x: Double, y: Double, anchor: String, bold: Bool = false
  ) -> String {
    let weight = bold ? " font-weight=\"bold\"" : ""
    return "<text x=\"\(format(x))\" y=\"\(format(y))\" text-anchor=\"\(anchor)\"\(weight)>"
      + escaped(content) + "</text>\n"
  }

  /// `content` with the characters XML gives a meaning replaced by entities.
  static func escaped(_ content: String) -> String {
    content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }

  private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
