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
  /// standard output, every child's metric lines (`--raw`) or the comparison table and the
  /// verdicts, and writes the plot if `--plot` asks for one.
  ///
  /// - Returns: `false` if any child could not be started or did not exit with status 0,
  ///   or the plot could not be written.
  static func runAll(_ cases: [BenchmarkCase], options: Options) -> Bool {
    var results = BenchmarkResults(
      workloads: options.workloads.map(\.summary),
      implementations: options.implementations.map(\.rawValue),
      reference: Implementation.timerloop.rawValue)
    var failures = 0
    let runStart = Deadline.now()
    for (index, benchmarkCase) in cases.enumerated() {
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
    if !options.raw { print(report(results)) }
    printError("\(cases.count) cases in \(formatSeconds(Deadline.now() - runStart))")
    guard let path = options.plotPath else { return failures == 0 }
    return writePlot(results, to: path) && failures == 0
  }

  /// The table, its legend and the verdicts.
  private static func report(_ results: BenchmarkResults) -> String {
    let verdicts = Verdict.all(results).map { "  " + $0.text(reference: results.reference) }
    return ComparisonTable.render(results) + "\n\n"
      + ComparisonTable.legend(results) + "\n\n"
      + "Verdicts (each workload's headline metric, lower is better; FAIL cases not ranked):\n"
      + verdicts.joined(separator: "\n")
  }

  /// Writes the lateness plot to `path`; says on standard error what it did.
  private static func writePlot(_ results: BenchmarkResults, to path: String) -> Bool {
    guard let svg = LatencyPlot.svg(results) else {
      printError("--plot: no workload run printed lateness percentiles; \(path) not written")
      return true
    }
    do {
      try svg.write(toFile: path, atomically: true, encoding: .utf8)
      printError("lateness plot written to \(path)")
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
