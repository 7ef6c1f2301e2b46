import Testing

@testable import BenchmarkReport

/// The load lines at the end of the report, and when they warn that the run was noisy.
@Suite struct MachineLoadTests {
  static func load(cores: Int, _ readings: [String?]) -> MachineLoad {
    var load = MachineLoad(cores: cores)
    for reading in readings { load.record(procLoadavg: reading) }
    return load
  }

  @Test(
    arguments: [
      ("0.52 0.58 0.59 1/467 12345\n", 0.52), ("12.00 1 1 1/1 1", 12), ("", nil), ("busy", nil),
      ("-1.0 0 0 1/1 1", nil), ("nan 0 0", nil), ("inf 0 0", nil),
    ] as [(String, Double?)])
  func theOneMinuteAverageIsTheFirstField(text: String, value: Double?) {
    #expect(MachineLoad.oneMinute(procLoadavg: text) == value)
  }

  @Test func aRunThatStayedAtOrBelowTheCoreCountIsQuiet() {
    let load = Self.load(cores: 2, ["0.41 0 0 1/1 1", "2.00 0 0 1/1 1", "1.37 0 0 1/1 1"])
    #expect(!load.isBusy)
    #expect(
      load.lines == [
        "Load average (1 min): 0.41 at the start, 1.37 at the end, 2.00 at most, on 2 cores: quiet."
      ])
  }

  /// A burst between the first and last readings is enough: the peak is what counts.
  @Test func aLoadAboveTheCoreCountAtAnyReadingWarns() {
    let load = Self.load(cores: 2, ["0.41 0 0 1/1 1", "2.01 0 0 1/1 1", "1.37 0 0 1/1 1"])
    #expect(load.isBusy)
    #expect(load.lines.count == 2)
    #expect(load.lines[0].hasSuffix("2.01 at most, on 2 cores: BUSY."))
    #expect(load.lines[1].hasPrefix("WARNING: the load average rose above the number of cores"))
  }

  @Test func readingsThatFailOrDoNotParseAreLeftOutAndNoneAtAllWarns() {
    #expect(Self.load(cores: 4, [nil, "3.5 0 0 1/1 1", "garbage"]).readings == [3.5])
    let unread = Self.load(cores: 4, [nil, "garbage"])
    #expect(unread.isBusy, "nothing says it was quiet")
    #expect(unread.lines[0] == "Load average: not read (/proc/loadavg could not be read).")
    #expect(unread.lines[1].hasPrefix("WARNING: "))
  }

  @Test func aCoreCountBelowOneCountsAsOne() {
    let load = Self.load(cores: 0, ["1.00 0 0 1/1 1"])
    #expect(load.cores == 1 && !load.isBusy)
    #expect(load.lines[0].hasSuffix("on 1 core: quiet."))
  }
}
