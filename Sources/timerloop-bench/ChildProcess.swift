import BenchmarkReport
import Foundation
import TimerLoop

/// Runs benchmark cases one after the other, each in a child process of this executable.
///
/// A process per case, as the C peers are run: every case starts from a fresh heap, so
/// `memory` is not flattered by pages an earlier case freed, no case pays for timers or
/// threads another left behind (a run loop holding a million Foundation timers, libdispatch's
/// worker threads), and a crash in one library costs one case, not the run.
enum ChildProcess {
  /// Set in a child's environment, so that the child leaves one-off notices to its parent.
  static let environmentKey = "TIMERLOOP_BENCH_CHILD"

  /// Whether this process was started by ``runAll(_:options:)``.
  static var isChild: Bool { getenv(environmentKey) != nil }

  /// Runs every case in a child process, printing progress on standard error; then, on
  /// standard output, every child's metric lines (`--raw`) or the report (``ReportText``:
  /// legend, table, verdicts, the load average read before each case and at the end), and
  /// writes the plot if `--plot` asks for one.
  ///
  /// - Returns: `false` if any child could not be started or did not exit with status 0,
  ///   or the plot could not be written.
  static func runAll(_ cases: [BenchmarkCase], options: Options) -> Bool {
    var results = BenchmarkResults(
      workloads: options.workloads.map(\.summary),
      implementations: options.implementations.map(\.summary))
    var load = MachineLoad(cores: ProcessInfo.processInfo.activeProcessorCount)
    var failures = 0
    let runStart = Deadline.now()
    for (index, benchmarkCase) in cases.enumerated() {
      // Before every case, not only at the start: the 1-minute average lags, and a burst of
      // other work during one case should still be seen.
      load.record(procLoadavg: readLoadAverage())
      let label = "[\(index + 1)/\(cases.count)] \(benchmarkCase)"
      printError("\(label) ...")
      let caseStart = Deadline.now()
      var output = Output(text: "", failure: nil)
      do {
        output = try run(options.arguments(for: benchmarkCase))
      } catch {
        output.failure = "could not start: \(error)"
      }
      if options.raw { print(output.text, terminator: "") }
      results.record(
        output: output.text, workload: benchmarkCase.workload.rawValue,
        implementation: benchmarkCase.implementation.rawValue, failure: output.failure)
      if let failure = output.failure {
        failures += 1
        printError("\(label) failed: \(failure)")
      } else {
        printError("\(label) done in \(formatSeconds(Deadline.now() - caseStart))")
      }
    }
    load.record(procLoadavg: readLoadAverage())
    if !options.raw { print(ReportText.render(results, load: load)) }
    printError("\(cases.count) cases in \(formatSeconds(Deadline.now() - runStart))")
    guard let path = options.plotPath else { return failures == 0 }
    return writePlot(results, to: path) && failures == 0
  }

  /// The text of `/proc/loadavg`; `nil` when it cannot be read (the report then says so).
  private static func readLoadAverage() -> String? {
    try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)
  }

  /// Writes the plot to `path`; says on standard error what it did.
  private static func writePlot(_ results: BenchmarkResults, to path: String) -> Bool {
    guard let svg = BenchmarkPlot.svg(results) else {
      printError(
        "--plot: no workload run printed lateness percentiles or CPU or memory figures;"
          + " \(path) not written")
      return true
    }
    do {
      try svg.write(toFile: path, atomically: true, encoding: .utf8)
      printError("plot of lateness, CPU and memory written to \(path)")
      return true
    } catch {
      printError("--plot: could not write \(path): \(error)")
      return false
    }
  }

  /// What a child printed on standard output, and why it failed if it did.
  private struct Output {
    var text: String
    var failure: String?
  }

  /// Runs this executable with `arguments`, its standard error passed through.
  private static func run(_ arguments: [String]) throws -> Output {
    let process = Process()
    // The executable itself, wherever it was started from and whatever argv[0] says.
    process.executableURL = URL(
      fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment[environmentKey] = "1"
    process.environment = environment
    let stdout = Pipe()
    process.standardOutput = stdout
    try process.run()
    // Read to the end before waiting, so that a child cannot block on a full pipe.
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let failure: String? =
      switch (process.terminationReason, process.terminationStatus) {
      case (.exit, 0): nil
      case (.exit, let status): "exit status \(status)"
      case (.uncaughtSignal, let signal): "killed by signal \(signal)"
      @unknown default: "terminated (status \(process.terminationStatus))"
      }
    return Output(text: String(decoding: data, as: UTF8.self), failure: failure)
  }

  /// `amount` as seconds with one decimal, for progress lines.
  private static func formatSeconds(_ amount: Duration) -> String {
    String(format: "%.1f s", amount.inSeconds)
  }
}
