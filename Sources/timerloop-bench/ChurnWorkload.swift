import BlockTimers
import Dispatch
import Foundation
import TimerLoop

/// W2 `churn`, the idle-timeout pattern: C timers armed 30 s ahead, then R resets, reset k
/// re-arming timer `(k × 7919) mod C` to 30 s from a fresh clock reading, then every timer
/// cancelled. Nothing fires.
///
/// Measures the wall time per initial arm, per reset and per cancel (ns), each including
/// one clock read, as in every peer. On TimerLoop it also counts the heap allocations
/// per initial arm, per reset and per cancel (`allocs_per_timer`, `allocs_per_reset`,
/// `allocs_per_cancel`; ``AllocationCounter`` says what is counted).
enum ChurnWorkload {
  /// C when `--timers` is not given.
  static let defaultCount = 100_000
  /// R for TimerLoop and Dispatch.
  static let defaultResets = 2_000_000
  /// Foundation's R: a `fireDate` set costs ~0.19 ms with 100,000 timers pending, so
  /// 2,000,000 resets would take minutes. The peers' reference run used the same cap.
  static let foundationResetCap = 20_000
  /// The idle timeout every arm and reset sets, from a fresh clock reading.
  static let timeout = Duration.seconds(30)

  /// The timer that reset `k` re-arms: a stride coprime with C visits every timer and
  /// defeats any locality a cache or a heap could exploit.
  static func timer(forReset k: Int, count: Int) -> Int {
    (k * 7919) % count
  }

  /// Monotonic times at the phase boundaries.
  struct Phases {
    var start: Deadline
    var armed: Deadline
    var reset: Deadline
    var cancelled: Deadline
    /// heap allocations in each phase (``AllocationCounter``); counted for TimerLoop
    /// only: Foundation and Dispatch allocate their timers in C.
    var allocations: (arm: Int, reset: Int, cancel: Int)? = nil
  }

  /// Runs the workload with `count` timers on `implementation` and emits its metrics.
  static func run(_ implementation: Implementation, count: Int, sink: MetricSink) throws {
    let resets =
      implementation == .foundation ? min(defaultResets, foundationResetCap) : defaultResets
    let fired = Shared(0)
    let phases =
      switch implementation {
      case .timerloop: try runTimerLoop(count: count, resets: resets, fired: fired)
      case .timerloopHandler: try runTimerLoopHandler(count: count, resets: resets, fired: fired)
      case .foundation: runFoundation(count: count, resets: resets, fired: fired)
      case .dispatch: runDispatch(count: count, resets: resets, fired: fired)
      case .blocktimer:
        try runBlockTimers(count: count, resets: resets) { loop in
          BlockTimer.scheduledTimer(withTimeInterval: timeout.inSeconds, repeats: false, on: loop) {
            _ in fired.value += 1
          }
        }
      case .weakTarget:
        try runBlockTimers(count: count, resets: resets) { loop in
          WeakTargetTimer.oneShot(after: timeout.inSeconds, on: loop) { _ in fired.value += 1 }
        }
      case .continuous, .timerloopPool: preconditionFailure("churn does not run on \(implementation)")
      }
    sink.emit("c", count, "timers")
    sink.emit("r", resets, "resets")
    sink.emit("arm_ns", nanoseconds(phases.armed - phases.start, per: count), digits: 1, "ns")
    sink.emit("reset_ns", nanoseconds(phases.reset - phases.armed, per: resets), digits: 1, "ns")
    sink.emit(
      "cancel_ns", nanoseconds(phases.cancelled - phases.reset, per: count), digits: 1, "ns")
    if let allocations = phases.allocations {
      sink.emit("allocs_per_timer", average(allocations.arm, per: count), digits: 2, "allocs")
      sink.emit("allocs_per_reset", average(allocations.reset, per: resets), digits: 2, "allocs")
      sink.emit("allocs_per_cancel", average(allocations.cancel, per: count), digits: 2, "allocs")
    }
    sink.emit("fired", fired.value, "count")
  }

  /// Nanoseconds per operation.
  private static func nanoseconds(_ amount: Duration, per operations: Int) -> Double {
    average(amount.inNanoseconds, per: operations)
  }

  /// `total` per operation, and 0 when there were none.
  private static func average(_ total: some BinaryInteger, per operations: Int) -> Double {
    Double(total) / Double(max(operations, 1))
  }

  /// Arms with `schedule(at:)`, resets with `reschedule(to:)`, cancels with `cancel()`, all
  /// on the loop thread.
  private static func runTimerLoop(count: Int, resets: Int, fired: Shared<Int>) throws -> Phases {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      var handles: [TimerHandle] = []
      handles.reserveCapacity(count)
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      for _ in 0..<count {
        handles.append(try loop.schedule(at: Deadline.now() + timeout) { fired.value += 1 })
      }
      let armed = Deadline.now()
      let armAllocations = AllocationCounter.count
      for k in 0..<resets {
        handles[timer(forReset: k, count: count)].reschedule(to: Deadline.now() + timeout)
      }
      let reset = Deadline.now()
      let resetAllocations = AllocationCounter.count
      for handle in handles { handle.cancel() }
      let cancelled = Deadline.now()
      let allocations = AllocationCounter.stop()
      return Phases(
        start: start, armed: armed, reset: reset, cancelled: cancelled,
        allocations: counting
          ? (armAllocations, resetAllocations - armAllocations, allocations - resetAllocations)
          : nil)
    }
  }

  /// Counts firings; none is expected.
  private final class FiringCounter: TimerHandler {
    let fired: Shared<Int>

    init(_ fired: Shared<Int>) {
      self.fired = fired
    }

    func timerFired(tag: UInt64) {
      fired.value += 1
    }
  }

  /// Makes a kept handler timer per connection and arms it, resets with `arm(_:at:)`,
  /// cancels with `invalidate(_:)` (which ends it, as `cancel()` does), all on the loop
  /// thread.
  private static func runTimerLoopHandler(
    count: Int, resets: Int, fired: Shared<Int>
  ) throws -> Phases {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      let handler = FiringCounter(fired)
      var keys: [TimerKey] = []
      keys.reserveCapacity(count)
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      for _ in 0..<count {
        let key = try loop.makeTimer(handler: handler)
        loop.arm(key, at: Deadline.now() + timeout)
        keys.append(key)
      }
      let armed = Deadline.now()
      let armAllocations = AllocationCounter.count
      for k in 0..<resets {
        loop.arm(keys[timer(forReset: k, count: count)], at: Deadline.now() + timeout)
      }
      let reset = Deadline.now()
      let resetAllocations = AllocationCounter.count
      for key in keys { loop.invalidate(key) }
      let cancelled = Deadline.now()
      let allocations = AllocationCounter.stop()
      return Phases(
        start: start, armed: armed, reset: reset, cancelled: cancelled,
        allocations: counting
          ? (armAllocations, resetAllocations - armAllocations, allocations - resetAllocations)
          : nil)
    }
  }

  /// Arms with `make` (a BlockTimers factory, due in 30 s), resets by setting `fireDate` to a
  /// fresh `Date(timeIntervalSinceNow:)` (as on Foundation), cancels with `invalidate()`, all
  /// on the loop thread.
  private static func runBlockTimers<Timer: BlockTimersOneShot>(
    count: Int, resets: Int, make: @escaping @Sendable (EpollEventLoop) -> Timer
  ) throws -> Phases {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      var timers: [Timer] = []
      timers.reserveCapacity(count)
      let counting = AllocationCounter.start()
      let start = Deadline.now()
      for _ in 0..<count { timers.append(make(loop)) }
      let armed = Deadline.now()
      let armAllocations = AllocationCounter.count
      for k in 0..<resets {
        timers[timer(forReset: k, count: count)].fireDate = Date(
          timeIntervalSinceNow: timeout.inSeconds)
      }
      let reset = Deadline.now()
      let resetAllocations = AllocationCounter.count
      for timer in timers { timer.invalidate() }
      let cancelled = Deadline.now()
      let allocations = AllocationCounter.stop()
      return Phases(
        start: start, armed: armed, reset: reset, cancelled: cancelled,
        allocations: counting
          ? (armAllocations, resetAllocations - armAllocations, allocations - resetAllocations)
          : nil)
    }
  }

  /// Resets by setting `fireDate`, cancels with `invalidate()`; the run loop never runs.
  private static func runFoundation(count: Int, resets: Int, fired: Shared<Int>) -> Phases {
    let runLoop = RunLoop.current
    var timers: [Timer] = []
    timers.reserveCapacity(count)
    let start = Deadline.now()
    for _ in 0..<count {
      let timer = Timer(timeInterval: timeout.inSeconds, repeats: false) { _ in fired.value += 1 }
      runLoop.add(timer, forMode: .default)
      timers.append(timer)
    }
    let armed = Deadline.now()
    for k in 0..<resets {
      timers[timer(forReset: k, count: count)].fireDate = Date(
        timeIntervalSinceNow: timeout.inSeconds)
    }
    let reset = Deadline.now()
    for timer in timers { timer.invalidate() }
    return Phases(start: start, armed: armed, reset: reset, cancelled: Deadline.now())
  }

  /// Each phase runs inside one `queue.sync`, whose return is the phase's barrier; work
  /// libdispatch leaves to its manager thread after that is not counted.
  private static func runDispatch(count: Int, resets: Int, fired: Shared<Int>) -> Phases {
    let queue = DispatchSource.makeBenchmarkQueue()
    let interval = DispatchTimeInterval(timeout)
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(count)
    let start = Deadline.now()
    queue.sync {
      for _ in 0..<count {
        sources.append(
          DispatchSource.activatedTimer(on: queue, at: .now() + interval) { fired.value += 1 })
      }
    }
    let armed = Deadline.now()
    queue.sync {
      for k in 0..<resets {
        sources[timer(forReset: k, count: count)].schedule(
          deadline: .now() + interval, repeating: .never, leeway: .nanoseconds(0))
      }
    }
    let reset = Deadline.now()
    queue.sync { for source in sources { source.cancel() } }
    return Phases(start: start, armed: armed, reset: reset, cancelled: Deadline.now())
  }
}
