import TimerLoop

/// The four workloads of `Benchmarks/README.md`, and `scaling`, which runs two of them at four sizes.
enum Workload: String, CaseIterable, Sendable {
  /// W1: ``MillionWorkload``.
  case million
  /// W2: ``ChurnWorkload``.
  case churn
  /// W3: ``JitterWorkload``.
  case jitter
  /// W4: ``MemoryWorkload``.
  case memory
  /// ``ScalingWorkload``: churn and million from 10,000 to 10,000,000 timers.
  case scaling
  /// ``SoakWorkload``: a million live timers churned for `--seconds`, memory sampled.
  case soak
  /// ``CrossWorkload``: timers scheduled and cancelled from a thread other than the loop's.
  case cross
  /// ``SleepWorkload``: T tasks sleeping five random spans each, on the loop and on `Task.sleep`.
  case sleep
  /// ``SleepWorkload`` with the tasks as one task group's children (`--group`).
  case sleepGroup = "sleep-group"
  /// ``SleepWorkload`` with the tasks as the children of nested groups (`--group`).
  case sleepNested = "sleep-nested"

  /// The workloads a run without workload arguments runs: the four of `Benchmarks/README.md`
  /// and `sleep` (at its default T of 10,000 tasks, for each of its three implementations).
  /// `scaling` takes half a minute and gigabytes, `soak` a minute or more, so they run only
  /// when named.
  static let defaults: [Workload] = [.million, .churn, .jitter, .memory, .sleep]

  /// The default of the count `--timers` sets: N (million, memory), C (churn), K (jitter), T
  /// (sleep), or the largest size (scaling).
  var defaultTimers: Int {
    switch self {
    case .million: MillionWorkload.defaultCount
    case .churn: ChurnWorkload.defaultCount
    case .jitter: JitterWorkload.defaultCount
    case .memory: MemoryWorkload.defaultCount
    case .scaling: ScalingWorkload.defaultCount
    case .soak: SoakWorkload.defaultCount
    case .cross: CrossWorkload.defaultCount
    case .sleep, .sleepGroup, .sleepNested: SleepWorkload.defaultCount
    }
  }

  /// Whether the workload runs on `implementation`: `scaling` and `soak` measure TimerLoop
  /// alone, `cross` both TimerLoop APIs, jitter does not run on `timerloop-handler` or
  /// `weak-target` (nor anything but `million`, `churn`, `jitter`, `memory` and, for
  /// `blocktimer`, `cross` on BlockTimers), `sleep`
  /// `sleep-group` and `sleep-nested` compare the loop (`timerloop`, `timerloop-pool`) with `continuous` only
  /// (timers without tasks have no sleep to compare), the others run everywhere.
  func runs(on implementation: Implementation) -> Bool {
    switch implementation {
    case .timerloop: true
    case .timerloopPool, .continuous: [.sleep, .sleepGroup, .sleepNested].contains(self)
    case .timerloopHandler: [.million, .churn, .memory, .cross].contains(self)
    case .blocktimer: [.million, .churn, .jitter, .memory, .cross].contains(self)
    case .weakTarget: [.million, .churn, .memory].contains(self)
    case .foundation, .dispatch:
      ![.scaling, .soak, .cross, .sleep, .sleepGroup, .sleepNested].contains(self)
    }
  }
}

/// One workload on one implementation: what the benchmark runs, in this process or in a
/// child process of its own.
struct BenchmarkCase: CustomStringConvertible {
  var workload: Workload
  var implementation: Implementation

  var description: String { "\(workload.rawValue) on \(implementation.rawValue)" }

  /// Runs the case in this process and prints its metric lines on standard output, to `sink`
  /// when given. `timers` and `seconds` default to the workload's own sizes; `leeway` (the
  /// leeway of timerloop's loop in `jitter`) to `EpollEventLoop.defaultLeeway`.
  func run(
    timers: Int?, seconds: Double?, leeway: Duration? = nil, sink: MetricSink? = nil
  ) throws {
    let sink = sink ?? MetricSink(implementation: implementation, workload: workload)
    let count = timers ?? workload.defaultTimers
    switch workload {
    case .million:
      try MillionWorkload.run(implementation, count: count, sink: sink)
    case .churn:
      try ChurnWorkload.run(implementation, count: count, sink: sink)
    case .jitter:
      try JitterWorkload.run(
        implementation, count: count, seconds: seconds ?? JitterWorkload.defaultSeconds,
        leeway: leeway ?? EpollEventLoop.defaultLeeway, sink: sink)
    case .memory:
      try MemoryWorkload.run(implementation, count: count, sink: sink)
    case .scaling:
      try ScalingWorkload.run(implementation, count: count)
    case .soak:
      try SoakWorkload.run(
        implementation, count: count, seconds: seconds ?? SoakWorkload.defaultSeconds, sink: sink)
    case .cross:
      try CrossWorkload.run(implementation, count: count, sink: sink)
    case .sleep:
      try SleepWorkload.run(implementation, count: count, shape: .tasks, sink: sink)
    case .sleepGroup:
      try SleepWorkload.run(implementation, count: count, shape: .group, sink: sink)
    case .sleepNested:
      try SleepWorkload.run(implementation, count: count, shape: .nestedGroups, sink: sink)
    }
  }
}
