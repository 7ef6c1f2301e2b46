import NIOCore
import TimerLoop
import TimerLoopNIO

/// TimerLoop's handler timers on the loop's `NIOTimerLoop`: a re-arm is one
/// `arm` of a kept timer, a cancel one `disarm`, a one-shot one
/// `schedule(at:handler:tag:)`.
final class TimerLoopBenchTimers: BenchTimers {
  static let name = "timerloop"
  private let timers: NIOTimerLoop
  private let handler: Handler
  private let delay: Duration
  /// A kept timer per index, made unarmed up front (as a connection makes
  /// its idle timer once); one-shots need none.
  private var keys: [TimerKey] = []

  init(
    on loop: any EventLoop, count: Int, delay: Duration, keptTimers: Bool,
    fired: @escaping (Int) -> Void
  ) throws {
    timers = loop.timerLoop
    self.delay = delay
    handler = Handler(fired: NIOLoopBound(fired, eventLoop: loop))
    if keptTimers {
      keys = try (0..<count).map { try timers.makeTimer(handler: handler, tag: UInt64($0)) }
    }
  }

  deinit {
    for key in keys { timers.invalidate(key) }
  }

  func rearm(_ index: Int) {
    timers.arm(keys[index], after: delay)
  }

  func cancel(_ index: Int) {
    timers.disarm(keys[index])
  }

  func schedule(_ index: Int, at deadline: NIODeadline) throws {
    try timers.schedule(at: Deadline(deadline), handler: handler, tag: UInt64(index))
  }

  private final class Handler: TimerHandler {
    let fired: NIOLoopBound<(Int) -> Void>
    init(fired: NIOLoopBound<(Int) -> Void>) { self.fired = fired }
    func timerFired(tag: UInt64) { fired.value(Int(tag)) }
  }
}
