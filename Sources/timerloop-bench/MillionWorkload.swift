import BlockTimers
import Dispatch
import Foundation
import TimerLoop

/// W1 `million` (libuv's benchmark-million-timers): N one-shot timers, timer i due
/// `1 + i/1000` ms after arming starts, so batches of 1,000 share a timeout and the last
/// fires at about N/1000 ms.
///
/// Measures the cost to create and arm a timer (ns), the CPU cost to fire one (ns), and
/// how long after its own last deadline the N-th callback ran; checks that every timer
/// fired exactly once and in batch order (`ok=1` only then). On TimerLoop it also counts
/// the heap allocations per timer armed (`allocs_per_timer`; ``AllocationCounter``
/// says what is counted).
enum MillionWorkload {
  /// N when `--timers` is not given.
  static let defaultCount = 1_000_000
  /// Timers per shared timeout: timer i belongs to batch `i / batchSize`.
  static let batchSize = 1_000

  /// The timeout of timer `i`: `1 + i/1000` ms (integer division), as in libuv's benchmark.
  static func timeout(ofTimer i: Int) -> Duration {
    .milliseconds(Int64(1 + i / batchSize))
  }

  /// How long past its last deadline a run may take before it is declared stuck: generous
  /// for Foundation, which fires about 45,000 timers per second on this machine.
  static func patience(count: Int) -> Duration {
    .seconds(60) + .nanoseconds(Int64(count) * 50_000)
  }

  /// What an implementation reports about its init phase.
  struct InitPhase {
    /// Monotonic time just before the first arm.
    var start: Deadline
    /// Monotonic time just after the last arm.
    var end: Deadline
    /// Process CPU seconds at `end`.
    var cpuAtEnd: Double
    /// When the latest-deadline timer was due, by the implementation's own clock reading(s)
    /// at arming: one reading before the first arm (TimerLoop), or one per arm.
    var lastDue: Deadline
    /// heap allocations from the first arm to the last (``AllocationCounter``);
    /// counted for TimerLoop only: Foundation and Dispatch allocate their timers in C.
    var allocations: Int? = nil
  }

  /// Runs the workload with `count` timers on `implementation` and emits its metrics.
  static func run(_ implementation: Implementation, count: Int, sink: MetricSink) throws {
    let log = FiringLog(count: count)
    let initPhase =
      switch implementation {
      case .timerloop: try runTimerLoop(log)
      case .timerloopHandler: try runTimerLoopHandler(log)
      case .foundation: runFoundation(log)
      case .dispatch: runDispatch(log)
      case .blocktimer:
        try runBlockTimers(log) { seconds, loop, i in
          BlockTimer.scheduledTimer(withTimeInterval: seconds, repeats: false, on: loop) { _ in
            if log.record(i) { loop.shutdown() }
          }
        }
      case .weakTarget:
        try runBlockTimers(log) { seconds, loop, i in
          WeakTargetTimer.oneShot(after: seconds, on: loop) { _ in
            if log.record(i) { loop.shutdown() }
          }
        }
      case .continuous, .timerloopPool: preconditionFailure("million does not run on \(implementation)")
      }
    let cpuAtRunEnd = ProcessStats.cpuSeconds()
    if !log.isComplete {
      printError("million on \(implementation): gave up with \(log.fired) of \(count) fired")
    }
    report(log, initPhase, cpuAtRunEnd: cpuAtRunEnd, sink: sink)
  }

  /// All timeouts count from one clock reading; the N-th callback shuts the loop down.
  private static func runTimerLoop(_ log: FiringLog) throws -> InitPhase {
    try EpollEventLoop.runOnCurrentThread { loop in
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      // A batch's deadline once, not per timer: the arm loop then costs the
      // benchmark a few instructions per timer, whatever the time type.
      for first in stride(from: 0, to: log.count, by: batchSize) {
        let deadline = start + timeout(ofTimer: first)
        for i in first..<min(first + batchSize, log.count) {
          try loop.schedule(at: deadline) {
            if log.record(i) { loop.shutdown() }
          }
        }
      }
      return try endInit(on: loop, log, start: start, counting: counting)
    }
  }

  /// Ends an init phase that began at `start`: reads the clocks and the
  /// allocation count, and schedules the loop's shutdown in case a timer never fires.
  private static func endInit(
    on loop: EpollEventLoop, _ log: FiringLog, start: Deadline, counting: Bool
  ) throws -> InitPhase {
    let end = Deadline.now()
    let allocations = AllocationCounter.stop()
    let phase = InitPhase(
      start: start, end: end, cpuAtEnd: ProcessStats.cpuSeconds(),
      lastDue: start + timeout(ofTimer: log.count - 1),
      allocations: counting ? allocations : nil)
    try loop.schedule(at: phase.lastDue + patience(count: log.count)) { loop.shutdown() }
    return phase
  }

  /// Records the firing of the timer its tag names; the N-th firing shuts the loop down.
  private final class Recorder: TimerHandler {
    let log: FiringLog
    let loop: EpollEventLoop

    init(_ log: FiringLog, _ loop: EpollEventLoop) {
      self.log = log
      self.loop = loop
    }

    func timerFired(tag: UInt64) {
      if log.record(Int(tag)) { loop.shutdown() }
    }
  }

  /// As ``runTimerLoop(_:)``, with one handler for every timer, each told apart by its tag.
  private static func runTimerLoopHandler(_ log: FiringLog) throws -> InitPhase {
    try EpollEventLoop.runOnCurrentThread { loop in
      let recorder = Recorder(log, loop)
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      for first in stride(from: 0, to: log.count, by: batchSize) {
        let deadline = start + timeout(ofTimer: first)
        for i in first..<min(first + batchSize, log.count) {
          try loop.schedule(at: deadline, handler: recorder, tag: UInt64(i))
        }
      }
      return try endInit(on: loop, log, start: start, counting: counting)
    }
  }

  /// `make` (a BlockTimers factory, timer i due in the seconds given) on the loop thread; each
  /// timeout counts from the factory's own reading of the loop's clock. The object made is
  /// dropped (the loop keeps it).
  private static func runBlockTimers<Timer: BlockTimersOneShot>(
    _ log: FiringLog, make: @escaping @Sendable (TimeInterval, EpollEventLoop, Int) -> Timer
  ) throws -> InitPhase {
    try EpollEventLoop.runOnCurrentThread { loop in
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      // A batch's timeout converted once, as the closure runs compute a batch's deadline once.
      for first in stride(from: 0, to: log.count, by: batchSize) {
        let seconds = timeout(ofTimer: first).inSeconds
        for i in first..<min(first + batchSize, log.count) {
          _ = make(seconds, loop, i)
        }
      }
      let phase = try endInit(on: loop, log, start: start, counting: counting)
      // Each timeout counted from its own arm: the last from the end of init at the latest.
      return InitPhase(
        start: phase.start, end: phase.end, cpuAtEnd: phase.cpuAtEnd,
        lastDue: phase.end + timeout(ofTimer: log.count - 1), allocations: phase.allocations)
    }
  }

  /// `Timer(timeInterval:)` counts each timeout from its own creation (`Date()`).
  private static func runFoundation(_ log: FiringLog) -> InitPhase {
    let runLoop = RunLoop.current
    let start = Deadline.now()
    for i in 0..<log.count {
      let timer = Timer(timeInterval: timeout(ofTimer: i).inSeconds, repeats: false) { _ in
        log.record(i)
      }
      runLoop.add(timer, forMode: .default)
    }
    let end = Deadline.now()
    let phase = InitPhase(
      start: start, end: end, cpuAtEnd: ProcessStats.cpuSeconds(),
      lastDue: end + timeout(ofTimer: log.count - 1))
    _ = runLoop.spin(
      until: { log.isComplete }, giveUpAt: phase.lastDue + patience(count: log.count))
    return phase
  }

  /// Each timeout counts from its own `.now()`. Arming inside `queue.sync` keeps every
  /// handler waiting until init is over, as on the other implementations.
  private static func runDispatch(_ log: FiringLog) -> InitPhase {
    let queue = DispatchSource.makeBenchmarkQueue()
    let done = DispatchSemaphore(value: 0)
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(log.count)
    let start = Deadline.now()
    queue.sync {
      for i in 0..<log.count {
        let due = DispatchTime.now() + DispatchTimeInterval(timeout(ofTimer: i))
        sources.append(
          DispatchSource.activatedTimer(on: queue, at: due) {
            if log.record(i) { done.signal() }
          })
      }
    }
    let end = Deadline.now()
    let phase = InitPhase(
      start: start, end: end, cpuAtEnd: ProcessStats.cpuSeconds(),
      lastDue: end + timeout(ofTimer: log.count - 1))
    _ = done.wait(timeout: DispatchTime(phase.lastDue + patience(count: log.count)))
    queue.sync { for source in sources { source.cancel() } }
    return phase
  }

  /// Emits every W1 metric under the names `w1_report` in `common.h` uses.
  private static func report(
    _ log: FiringLog, _ initPhase: InitPhase, cpuAtRunEnd: Double, sink: MetricSink
  ) {
    let n = Double(log.count)
    let lastFiring = log.lastFiring ?? Deadline.now()
    let initSeconds = (initPhase.end - initPhase.start).inSeconds
    let runSeconds = (lastFiring - initPhase.end).inSeconds
    let lastDeadlineSeconds = timeout(ofTimer: log.count - 1).inSeconds
    sink.emit("n", log.count, "timers")
    sink.emit("init_s", initSeconds, digits: 4, "s")
    sink.emit("run_s", runSeconds, digits: 4, "s")
    sink.emit("total_s", initSeconds + runSeconds, digits: 4, "s")
    sink.emit("last_deadline_s", lastDeadlineSeconds, digits: 4, "s")
    sink.emit("init_ns_per_timer", initSeconds * 1e9 / n, digits: 1, "ns")
    sink.emit(
      "run_overhead_ns_per_timer", (runSeconds - lastDeadlineSeconds) * 1e9 / n, digits: 1, "ns")
    sink.emit(
      "run_overhead_adj_ns_per_timer", Double((lastFiring - initPhase.lastDue).inNanoseconds) / n,
      digits: 1, "ns")
    sink.emit(
      "run_cpu_ns_per_timer", (cpuAtRunEnd - initPhase.cpuAtEnd) * 1e9 / n, digits: 1, "ns")
    if let allocations = initPhase.allocations {
      sink.emit("allocs_per_timer", Double(allocations) / n, digits: 2, "allocs")
    }
    sink.emit("fired", log.fired, "timers")
    sink.emit("order_violations", log.orderViolations, "count")
    sink.emit("duplicates", log.duplicates, "count")
    sink.emit("ok", log.isCorrect ? 1 : 0, "bool")
  }
}

/// W1 bookkeeping, the same for every implementation (`w1_record` in `common.h`): counts
/// firings, repeated firings of one timer, and firings of an earlier batch after one of a
/// later batch, and timestamps the N-th firing.
///
/// Touched only by the thread that fires the timers; see ``Shared`` for why that is safe.
final class FiringLog: @unchecked Sendable {
  /// N, the number of timers armed.
  let count: Int
  /// Callbacks so far, duplicates included.
  private(set) var fired = 0
  /// Callbacks of a timer that had already fired.
  private(set) var duplicates = 0
  /// Callbacks of a batch earlier than the previous callback's.
  private(set) var orderViolations = 0
  /// Monotonic time of the N-th firing, `nil` until then.
  private(set) var lastFiring: Deadline?
  /// The batch of the previous callback.
  private var lastBatch = -1
  /// One flag per timer. A raw buffer, not an array: the bookkeeping must cost next to
  /// nothing beside the library calls it measures.
  private let seen: UnsafeMutableBufferPointer<Bool>

  init(count: Int) {
    self.count = count
    seen = .allocate(capacity: count)
    seen.initialize(repeating: false)
  }

  deinit {
    seen.deallocate()
  }

  /// Whether N firings have been recorded.
  var isComplete: Bool { fired >= count }

  /// Whether every timer fired exactly once and in batch order.
  var isCorrect: Bool { fired == count && duplicates == 0 && orderViolations == 0 }

  /// Records a firing of timer `i`.
  /// - Returns: `true` for the N-th firing, the one that completes the run.
  @discardableResult
  func record(_ i: Int) -> Bool {
    let batch = i / MillionWorkload.batchSize
    if batch < lastBatch { orderViolations += 1 }
    lastBatch = batch
    if seen[i] { duplicates += 1 }
    seen[i] = true
    fired += 1
    guard fired == count else { return false }
    lastFiring = Deadline.now()
    return true
  }
}
