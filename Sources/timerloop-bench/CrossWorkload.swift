import BlockTimers
import Dispatch
import TimerLoop

/// `cross`, the SwiftNIO server pattern: a thread that is not the loop's schedules N one-shot
/// timers due in 1 hour on a loop running on a thread of its own, keeping each handle, then
/// cancels them all. Every call goes through the loop's inbox. On `blocktimer` the timers are
/// `BlockTimer`s scheduled with `scheduledTimer(withTimeInterval:repeats:on:block:)` and
/// ended with `invalidate()`.
///
/// Measures the wall time per schedule, per cancel and per schedule+cancel pair (ns, on the
/// calling thread), how long the loop then took to apply what was still queued (`drain_ms`),
/// and the resident bytes per timer after the schedules (`bytes_per_pending_timer`, handles
/// included) and after the burst, once the loop has applied every cancel and the handles
/// are gone (`bytes_left_per_timer`). `fired` must stay 0.
enum CrossWorkload {
  /// N when `--timers` is not given.
  static let defaultCount = 1_000_000
  /// Far enough that nothing fires while the process lives.
  static let timeout = Duration.seconds(3600)

  /// Counts firings of the handler form; none is expected.
  private final class FiringCounter: TimerHandler {
    let fired = Shared(0)

    func timerFired(tag: UInt64) {
      fired.value += 1
    }
  }

  /// Runs the workload with `count` timers on `implementation` and emits its metrics.
  static func run(_ implementation: Implementation, count: Int, sink: MetricSink) throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "cross-loop")
    defer { loop.shutdown() }
    let fired = Shared(0)
    let counter = FiringCounter()
    try waitForLoop(loop)
    let before = ProcessStats.residentBytes()
    let start = Deadline.now()
    let (scheduled, pending, cancelled) =
      switch implementation {
      case .timerloopHandler:
        try burst(count: count) {
          try loop.schedule(after: timeout, handler: counter, tag: UInt64($0))
        } cancel: {
          loop.disarm($0)
        }
      case .blocktimer:
        try burst(count: count) { _ in
          BlockTimer.scheduledTimer(withTimeInterval: timeout.inSeconds, repeats: false, on: loop) {
            _ in fired.value += 1
          }
        } cancel: {
          $0.invalidate()
        }
      default:
        try burst(count: count) { _ in
          try loop.schedule(after: timeout) { fired.value += 1 }
        } cancel: {
          $0.cancel()
        }
      }
    try waitForLoop(loop)
    let drained = Deadline.now()
    let after = ProcessStats.residentBytes()
    try onLoop(loop) { fired.value += counter.fired.value }
    let n = Double(count)
    sink.emit("n", count, "timers")
    sink.emit("schedule_ns", Double((scheduled - start).inNanoseconds) / n, digits: 1, "ns")
    sink.emit("cancel_ns", Double((cancelled - scheduled).inNanoseconds) / n, digits: 1, "ns")
    sink.emit("pair_ns", Double((cancelled - start).inNanoseconds) / n, digits: 1, "ns")
    sink.emit("drain_ms", Double((drained - cancelled).inNanoseconds) / 1e6, digits: 1, "ms")
    sink.emit(
      "bytes_per_pending_timer", Double(pending - before) / n, digits: 1, "bytes")
    sink.emit("bytes_left_per_timer", Double(after - before) / n, digits: 1, "bytes")
    sink.emit("fired", fired.value, "count")
  }

  /// Schedules `count` timers with `schedule`, keeping what it returns, then cancels each
  /// with `cancel` and drops them. Returns when the schedules ended, the resident bytes then,
  /// and when the cancels ended.
  private static func burst<Handle>(
    count: Int, schedule: (Int) throws -> Handle, cancel: (Handle) -> Void
  ) throws -> (scheduled: Deadline, pending: Int, cancelled: Deadline) {
    var handles: [Handle] = []
    handles.reserveCapacity(count)
    for i in 0..<count { handles.append(try schedule(i)) }
    let scheduled = Deadline.now()
    let pending = ProcessStats.residentBytes()
    for handle in handles { cancel(handle) }
    let cancelled = Deadline.now()
    return (scheduled, pending, cancelled)
  }

  /// Returns once the loop has run everything sent to it before.
  private static func waitForLoop(_ loop: EpollEventLoop) throws {
    try onLoop(loop) {}
  }

  /// Runs `body` on the loop's thread and waits for it.
  private static func onLoop(_ loop: EpollEventLoop, _ body: @escaping @Sendable () -> Void)
    throws
  {
    let done = DispatchSemaphore(value: 0)
    try loop.execute {
      body()
      done.signal()
    }
    done.wait()
  }
}
