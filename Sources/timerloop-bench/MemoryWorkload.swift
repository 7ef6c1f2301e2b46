import BlockTimers
import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// W4 `memory`: the growth of the resident set (bytes per timer) after arming N one-shot
/// timers due in 1 hour, each closure capturing one `Int`, with the reference a user keeps
/// to cancel each timer (`TimerHandle`, `Timer`, `DispatchSourceTimer`) counted in, as the
/// C peers count the timer structs they allocate.
///
/// Nothing fires. Foundation's and Dispatch's timers are left armed: the workload runs in
/// a process of its own that exits next, and invalidating a million CoreFoundation timers
/// one by one would take longer than the whole measurement.
enum MemoryWorkload {
  /// N when `--timers` is not given.
  static let defaultCount = 1_000_000
  /// Far enough that nothing fires while the process lives.
  static let timeout = Duration.seconds(3600)

  /// Where a timer's closure would store its captured `Int`: an observable effect, so the
  /// optimiser cannot drop the capture.
  private static let lastFired = Atomic<Int>(0)

  /// What every timer's closure calls with the one `Int` it captures.
  private static func fire(_ i: Int) {
    lastFired.store(i, ordering: .relaxed)
  }

  /// Resident-set readings around the arming.
  struct Readings {
    /// Bytes resident before the first arm.
    var before: Int
    /// Bytes resident after the last arm.
    var after: Int
  }

  /// Runs the workload with `count` timers on `implementation` and emits its metrics.
  static func run(_ implementation: Implementation, count: Int, sink: MetricSink) throws {
    let readings =
      switch implementation {
      case .timerloop: try runTimerLoop(count: count)
      case .timerloopHandler: try runTimerLoopHandler(count: count)
      case .foundation: runFoundation(count: count)
      case .dispatch: runDispatch(count: count)
      case .blocktimer:
        try runBlockTimers(count: count) { loop, i in
          BlockTimer.scheduledTimer(withTimeInterval: timeout.inSeconds, repeats: false, on: loop) {
            _ in fire(i)
          }
        }
      case .weakTarget:
        try runBlockTimers(count: count) { loop, i in
          WeakTargetTimer.oneShot(after: timeout.inSeconds, on: loop) { _ in fire(i) }
        }
      case .continuous, .timerloopPool: preconditionFailure("memory does not run on \(implementation)")
      }
    sink.emit("n", count, "timers")
    sink.emit("rss_before", readings.before, "bytes")
    sink.emit("rss_after", readings.after, "bytes")
    sink.emit(
      "bytes_per_timer", Double(readings.after - readings.before) / Double(count), digits: 1,
      "bytes")
  }

  /// Arms with `schedule(after:)` on the loop thread and keeps each `TimerHandle`.
  private static func runTimerLoop(count: Int) throws -> Readings {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      let before = ProcessStats.residentBytes()
      var handles: [TimerHandle] = []
      handles.reserveCapacity(count)
      for i in 0..<count {
        handles.append(try loop.schedule(after: timeout) { fire(i) })
      }
      return Readings(before: before, after: ProcessStats.residentBytes())
    }
  }

  /// Calls ``fire(_:)`` with the timer's tag.
  private final class Firing: TimerHandler {
    func timerFired(tag: UInt64) {
      fire(Int(tag))
    }
  }

  /// Arms one-shot handler timers with `schedule(after:handler:tag:)`, one handler for all,
  /// the `Int` as the tag, and keeps each `TimerKey`.
  private static func runTimerLoopHandler(count: Int) throws -> Readings {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      let handler = Firing()
      let before = ProcessStats.residentBytes()
      var keys: [TimerKey] = []
      keys.reserveCapacity(count)
      for i in 0..<count {
        keys.append(try loop.schedule(after: timeout, handler: handler, tag: UInt64(i)))
      }
      return Readings(before: before, after: ProcessStats.residentBytes())
    }
  }

  /// Schedules with `make` (a BlockTimers factory, due in 1 hour) on the loop thread and
  /// keeps the object each call returns.
  private static func runBlockTimers<Timer: BlockTimersOneShot>(
    count: Int, make: @escaping @Sendable (EpollEventLoop, Int) -> Timer
  ) throws -> Readings {
    try EpollEventLoop.runOnCurrentThread { loop in
      defer { loop.shutdown() }
      let before = ProcessStats.residentBytes()
      var timers: [Timer] = []
      timers.reserveCapacity(count)
      for i in 0..<count { timers.append(make(loop, i)) }
      return Readings(before: before, after: ProcessStats.residentBytes())
    }
  }

  /// Adds each `Timer` to the run loop and keeps a reference to it.
  private static func runFoundation(count: Int) -> Readings {
    let runLoop = RunLoop.current
    let before = ProcessStats.residentBytes()
    var timers: [Timer] = []
    timers.reserveCapacity(count)
    for i in 0..<count {
      let timer = Timer(timeInterval: timeout.inSeconds, repeats: false) { _ in fire(i) }
      runLoop.add(timer, forMode: .default)
      timers.append(timer)
    }
    return Readings(before: before, after: ProcessStats.residentBytes())
  }

  /// Arms each source inside `queue.sync` and keeps a reference to it.
  private static func runDispatch(count: Int) -> Readings {
    let queue = DispatchSource.makeBenchmarkQueue()
    let before = ProcessStats.residentBytes()
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(count)
    queue.sync {
      for i in 0..<count {
        sources.append(
          DispatchSource.activatedTimer(on: queue, at: .now() + DispatchTimeInterval(timeout)) {
            fire(i)
          })
      }
    }
    return Readings(before: before, after: ProcessStats.residentBytes())
  }
}
