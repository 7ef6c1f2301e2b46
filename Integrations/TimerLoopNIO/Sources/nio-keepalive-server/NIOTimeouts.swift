import NIOCore

/// The timeouts as NIO's own scheduled tasks: each re-arm cancels the armed
/// task and schedules a new one (`--timers nio`), as a handler written with
/// `EventLoop.scheduleTask(in:_:)` does.
final class NIOTimeouts: ConnectionTimeouts {
  private let eventLoop: NIOIsolatedEventLoop
  private let fired: (ConnectionTimeout) -> Void
  private var idle: Scheduled<Void>?
  private var request: Scheduled<Void>?

  init(on eventLoop: any EventLoop, fired: @escaping (ConnectionTimeout) -> Void) {
    self.eventLoop = eventLoop.assumeIsolated()
    self.fired = fired
  }

  func arm(_ timeout: ConnectionTimeout, after delay: TimerDelay) {
    let fired = self.fired
    let task = eventLoop.scheduleTask(in: delay.amount) { fired(timeout) }
    switch timeout {
    case .idle: idle?.cancel(); idle = task
    case .request: request?.cancel(); request = task
    }
  }

  func disarm(_ timeout: ConnectionTimeout) {
    switch timeout {
    case .idle: idle?.cancel(); idle = nil
    case .request: request?.cancel(); request = nil
    }
  }

  func invalidate() {
    disarm(.idle)
    disarm(.request)
  }
}
