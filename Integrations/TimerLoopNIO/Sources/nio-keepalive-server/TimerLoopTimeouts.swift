import NIOCore
import TimerLoop
import TimerLoopNIO

/// The timeouts as two handler timers of the channel loop's `NIOTimerLoop`:
/// each re-arm is one call into the wheel on the loop thread, with no
/// allocation and no NIO call (`--timers timerloop`).
final class TimerLoopTimeouts: ConnectionTimeouts {
  private let timers: NIOTimerLoop
  private let idle: TimerKey
  private let request: TimerKey

  init(on eventLoop: any EventLoop, fired: @escaping (ConnectionTimeout) -> Void) throws {
    timers = eventLoop.timerLoop
    let handler = Handler(fired: NIOLoopBound(fired, eventLoop: eventLoop))
    idle = try timers.makeTimer(handler: handler, tag: ConnectionTimeout.idle.rawValue)
    request = try timers.makeTimer(handler: handler, tag: ConnectionTimeout.request.rawValue)
  }

  func arm(_ timeout: ConnectionTimeout, after delay: TimerDelay) {
    timers.arm(key(timeout), after: delay.duration)
  }

  func disarm(_ timeout: ConnectionTimeout) {
    timers.disarm(key(timeout))
  }

  func invalidate() {
    timers.invalidate(idle)
    timers.invalidate(request)
  }

  private func key(_ timeout: ConnectionTimeout) -> TimerKey {
    timeout == .idle ? idle : request
  }

  /// What the loop calls: a `TimerHandler` is `Sendable`, so the connection's
  /// callback is held loop-bound (it runs on that loop's thread only).
  private final class Handler: TimerHandler {
    let fired: NIOLoopBound<(ConnectionTimeout) -> Void>
    init(fired: NIOLoopBound<(ConnectionTimeout) -> Void>) { self.fired = fired }

    func timerFired(tag: UInt64) {
      fired.value(ConnectionTimeout(rawValue: tag)!)
    }
  }
}
