import Testing

@testable import BenchmarkReport

/// The report `timerloop-bench` prints: parsing, outcomes, the table's marks and ratios,
/// the verdicts and the plot, on fixed metric lines.
@Suite struct BenchmarkReportTests {
  static let workloads = [
    WorkloadSummary(
      name: "million", rows: ["n", "run_cpu_ns_per_timer"], headline: "run_cpu_ns_per_timer",
      plotted: ["run_cpu_ns_per_timer"]),
    WorkloadSummary(name: "jitter", rows: ["firings", "p99_us"], headline: "p99_us"),
    WorkloadSummary(name: "scaling", rows: nil, headline: nil),
  ]

  static func implementations(_ names: [String]) -> [ImplementationSummary] {
    names.map { ImplementationSummary(name: $0, about: "\($0) in words") }
  }

  /// Foundation fired 100,046 of 3,000,000 jitter ticks (the run that prompted the flags),
  /// and Dispatch's million case crashed after printing one line.
  static func results() -> BenchmarkResults {
    var results = BenchmarkResults(
      workloads: workloads,
      implementations: implementations(["timerloop", "foundation", "dispatch"]))
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

  /// The table's lines of `workload`'s block, split into words.
  static func block(_ table: String, _ workload: String) -> [[String]] {
    let blocks = table.components(separatedBy: "\n\n")
    let block = blocks.first { $0.hasPrefix(workload + ",") || $0.hasPrefix(workload + "\n") }
    return (block ?? "").split(separator: "\n").dropFirst().map {
      $0.split(separator: " ").map(String.init)
    }
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
    // cross's drain_ms is a time like the others.
    #expect(MetricLine(parsing: "timerloop.cross.drain_ms=75.4 ms")?.isCost == true)
    #expect(MetricLine(parsing: "timerloop.million.fired=5 timers")?.isCost == false)
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
    let table = ComparisonTable.render(Self.results())
    #expect(table.hasPrefix("million, ranked by run_cpu_ns_per_timer"))
    let million = Self.block(table, "million")
    #expect(million[0] == ["metric", "timerloop", "foundation", "dispatch"])
    #expect(million[1] == ["checks", "pass", "pass", "FAIL", "killed", "by", "signal", "11"])
    #expect(million[2] == ["n", "(timers)", "1,000,000", "1,000,000", "1,000,000!"])
    // Ranked costs get a ratio to the best ranked figure; a failed case's figure is marked
    // and has none.
    #expect(million[3] == ["run_cpu_ns_per_timer", "178.6", "1.00×", "17,546.4", "98.2×", "-"])
    let jitter = Self.block(table, "jitter")
    #expect(jitter[1] == ["checks", "pass", "FAIL", "kept_up=0", "pass"])
    // Not a cost (a count): no ratio.
    #expect(jitter[2] == ["firings", "2,999,889", "100,046!", "2,999,960"])
    #expect(jitter[3] == ["p99_us", "195.2", "1.00×", "202,297.3!", "1539.9", "7.89×"])
    #expect(!table.contains("scaling"), "scaling did not run")
  }

  @Test func aWorkloadWithoutRowsShowsEveryMetricItPrinted() {
    var results = Self.results()
    results.record(
      output:
        "timerloop.scaling.churn_reset_ns_c10=90.0 ns\ntimerloop.scaling.churn_reset_ns_c100=95.0 ns\n",
      workload: "scaling", implementation: "timerloop")
    let names = Self.block(ComparisonTable.render(results), "scaling").map { $0[0] }
    #expect(names == ["metric", "checks", "churn_reset_ns_c10", "churn_reset_ns_c100"])
    #expect(
      ComparisonTable.render(results).contains("scaling\n"), "no headline: the title says none")
  }

  @Test(
    arguments: [
      ("reset_ns", "ns", "reset_ns"), ("total_s", "s", "total_s"), ("n", "timers", "n (timers)"),
      ("fired", "count", "fired"), ("ok", "bool", "ok"),
      ("bytes_per_task", "bytes", "bytes_per_task"),
      ("rss_after", "bytes", "rss_after (bytes)"),
    ] as [(String, String, String)])
  func aRowNamesItsUnitUnlessTheMetricDoes(metric: String, unit: String, label: String) {
    #expect(ComparisonTable.label(metric, unit: unit) == label)
  }

  // MARK: - One ratio convention

  /// A peer better than timerloop: every ratio, in table and verdict alike, is a figure ÷
  /// the best, so the best reads 1.00× and timerloop 4.00×.
  @Test func tableAndVerdictGiveTheSameRatioToTheBest() throws {
    var results = BenchmarkResults(
      workloads: Self.workloads, implementations: Self.implementations(["timerloop", "dispatch"]))
    results.record(
      output: "timerloop.jitter.p99_us=200.0 us\n", workload: "jitter", implementation: "timerloop")
    results.record(
      output: "dispatch.jitter.p99_us=50.0 us\n", workload: "jitter", implementation: "dispatch")
    #expect(TimesBest.ratios(results, "jitter", "p99_us") == ["timerloop": 4, "dispatch": 1])
    let row = Self.block(ComparisonTable.render(results), "jitter")[2]
    #expect(row == ["p99_us", "200.0", "4.00×", "50.0", "1.00×"])
    let verdict = try #require(Verdict.all(results).first)
    #expect(verdict.best?.implementation == "dispatch")
    #expect(verdict.ranking.map(\.ratio) == [1, 4])
    #expect(verdict.text == "jitter (p99_us, us): dispatch 50.0 1.00×, timerloop 200.0 4.00×")
    #expect(TimesBest.explanation.contains("1.00× is the best, lower is better"))
  }

  /// No ratio where it would mislead: one ranked case, a figure of 0 or below, not a cost.
  @Test(
    arguments: [
      (["a.w.x=5.0 ns"], "one ranked case"),
      (["a.w.x=0.0 ns", "b.w.x=3.0 ns"], "a figure of 0"),
      (["a.w.x=-5.2 ns", "b.w.x=0.1 ns"], "a negative figure"),
      (["a.w.x=5 count", "b.w.x=3 count"], "not a cost"),
      (["a.w.x=5.0 ns", "b.w.x=3.0 ns", "b.w.ok=0 bool"], "b failed its check"),
    ] as [([String], String)])
  func aRowGetsNoRatioWhereItWouldMislead(lines: [String], why: String) {
    var results = BenchmarkResults(
      workloads: [WorkloadSummary(name: "w", rows: nil, headline: "x")],
      implementations: Self.implementations(["a", "b"]))
    for line in lines {
      results.record(output: line, workload: "w", implementation: String(line.prefix(1)))
    }
    #expect(TimesBest.ratios(results, "w", "x").isEmpty, "\(why)")
    #expect(!ComparisonTable.render(results).contains("×"), "\(why)")
  }

  @Test(
    arguments: [
      (1.0, "1.00×"), (1.296, "1.30×"), (48.61, "48.6×"), (3099.9, "3100×"),
      (123_456.0, "123,456×"),
    ] as [(Double, String)])
  func aRatioHasAboutThreeSignificantDigits(ratio: Double, text: String) {
    #expect(TimesBest.format(ratio) == text)
  }

  // MARK: - Verdicts

  @Test func theVerdictRanksOnlyCasesThatPassed() throws {
    let verdicts = Verdict.all(Self.results())
    #expect(verdicts.map(\.workload) == ["million", "jitter"])
    #expect(
      verdicts.map(\.text) == [
        "million (run_cpu_ns_per_timer, ns): timerloop 178.6 1.00×, foundation 17,546.4 98.2×;"
          + " not ranked: dispatch (FAIL killed by signal 11)",
        "jitter (p99_us, us): timerloop 195.2 1.00×, dispatch 1539.9 7.89×;"
          + " not ranked: foundation (FAIL kept_up=0)",
      ])
  }

  @Test func aWorkloadWithNoHeadlineOrNoPassingCaseSaysSo() {
    var results = BenchmarkResults(
      workloads: Self.workloads, implementations: Self.implementations(["timerloop"]))
    results.record(
      output: "timerloop.scaling.churn_reset_ns_c10=90.0 ns\n", workload: "scaling",
      implementation: "timerloop")
    results.record(
      output: "timerloop.million.ok=0 bool\n", workload: "million", implementation: "timerloop")
    results.record(
      output: "timerloop.jitter.p99_us=195.2 us\n", workload: "jitter", implementation: "timerloop")
    #expect(
      Verdict.all(results).map(\.text) == [
        "million: run_cpu_ns_per_timer: no implementation passed its checks;"
          + " not ranked: timerloop (FAIL ok=0)",
        "jitter (p99_us, us): timerloop 195.2 (the only case ranked)",
        "scaling: nothing to rank (no headline metric)",
      ])
  }
}
