/// The SVG plot `--plot` writes: for each workload, in report order, a panel of its lateness
/// percentiles (``LatencyPanel``) and a bar panel for each CPU and memory figure it declares
/// (``WorkloadSummary/plotted``, drawn by ``CostPanel``). Each implementation has the same
/// color in every panel.
///
/// Plain SVG 1.1 text, no script, no external resource.
public enum BenchmarkPlot {
  /// The plot's width, in SVG user units (pixels).
  static let width = 760.0

  /// One panel: what it draws, and how high it is.
  private enum Panel {
    case latency(workload: String, axis: [String])
    case cost(workload: String, metric: String, bars: Int)

    var height: Double {
      switch self {
      case .latency: LatencyPanel.height
      case .cost(_, _, let bars): CostPanel.height(bars: bars)
      }
    }
  }

  /// The plot; `nil` when no workload printed a lateness percentile or a plotted figure.
  public static func svg(_ results: BenchmarkResults) -> String? {
    let panels = results.workloads.flatMap { summary -> [Panel] in
      let axis = LatencyPanel.axis(results, summary.name)
      let latency = axis.isEmpty ? [] : [Panel.latency(workload: summary.name, axis: axis)]
      return latency
        + summary.plotted.compactMap { metric in
          let bars = CostPanel.bars(results, summary.name, metric).count
          return bars == 0 ? nil : .cost(workload: summary.name, metric: metric, bars: bars)
        }
    }
    guard !panels.isEmpty else { return nil }
    let height = panels.map(\.height).reduce(0, +)
    var svg = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>

      """
    var y = 0.0
    for panel in panels {
      switch panel {
      case .latency(let workload, let axis):
        svg += LatencyPanel.svg(results, workload: workload, axis: axis, y: y)
      case .cost(let workload, let metric, _):
        svg += CostPanel.svg(results, workload: workload, metric: metric, y: y)
      }
      y += panel.height
    }
    return svg + "</svg>\n"
  }
}
