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

  /// Runs every case in a child process, printing progress on standard error, each child's
  /// metric lines on standard output as it finishes, and then the comparison table.
  ///
  /// - Returns: `false` if any child could not be started or did not exit with status 0.
  static func runAll(_ cases: [BenchmarkCase], options: Options) -> Bool {
    var table = ComparisonTable(
      workloads: options.workloads, implementations: options.implementations)
    var failures = 0
    let runStart = Deadline.now()
    for (index, benchmarkCase) in cases.enumerated() {
      let label = "[\(index + 1)/\(cases.count)] \(benchmarkCase)"
      printError("\(label) ...")
      let caseStart = Deadline.now()
      do {
        let output = try run(options.arguments(for: benchmarkCase))
        print(output.text, terminator: "")
        for line in output.text.split(separator: "\n") { table.add(line) }
        if let failure = output.failure {
          failures += 1
          printError("\(label) failed: \(failure)")
        } else {
          printError("\(label) done in \(formatSeconds(Deadline.now() - caseStart))")
        }
      } catch {
        failures += 1
        printError("\(label) could not start: \(error)")
      }
    }
    print("")
    print(table.render())
    printError("\(cases.count) cases in \(formatSeconds(Deadline.now() - runStart))")
    return failures == 0
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
  private static func formatSeconds(_ amount: TimeAmount) -> String {
    String(format: "%.1f s", amount.seconds)
  }
}
