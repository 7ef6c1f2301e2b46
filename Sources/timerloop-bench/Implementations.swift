import BenchmarkReport
import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// The timer implementations the benchmark compares, expressed as the peer measurements of this project
/// ("How each peer expresses the workloads") describes.
enum Implementation: String, CaseIterable, Sendable {
  /// This package's `EpollEventLoop`, run on the calling thread; every timer is armed from
  /// a task on the loop thread, as the C peers arm from their loop's thread.
  case timerloop
  /// The same loop with handler timers (`TimerHandler`, `TimerKey`) instead of closures:
  /// million, churn and memory only.
  case timerloopHandler = "timerloop-handler"
  /// `sleep` only: the loop's sleep with the tasks on the default executor, where
  /// `timerloop` runs them on the loop's thread.
  case timerloopPool = "timerloop-pool"
  /// BlockTimers' `BlockTimer` (the drop-in for `Foundation.Timer`) on the same loop, every
  /// call on the loop thread: million, churn, jitter and memory.
  case blocktimer
  /// BlockTimers' `WeakTargetTimer` (a `BlockTimer` whose action holds its target weakly) on
  /// the same loop: million, churn and memory.
  case weakTarget = "weak-target"
  /// `Foundation.Timer` added to the calling thread's `RunLoop`, which runs in 50 ms slices.
  case foundation
  /// `DispatchSourceTimer`s on one serial queue, every call made inside `queue.sync`.
  case dispatch
  /// Swift concurrency's own timers: `Task.sleep` on `ContinuousClock`, tasks on the
  /// default executor. `sleep` only.
  case continuous

  /// What the implementation is, in words, for the report's legend: one line each (at most
  /// 79 columns keeps it on one line of the report), so that a new implementation brings its
  /// own.
  var about: String {
    switch self {
    case .timerloop:
      "TimerLoop's EpollEventLoop, closure timers; sleep: its sleep, tasks on the loop"
    case .timerloopHandler:
      "TimerLoop's EpollEventLoop, handler timers (TimerHandler, TimerKey)"
    case .timerloopPool:
      "TimerLoop's sleep(until:), tasks on the default executor (sleep workloads)"
    case .blocktimer:
      "BlockTimers' BlockTimer (the Foundation.Timer drop-in) on TimerLoop's loop"
    case .weakTarget:
      "BlockTimers' WeakTargetTimer (its target held weakly) on TimerLoop's loop"
    case .foundation:
      "Foundation's Timer on the benchmark thread's RunLoop, run in 50 ms slices"
    case .dispatch: "DispatchSourceTimer, every timer on one serial DispatchQueue"
    case .continuous: "Task.sleep on ContinuousClock, tasks on the default executor"
    }
  }

  /// The implementation as the report shows it: its name and ``about``.
  var summary: ImplementationSummary { ImplementationSummary(name: rawValue, about: about) }
}

/// A mutable value shared by the code that arms timers and the callbacks that fire them.
///
/// `@unchecked Sendable` because no two threads ever touch it at once: each implementation
/// runs every callback on one thread (the loop thread, the run loop's thread, or the serial
/// queue), and the arming code reads the value only after a hand-off that orders memory
/// (`EpollEventLoop.run()` returning, `queue.sync`, a semaphore). The recorders of the
/// workloads rely on the same rule.
final class Shared<Value>: @unchecked Sendable {
  var value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// Failures of the benchmark itself, as opposed to the measured libraries.
enum BenchmarkError: Error, CustomStringConvertible {
  /// `EpollEventLoop.run()` returned before the setup task ran.
  case loopStoppedBeforeSetup

  var description: String {
    switch self {
    case .loopStoppedBeforeSetup: "the event loop stopped before the benchmark's setup task ran"
    }
  }
}

extension EpollEventLoop {
  /// Runs a fresh loop on the calling thread with `setup` as its first task, and returns what
  /// `setup` returned once the loop has been shut down (by a callback, or by `setup` itself).
  ///
  /// Arming from a task keeps the measured calls on the loop thread, so they take the
  /// same-thread path (no eventfd wake-ups), as in the C peers.
  ///
  /// The loop has `leeway` (see `EpollEventLoop.init(leeway:metricsDelegate:)`).
  ///
  /// - Throws: what `setup` throws (the loop is shut down first), or a `SystemError` of the loop.
  static func runOnCurrentThread<Value>(
    leeway: Duration = defaultLeeway,
    _ setup: @escaping @Sendable (EpollEventLoop) throws -> Value
  ) throws -> Value {
    let loop = try EpollEventLoop(leeway: leeway, metricsDelegate: PassCounter.shared)
    let outcome = Shared<Result<Value, any Error>?>(nil)
    try loop.execute {
      do {
        outcome.value = .success(try setup(loop))
      } catch {
        outcome.value = .failure(error)
        loop.shutdown()
      }
    }
    try loop.run()
    guard let result = outcome.value else { throw BenchmarkError.loopStoppedBeforeSetup }
    return try result.get()
  }
}

/// The metrics delegate `--metrics-delegate` gives every TimerLoop loop of the run: it adds
/// up passes and timers fired, as a delegate feeding a metrics system would, so that runs
/// with and without it show what the hook costs.
final class PassCounter: EventLoopMetricsDelegate {
  /// The delegate, when the command line has `--metrics-delegate`; read from the arguments
  /// because workloads create their loops far from the parsed ``Options``.
  static let shared: PassCounter? =
    CommandLine.arguments.contains(Options.metricsDelegateFlag) ? PassCounter() : nil

  private let passes = Atomic<Int>(0)
  private let timersFired = Atomic<Int>(0)

  func processedPass(info: EventLoopPassInfo) {
    passes.add(1, ordering: .relaxed)
    timersFired.add(info.timersFired, ordering: .relaxed)
  }
}

extension RunLoop {
  /// Runs this run loop until `isDone()` holds or the monotonic time reaches `giveUpAt`,
  /// checking both every 50 ms at the latest.
  ///
  /// Slices, because `run(until:)` on Linux does not return early when its mode runs out
  /// of timers (seen on Linux with swift-corelibs-foundation).
  ///
  /// - Returns: `false` if it gave up.
  func spin(until isDone: () -> Bool, giveUpAt: Deadline) -> Bool {
    while !isDone() {
      guard Deadline.now() < giveUpAt else { return false }
      run(until: Date(timeIntervalSinceNow: 0.05))
    }
    return true
  }
}

extension DispatchSource {
  /// A timer source on `queue` with the handler `body`, scheduled with no leeway (as the
  /// Dispatch peer does) and activated. Call it on `queue`.
  static func activatedTimer(
    on queue: DispatchQueue, at deadline: DispatchTime,
    repeating interval: DispatchTimeInterval = .never,
    _ body: @escaping @Sendable () -> Void
  ) -> DispatchSourceTimer {
    let source = DispatchSource.makeTimerSource(queue: queue)
    source.setEventHandler(handler: body)
    source.schedule(deadline: deadline, repeating: interval, leeway: .nanoseconds(0))
    source.activate()
    return source
  }

  /// The serial queue every Dispatch workload runs its sources on.
  static func makeBenchmarkQueue() -> DispatchQueue {
    DispatchQueue(label: "timerloop-bench.dispatch")
  }
}

extension DispatchTime {
  /// The same instant as `deadline`: both count `CLOCK_MONOTONIC` nanoseconds on Linux
  /// (libdispatch's uptime clock).
  init(_ deadline: Deadline) {
    self.init(uptimeNanoseconds: UInt64(deadline.uptimeNanoseconds))
  }
}

extension DispatchTimeInterval {
  /// The same span as `amount`.
  init(_ amount: Duration) {
    self = .nanoseconds(Int(amount.inNanoseconds))
  }
}
