import Testing

@testable import BenchmarkReport

/// `--plot`'s SVG: lateness percentiles, and the CPU and memory figures as bars.
@Suite struct BenchmarkPlotTests {
  @Test func thePlotDrawsEachImplementationsPercentilesInOrder() throws {
    let svg = try #require(BenchmarkPlot.svg(BenchmarkReportTests.results()))
    #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
    // One lateness panel (jitter: million printed no percentile), three lines, the failed
    // one dashed (its line and its legend).
    #expect(svg.components(separatedBy: "<polyline").count - 1 == 3)
    #expect(svg.contains(">foundation (FAIL kept_up=0)</text>"))
    #expect(
      svg.contains(">min</text>") && svg.contains(">p50</text>") && svg.contains(">p99</text>"))
    let axis = ["min", "p50", "p99"].map { svg.range(of: ">\($0)</text>")!.lowerBound }
    #expect(axis == axis.sorted())
  }

  /// million's plotted CPU figure: a bar per implementation that printed it, labelled with
  /// the figure and the table's ratio; dispatch printed none (it crashed first).
  @Test func thePlotDrawsThePlottedCPUAndMemoryFiguresAsBars() throws {
    let svg = try #require(BenchmarkPlot.svg(BenchmarkReportTests.results()))
    #expect(
      svg.contains(">million: run_cpu_ns_per_timer (ns), linear scale, lower is better</text>"))
    #expect(svg.components(separatedBy: "<rect x=").count - 1 == 2)
    #expect(svg.contains(">178.6 ns 1.00×</text>") && svg.contains(">17,546.4 ns 98.2×</text>"))
    #expect(!svg.contains("cpu_s"), "jitter does not declare cpu_s plotted here")
    // The largest figure gets the whole width, the others their share.
    let widths = svg.components(separatedBy: "<rect x=").dropFirst().map {
      Double($0.components(separatedBy: "width=\"")[1].prefix { $0 != "\"" })!
    }
    #expect(widths.count == 2 && widths[1] == CostPanel.plotWidth)
    #expect(abs(widths[0] - CostPanel.plotWidth * 178.6 / 17546.4) < 0.1)
  }

  @Test func aCaseNotRankedIsDrawnFaintAndNamed() throws {
    var results = BenchmarkResults(
      workloads: DefaultRunFixture.workloads,
      implementations: BenchmarkReportTests.implementations(["timerloop", "foundation"]))
    results.record(
      output: "timerloop.memory.bytes_per_timer=104.0 bytes\n", workload: "memory",
      implementation: "timerloop")
    results.record(
      output: "foundation.memory.bytes_per_timer=384.5 bytes\nfoundation.memory.ok=0 bool\n",
      workload: "memory", implementation: "foundation")
    let svg = try #require(BenchmarkPlot.svg(results))
    #expect(svg.contains(">memory: bytes_per_timer (bytes), linear scale, lower is better</text>"))
    #expect(svg.components(separatedBy: "fill-opacity=\"0.3\"").count - 1 == 1)
    #expect(svg.contains(">384.5 bytes (FAIL ok=0)</text>"), "no ratio: not ranked")
    #expect(svg.contains(">104.0 bytes</text>"), "one ranked case: no ratio")
  }

  @Test func aFigureOfZeroOrBelowGetsALabelButNoBar() throws {
    var results = BenchmarkResults(
      workloads: DefaultRunFixture.workloads,
      implementations: BenchmarkReportTests.implementations(["a", "b"]))
    results.record(
      output: "a.memory.bytes_per_timer=0.0 bytes\n", workload: "memory", implementation: "a")
    results.record(
      output: "b.memory.bytes_per_timer=-3.0 bytes\n", workload: "memory", implementation: "b")
    let svg = try #require(BenchmarkPlot.svg(results))
    #expect(!svg.contains("<rect x="))
    #expect(svg.contains(">0.0 bytes</text>") && svg.contains(">-3.0 bytes</text>"))
  }

  @Test func thePlotIsNilWithNothingToDrawAndEscapesText() {
    var results = BenchmarkResults(
      workloads: BenchmarkReportTests.workloads,
      implementations: BenchmarkReportTests.implementations(["a<b"]))
    results.record(output: "a<b.million.n=1 timers\n", workload: "million", implementation: "a<b")
    #expect(BenchmarkPlot.svg(results) == nil)
    results.record(output: "a<b.jitter.p99_us=5.0 us\n", workload: "jitter", implementation: "a<b")
    #expect(BenchmarkPlot.svg(results)?.contains(">a&lt;b</text>") == true)
  }

  @Test func aRealDefaultRunHasLatencyCPUAndMemoryPanels() throws {
    let svg = try #require(BenchmarkPlot.svg(DefaultRunFixture.results()))
    for title in [
      "jitter: lateness percentiles", "sleep: lateness percentiles",
      "million: run_cpu_ns_per_timer", "churn: reset_ns", "jitter: cpu_s",
      "memory: bytes_per_timer", "sleep: cpu_us_per_wakeup", "sleep: bytes_per_task",
    ] {
      #expect(svg.contains(">" + title), "\(title)")
    }
  }

  @Test(
    arguments: [
      ("min_us", "us", 0.0), ("p50_us", "us", 0.5), ("p999_us", "us", 0.999), ("max_us", "us", 1.0),
      ("mean_us", "us", nil), ("p99_us", "ns", nil), ("cpu_s", "s", nil),
    ] as [(String, String, Double?)])
  func onlyPercentilesInMicrosecondsArePlotted(metric: String, unit: String, position: Double?) {
    let line = MetricLine(parsing: "timerloop.jitter.\(metric)=1.0 \(unit)")!
    #expect(LatencyPanel.position(of: line) == position)
  }
}
