import Testing

@testable import BenchmarkReport

/// The report fits a 100-column terminal: the table, the legend, the verdicts and the load
/// lines, for the default run's implementations, for `Benchmarks/compare.sh`'s, and with more
/// implementations than either.
@Suite struct ReportLayoutTests {
  /// Every line of `text` that is wider than ``TextLayout/width``.
  static func tooWide(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { $0.count > TextLayout.width }
  }

  static func busyLoad() -> MachineLoad {
    var load = MachineLoad(cores: 2)
    load.record(procLoadavg: "2.12 2.60 1.46 3/400 1234")
    load.record(procLoadavg: "6.09 3.73 1.97 3/400 1234")
    return load
  }

  /// `names` on the default run's workloads, each printing every metric the default run
  /// printed with wide figures: a different order of magnitude per implementation, so that
  /// ratios run to six digits, and an integer part of up to nine digits.
  static func wideResults(_ names: [String]) -> BenchmarkResults {
    let lines = DefaultRunFixture.output.split(separator: "\n").compactMap {
      MetricLine(parsing: $0)
    }.filter { $0.implementation == "timerloop" }
    var results = BenchmarkResults(
      workloads: DefaultRunFixture.workloads,
      implementations: names.map {
        ImplementationSummary(
          name: $0,
          about: "the \($0) implementation, described at length: the library, its API, the"
            + " thread or executor its timers run on and how the benchmark arms them there")
      })
    for (index, name) in names.enumerated() {
      let output = lines.map { line in
        let value = line.isCheck ? line.value : "\(123_456.7 * Double(index * index + 1))"
        return "\(name).\(line.workload).\(line.metric)=\(value) \(line.unit)"
      }.joined(separator: "\n")
      for workload in DefaultRunFixture.workloads {
        results.record(output: output, workload: workload.name, implementation: name)
      }
    }
    return results
  }

  static let defaultRun = [
    "timerloop", "timerloop-handler", "foundation", "dispatch", "continuous",
  ]
  static let compareScript = [
    "timerloop", "timerloop-handler", "libuv", "libev", "libevent", "libevent-ct",
    "libevent-precise", "tokio",
  ]
  /// The default run's with more than it has (BlockTimers' countdowns, say).
  static let more = defaultRun + ["countdown", "debouncer", "libdispatch-main", "tokio"]

  /// Five implementations (the default run before BlockTimers' two were added) fit side by
  /// side.
  @Test func theReportOfARealDefaultRunFitsOneHundredColumnsUnsplit() {
    let report = ReportText.render(DefaultRunFixture.results(), load: Self.busyLoad())
    #expect(Self.tooWide(report) == [])
    #expect(!report.contains("(continued)"), "each workload's block fits in one piece")
  }

  @Test(arguments: [defaultRun, compareScript, more])
  func everyLineFitsOneHundredColumns(names: [String]) {
    let results = Self.wideResults(names)
    let report = ReportText.render(results, load: Self.busyLoad())
    #expect(Self.tooWide(report) == [])
    // Split blocks still show every implementation once per workload, in column order.
    let table = ComparisonTable.render(results)
    for workload in DefaultRunFixture.workloads {
      let headers = table.components(separatedBy: "\n\n").filter {
        $0.hasPrefix(workload.name + ",") || $0.hasPrefix(workload.name + " (continued)")
      }.flatMap { block in
        block.split(separator: "\n")[1].split(separator: " ").dropFirst().map(String.init)
      }
      #expect(headers == names, "\(workload.name)")
    }
  }

  @Test func columnsAreCutIntoRunsThatFitInOrder() {
    #expect(ComparisonTable.groups(of: [10, 10, 10], fitting: 36) == [[0, 1, 2]])
    #expect(ComparisonTable.groups(of: [10, 10, 10], fitting: 35) == [[0, 1], [2]])
    #expect(ComparisonTable.groups(of: [50, 10], fitting: 30) == [[0], [1]], "too wide alone")
    // Greedy would leave the last column alone ([0, 1, 2], [3]); two runs of two fit as well.
    #expect(ComparisonTable.groups(of: [10, 10, 10, 10], fitting: 36) == [[0, 1], [2, 3]])
    // Three runs of two would not fit the first two columns: greedy's cut stays.
    #expect(
      ComparisonTable.groups(of: [20, 20, 5, 5, 5, 5], fitting: 44) == [[0, 1], [2, 3, 4, 5]])
    #expect(ComparisonTable.groups(of: [], fitting: 30) == [])
  }

  @Test func theLegendNamesEachImplementationThatRanOnceInWords() {
    var results = BenchmarkResults(
      workloads: BenchmarkReportTests.workloads,
      implementations: [
        ImplementationSummary(
          name: "continuous", about: "Task.sleep on ContinuousClock, tasks on the default executor"),
        ImplementationSummary(name: "dispatch", about: "DispatchSourceTimer on a serial queue"),
      ])
    results.record(
      output: "continuous.jitter.p99_us=5.0 us\n", workload: "jitter",
      implementation: "continuous")
    let report = ReportText.render(results, load: Self.busyLoad())
    #expect(
      report.contains(
        "Implementations:\n  continuous  Task.sleep on ContinuousClock, tasks on the default executor\n"
      ))
    #expect(report.components(separatedBy: "Task.sleep on").count == 2, "once")
    #expect(!report.contains("DispatchSourceTimer"), "dispatch ran nothing")
    #expect(report.contains(TimesBest.explanation.prefix(40)))
  }

  @Test func aLongDescriptionWrapsUnderItself() {
    let report = ReportText.render(Self.wideResults(["libevent-precise"]), load: Self.busyLoad())
    let legend = report.split(separator: "\n").prefix(3).map(String.init)
    #expect(legend[1].hasPrefix("  libevent-precise  the libevent-precise implementation"))
    #expect(legend[2].hasPrefix(String(repeating: " ", count: 20)))
    #expect(legend[2].dropFirst(20).first?.isLetter == true, "under the description's first word")
  }

  @Test func prosesWrapsAtSpacesAndAWordTooLongKeepsALineOfItsOwn() {
    #expect(
      TextLayout.wrap("aaa bbb ccc", first: "> ", rest: "  ", width: 8) == [
        "> aaa", "  bbb", "  ccc",
      ])
    #expect(TextLayout.wrap("a bbbbbbbbbbbb c", width: 5) == ["a", "bbbbbbbbbbbb", "c"])
    #expect(TextLayout.wrap("", width: 5) == [])
  }

  @Test(
    arguments: [
      ("1000000", "1,000,000"), ("21042.1", "21,042.1"), ("2388.7", "2388.7"),
      ("-12345", "-12,345"),
      ("0.497", "0.497"), ("-", "-"), ("1e9", "1e9"), ("12345abc", "12345abc"), ("", ""),
    ] as [(String, String)])
  func figuresOfFiveDigitsOrMoreAreGrouped(value: String, grouped: String) {
    #expect(TextLayout.grouped(value) == grouped)
  }
}
