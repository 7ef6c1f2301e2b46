import TimerLoop

/// The command line: `timerloop-bench [WORKLOAD ...] [--impl IMPL] [--timers N] [--seconds S]
/// [--leeway L] [--group] [--raw] [--plot FILE]`.
struct Options {
  /// Above this, the largest workloads would need more memory than a typical machine has.
  static let maximumTimers = 20_000_000
  /// A bound on `--seconds`, which also bounds jitter's sample buffer.
  static let maximumSeconds = 3_600.0

  /// The workloads to run, in command-line order; ``Workload/defaults`` by default.
  var workloads = Workload.defaults
  /// The implementations to run each workload on, in command-line order; all by default.
  var implementations = Implementation.allCases
  /// `--timers`: the workload's main count, replacing its default.
  var timers: Int?
  /// `--seconds`: how long `jitter` runs, replacing its default.
  var seconds: Double?
  /// `--leeway L`: the leeway of timerloop's loop in `jitter` (L in microseconds), instead of
  /// `EpollEventLoop.defaultLeeway`.
  var leeway: Duration?
  /// The largest `--leeway`, in microseconds: `EpollEventLoop` clamps its leeway to 1 s.
  static let maximumLeewayMicroseconds = 1_000_000
  /// `--group`: with `sleep`, run `sleep-group` and `sleep-nested` right after it.
  var group = false
  /// `--raw`: print the metric lines instead of the report.
  var raw = false
  /// `--metrics-delegate`: TimerLoop's loops get ``PassCounter/shared`` as their metrics delegate.
  var metricsDelegate = false
  static let metricsDelegateFlag = "--metrics-delegate"
  /// `--plot FILE`: where to write the SVG plot of lateness percentiles, CPU and memory.
  var plotPath: String?
  /// `-h` or `--help`: print ``usage`` and run nothing.
  var showHelp = false

  static let usage = """
    usage: timerloop-bench [WORKLOAD ...] [--impl IMPL[,IMPL ...]] [--timers N] [--seconds S]
                           [--leeway L] [--group] [--raw] [--plot FILE]

    Runs the timer workloads of Benchmarks/README.md on TimerLoop's EpollEventLoop, Foundation.Timer
    and DispatchSourceTimer (sleep: against Task.sleep) and prints a report that fits 100 columns:
    what each implementation is, a table per workload (one column per implementation; each time
    or size followed by its ratio to the best figure of its row, 1.00× being the best), one
    verdict per workload ranking the implementations by its headline metric, and the machine's
    load average, with a warning when it rose above the number of cores. A case that failed a
    check (a metric printed as bool, e.g. million's ok, jitter's kept_up) or did not finish is
    marked FAIL and ! in the table and left out of the ratios and verdicts.

    workloads (default: the first five):
      million   N one-shot timers due 1 + i/1000 ms; checks each fires once, in order (N = 1,000,000)
      churn     C timers 30 s ahead, 2,000,000 resets (Foundation: 20,000), cancel all (C = 100,000)
      jitter    K repeating 10 ms timers on a 10 ms/K phase grid; lateness and CPU (K = 10,000, 3 s)
      memory    resident bytes per timer for N timers due in 1 hour (N = 1,000,000)
      sleep     T tasks each sleep a random 1-1,000 ms five times: the loop's sleep, tasks on the
                loop (timerloop) or on the default executor (timerloop-pool), vs Task.sleep;
                bytes per task, CPU per wake-up, lateness (T = 10,000)
      sleep-group
                sleep with the T tasks as the children of one task group (see --group)
      sleep-nested
                sleep with the T tasks as the children of nested groups of at most 256
      scaling   churn and million at N/1000, N/100, N/10 and N timers, TimerLoop only
                (N = 10,000,000; under a minute, about 2 GB)
      soak      C live timers churned for --seconds, resident set sampled every second,
                TimerLoop only (C = 1,000,000, 60 s)
      cross     N timers 1 hour ahead scheduled, then cancelled, from a thread other than the
                loop's: ns per schedule+cancel pair, bytes left after; TimerLoop and
                BlockTimer only (N = 1,000,000)

    options:
      --impl IMPL    timerloop, timerloop-handler (TimerLoop's handler timers: million, churn,
                     memory and cross), timerloop-pool (the loop's sleep, tasks on the
                     default executor: the sleep workloads only), blocktimer (BlockTimers'
                     BlockTimer: million, churn, jitter, memory and cross), weak-target (its
                     WeakTargetTimer: million, churn and memory), foundation, dispatch or
                     continuous (Task.sleep: the sleep workloads only);
                     repeat it or separate with commas (default: all)
      --timers N     the workload's main count: N (million, memory, scaling, cross), C (churn),
                     K (jitter), T (sleep)
      --seconds S    how long jitter (default 3) or soak (default 60) runs, in seconds
      --leeway L     the leeway of timerloop's (and blocktimer's) loop in jitter, in whole microseconds from 0 to
                     1,000,000 (default: the loop's, \(EpollEventLoop.defaultLeeway.inNanoseconds / 1_000)); needs the jitter workload;
                     other workloads and implementations ignore it
      --group        with sleep: run sleep-group and sleep-nested too, reported beside it
                     (the same tasks as one task group's children, and as nested groups')
      --raw          print only the metric lines, <impl>.<workload>.<metric>=<value> <unit>,
                     the format of the C peers in Benchmarks/peers (for scripts)
      --plot FILE    also write an SVG plot to FILE: each workload's lateness percentiles
                     (min_us, p50_us, p99_us, p999_us, max_us) per implementation, and its
                     CPU and memory figures as bars (e.g. million's run_cpu_ns_per_timer,
                     memory's bytes_per_timer)
      --metrics-delegate
                     give timerloop's loops a metrics delegate that counts passes and
                     timers, to compare with a run without one (what the hook costs)
      -h, --help     print this text

    Each workload/implementation pair runs in a child process of its own (a fresh heap and
    resident set, nothing left over from the previous pair); a single pair with --raw and no
    --plot runs in this process. Progress goes to standard error.

    """

  /// Parses `arguments` (without the program name).
  /// - Throws: ``UsageError`` describing the first argument that does not parse.
  init(arguments: [String]) throws(UsageError) {
    var remaining = arguments[...]
    var workloads: [Workload] = []
    var implementations: [Implementation] = []
    while let argument = remaining.popFirst() {
      guard argument.hasPrefix("-") else {
        guard let workload = Workload(rawValue: argument) else {
          throw UsageError("unknown workload '\(argument)' (expected \(Self.names(Workload.self)))")
        }
        if !workloads.contains(workload) { workloads.append(workload) }
        continue
      }
      // Both `--timers 1000` and `--timers=1000`.
      let parts = argument.split(separator: "=", maxSplits: 1)
      let name = String(parts[0])
      func value() throws(UsageError) -> String {
        if parts.count == 2 { return String(parts[1]) }
        guard let next = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
        return next
      }
      switch name {
      case "-h", "--help":
        showHelp = true
      case "--raw":
        raw = true
      case "--group":
        group = true
      case Self.metricsDelegateFlag:
        metricsDelegate = true
      case "--plot":
        plotPath = try value()
      case "--impl":
        for label in try value().split(separator: ",") {
          guard let implementation = Implementation(rawValue: String(label)) else {
            throw UsageError(
              "unknown implementation '\(label)' (expected \(Self.names(Implementation.self)))")
          }
          if !implementations.contains(implementation) { implementations.append(implementation) }
        }
      case "--timers":
        let text = try value()
        guard let timers = Int(text), (1...Self.maximumTimers).contains(timers) else {
          throw UsageError(
            "--timers needs a whole number from 1 to \(Self.maximumTimers), not '\(text)'")
        }
        self.timers = timers
      case "--leeway":
        let text = try value()
        guard let microseconds = Int(text),
          (0...Self.maximumLeewayMicroseconds).contains(microseconds)
        else {
          throw UsageError(
            "--leeway needs a whole number of microseconds from 0 to \(Self.maximumLeewayMicroseconds), not '\(text)'"
          )
        }
        leeway = .microseconds(Int64(microseconds))
      case "--seconds":
        let text = try value()
        guard let seconds = Double(text), seconds > 0, seconds <= Self.maximumSeconds else {
          throw UsageError(
            "--seconds needs a number of seconds above 0 and up to \(Int(Self.maximumSeconds)), not '\(text)'"
          )
        }
        self.seconds = seconds
      default:
        throw UsageError("unknown option '\(argument)'")
      }
    }
    if group {
      guard let sleep = workloads.firstIndex(of: .sleep) else {
        throw UsageError("--group runs sleep's tasks as a task group's children: select sleep")
      }
      for (offset, shape) in [Workload.sleepGroup, .sleepNested].enumerated()
      where !workloads.contains(shape) {
        workloads.insert(shape, at: sleep + 1 + offset)
      }
    }
    if !workloads.isEmpty { self.workloads = workloads }
    if !implementations.isEmpty { self.implementations = implementations }
    if leeway != nil && !self.workloads.contains(.jitter) {
      throw UsageError("--leeway sets the loop's leeway in jitter, which is not selected")
    }
    if cases.isEmpty {
      throw UsageError(
        "no selected workload runs on the selected implementations (scaling, soak and cross:"
          + " TimerLoop only; sleep and its group shapes: timerloop, timerloop-pool and continuous"
          + " only)")
    }
  }

  /// Every selected workload on every selected implementation it runs on, workload by
  /// workload, so that the implementations run back to back under similar machine load.
  var cases: [BenchmarkCase] {
    workloads.flatMap { workload in
      implementations.filter(workload.runs(on:)).map {
        BenchmarkCase(workload: workload, implementation: $0)
      }
    }
  }

  /// Whether the one selected case runs in this process, printing its metric lines: only
  /// when nothing else is wanted of them (a child process, a script).
  var runsInProcess: Bool { cases.count == 1 && raw && plotPath == nil }

  /// The arguments that make a child process run `benchmarkCase` with these options' sizes
  /// and print its metric lines.
  func arguments(for benchmarkCase: BenchmarkCase) -> [String] {
    var arguments = [
      benchmarkCase.workload.rawValue, "--impl", benchmarkCase.implementation.rawValue, "--raw",
    ]
    if metricsDelegate { arguments.append(Self.metricsDelegateFlag) }
    if let timers { arguments += ["--timers", String(timers)] }
    if let seconds { arguments += ["--seconds", String(seconds)] }
    if let leeway, benchmarkCase.workload == .jitter {
      arguments += ["--leeway", String(leeway.inNanoseconds / 1_000)]
    }
    return arguments
  }

  /// `"a, b or c"`, for error messages.
  private static func names<T: CaseIterable & RawRepresentable>(_: T.Type) -> String
  where T.RawValue == String {
    let names = T.allCases.map(\.rawValue)
    return names.dropLast().joined(separator: ", ") + " or " + names.last!
  }
}

/// A command line that does not parse; the message names the offending argument.
struct UsageError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
