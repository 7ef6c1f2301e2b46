import Testing

@testable import BenchmarkReport

/// The report `timerloop-bench` prints: parsing, outcomes, the table's marks and ratios,
/// the verdicts and the plot, on fixed metric lines.
@Suite struct BenchmarkReportTests {
  static let workloads = [
    WorkloadSummary(
      name: "million", rows: ["n", "run_cpu_ns_per_timer"], headline: "run_cpu_ns_per_timer"),
    WorkloadSummary(name: "jitter", rows: ["firings", "p99_us"], headline: "p99_us"),
    WorkloadSummary(name: "scaling", rows: nil, headline: nil),
  ]

  /// Foundation fired 100,046 of 3,000,000 jitter ticks (the run that prompted the flags),
  /// and Dispatch's million case crashed after printing one line.
  static func results() -> BenchmarkResults {
    var results = BenchmarkResults(
      workloads: workloads, implementations: ["timerloop", "foundation", "dispatch"],
      reference: "timerloop")
    results.record(
      output: """
        timerloop.million.n=1000000 timers
        timerloop.million.run_cpu_ns_per_timer=178.6 ns
        timerloop.million.ok=1 bool
        """, workload: "million", implementation: "timerloop")
    results.record(
      output: """
        foundation.million.n=1000000 timers
        foundation.million.run_cpu_ns_per_timer=17546.4 ns
        foundation.million.ok=1 bool
        """, workload: "million", implementation: "foundation")
    results.record(
      output: "dispatch.million.n=1000000 timers\n", workload: "million",
      implementation: "dispatch", failure: "killed by signal 11")
    for (implementation, firings, p99, keptUp) in [
      ("timerloop", 2_999_889, "195.2", 1), ("foundation", 100_046, "202297.3", 0),
      ("dispatch", 2_999_960, "1539.9", 1),
    ] {
      results.record(
        output: """
          \(implementation).jitter.firings=\(firings) count
          \(implementation).jitter.min_us=0.2 us
          \(implementation).jitter.p50_us=65.9 us
          \(implementation).jitter.p99_us=\(p99) us
          \(implementation).jitter.cpu_s=1.055 s
          \(implementation).jitter.kept_up=\(keptUp) bool
          \(implementation).jitter.never_early=1 bool
          """, workload: "jitter", implementation: implementation)
    }
    return results
  }

  @Test func aMetricLineSplitsIntoItsParts() throws {
    let line = try #require(
      MetricLine(parsing: "libevent-ct.scaling.churn_reset_ns_c10000=58.2 ns"))
    #expect(line.implementation == "libevent-ct")
    #expect(line.workload == "scaling")
    #expect(line.metric == "churn_reset_ns_c10000")
    #expect(line.value == "58.2" && line.number == 58.2 && line.unit == "ns")
    #expect(line.isCost && !line.isCheck)
    #expect(MetricLine(parsing: "timerloop.million.ok=1 bool")?.isCheck == true)
  }

  @Test(arguments: [
    "", "metric  unit  timerloop", "libuv.version=1.44.2 text", "timerloop..x=1 ns",
    "timerloop.million.n=1000000", "  million: best timerloop (run_cpu_ns_per_timer 1 ns)",
  ])
  func aLineThatIsNoMetricIsIgnored(line: String) {
    #expect(MetricLine(parsing: line) == nil)
  }

  @Test func eachCaseEndsPassedFlaggedFailedOrNotRun() {
    var results = Self.results()
    #expect(results.outcome(of: "million", on: "timerloop") == .passed)
    #expect(results.outcome(of: "jitter", on: "foundation") == .failedChecks(["kept_up"]))
    #expect(results.outcome(of: "million", on: "dispatch") == .failed("killed by signal 11"))
    #expect(results.outcome(of: "scaling", on: "timerloop") == .notRun)
    results.record(output: "", workload: "scaling", implementation: "timerloop")
    #expect(results.outcome(of: "scaling", on: "timerloop") == .failed("no metrics printed"))
  }

  @Test func theTableMarksFailedCasesAndGivesThemNoRatio() {
    let table = ComparisonTable.render(Self.results()).split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }
    #expect(
      table[0] == [
        "metric", "unit", "timerloop", "foundation", "dispatch", "foundation÷timerloop",
        "dispatch÷timerloop",
      ])
    let row = { (name: String) in table.first { $0.first == name } ?? [] }
    #expect(
      row("million.checks") == [
        "million.checks", "pass", "pass", "FAIL", "killed", "by", "signal", "11",
      ])
    // Ranked costs get a ratio; a failed case's figure is marked and has none.
    #expect(
      row("million.run_cpu_ns_per_timer") == [
        "million.run_cpu_ns_per_timer", "ns", "178.6", "17546.4", "-", "98.2x",
      ])
    #expect(row("million.n") == ["million.n", "timers", "1000000", "1000000", "1000000!"])
    #expect(row("jitter.checks") == ["jitter.checks", "pass", "FAIL", "kept_up=0", "pass"])
    #expect(
      row("jitter.p99_us") == ["jitter.p99_us", "us", "195.2", "202297.3!", "1539.9", "7.89x"])
    // Not a cost (a count): no ratio.
    #expect(row("jitter.firings") == ["jitter.firings", "count", "2999889", "100046!", "2999960"])
    #expect(!table.contains { $0.first?.hasPrefix("scaling") == true }, "scaling did not run")
    #expect(ComparisonTable.legend(Self.results()).contains("<impl>÷timerloop"))
  }

  @Test func aWorkloadWithoutRowsShowsEveryMetricItPrinted() {
    var results = Self.results()
    results.record(
      output:
        "timerloop.scaling.churn_reset_ns_c10=90.0 ns\ntimerloop.scaling.churn_reset_ns_c100=95.0 ns\n",
      workload: "scaling", implementation: "timerloop")
    let names = ComparisonTable.render(results).split(separator: "\n").compactMap {
      $0.split(separator: " ").first.map(String.init)
    }.filter { $0.hasPrefix("scaling") }
    #expect(
      names == ["scaling.checks", "scaling.churn_reset_ns_c10", "scaling.churn_reset_ns_c100"])
  }

  @Test func theVerdictRanksOnlyCasesThatPassed() throws {
    let verdicts = Verdict.all(Self.results())
    #expect(verdicts.map(\.workload) == ["million", "jitter"])
    let million = verdicts[0]
    #expect(million.best?.implementation == "timerloop")
    #expect(million.referenceRatio == 1)
    #expect(million.unranked.map(\.implementation) == ["dispatch"])
    let jitter = verdicts[1]
    #expect(jitter.best?.implementation == "timerloop")
    #expect(jitter.unranked.map(\.outcome) == [.failedChecks(["kept_up"])])
    #expect(
      jitter.text(reference: "timerloop")
        == "jitter: best timerloop (p99_us 195.2 us); timerloop÷best 1.00x; "
        + "not ranked: foundation (FAIL kept_up=0)")
  }

  @Test func theVerdictGivesTheReferencesRatioToABetterPeer() throws {
    var results = BenchmarkResults(
      workloads: Self.workloads, implementations: ["timerloop", "dispatch"], reference: "timerloop")
    results.record(
      output: "timerloop.jitter.p99_us=200.0 us\n", workload: "jitter", implementation: "timerloop")
    results.record(
      output: "dispatch.jitter.p99_us=50.0 us\n", workload: "jitter", implementation: "dispatch")
    let verdict = try #require(Verdict.all(results).first)
    #expect(verdict.best?.implementation == "dispatch")
    #expect(verdict.referenceRatio == 4)
    #expect(
      verdict.text(reference: "timerloop")
        == "jitter: best dispatch (p99_us 50.0 us); timerloop÷best 4.00x")
  }

  @Test func aWorkloadWithNoHeadlineOrNoPassingCaseSaysSo() {
    var results = BenchmarkResults(
      workloads: Self.workloads, implementations: ["timerloop"], reference: "timerloop")
    results.record(
      output: "timerloop.scaling.churn_reset_ns_c10=90.0 ns\n", workload: "scaling",
      implementation: "timerloop")
    results.record(
      output: "timerloop.million.ok=0 bool\n", workload: "million", implementation: "timerloop")
    #expect(
      Verdict.all(results).map { $0.text(reference: "timerloop") } == [
        "million: no implementation passed its checks; not ranked: timerloop (FAIL ok=0)",
        "scaling: nothing to rank (no headline metric)",
      ])
    #expect(!ComparisonTable.legend(results).contains("÷"), "no ratio columns to explain")
  }

  @Test func thePlotDrawsEachImplementationsPercentilesInOrder() throws {
    let svg = try #require(LatencyPlot.svg(Self.results()))
    #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
    // One panel (jitter: million printed no percentile), three lines, the failed one dashed.
    #expect(svg.components(separatedBy: "<polyline").count - 1 == 3)
    #expect(svg.components(separatedBy: "stroke-dasharray").count - 1 == 2)  // its line and legend
    #expect(svg.contains(">foundation (FAIL kept_up=0)</text>"))
    #expect(
      svg.contains(">min</text>") && svg.contains(">p50</text>") && svg.contains(">p99</text>"))
    #expect(!svg.contains("cpu_s") && !svg.contains("million"))
    let axis = ["min", "p50", "p99"].map { svg.range(of: ">\($0)</text>")!.lowerBound }
    #expect(axis == axis.sorted())
  }

  @Test func thePlotIsNilWithoutPercentilesAndEscapesText() {
    var results = BenchmarkResults(
      workloads: Self.workloads, implementations: ["a<b"], reference: "a<b")
    results.record(output: "a<b.million.n=1 timers\n", workload: "million", implementation: "a<b")
    #expect(LatencyPlot.svg(results) == nil)
    results.record(output: "a<b.jitter.p99_us=5.0 us\n", workload: "jitter", implementation: "a<b")
    #expect(LatencyPlot.svg(results)?.contains(">a&lt;b</text>") == true)
  }

  @Test(
    arguments: [
      ("min_us", "us", 0.0), ("p50_us", "us", 0.5), ("p999_us", "us", 0.999), ("max_us", "us", 1.0),
      ("mean_us", "us", nil), ("p99_us", "ns", nil), ("cpu_s", "s", nil),
    ] as [(String, String, Double?)])
  func onlyPercentilesInMicrosecondsArePlotted(metric: String, unit: String, position: Double?) {
    let line = MetricLine(parsing: "timerloop.jitter.\(metric)=1.0 \(unit)")!
    #expect(LatencyPlot.position(of: line) == position)
  }
}
