import NIOCore

/// The two timeouts of a connection.
enum ConnectionTimeout: UInt64 {
  /// No read for the idle timeout: the connection is closed.
  case idle
  /// A started request was not complete by its deadline (slowloris).
  case request
}

/// A connection's two timeouts on one timer implementation, so that the
/// same server measures each (`--timers`). Everything runs on the channel's
/// loop thread, `fired` included.
protocol ConnectionTimeouts {
  /// Makes the timeouts of a connection on `eventLoop`; `fired` is called
  /// on that loop's thread when one passes. Throws when the loop has shut down.
  init(on eventLoop: any EventLoop, fired: @escaping (ConnectionTimeout) -> Void) throws

  /// Arms `timeout` to pass `delay` from now, in place of any earlier arming.
  func arm(_ timeout: ConnectionTimeout, after delay: TimerDelay)

  /// Stops `timeout` if it is armed.
  func disarm(_ timeout: ConnectionTimeout)

  /// Stops both for good, releasing what they hold; called once, as the connection ends.
  func invalidate()
}

/// A delay in both libraries' types, converted once at start-up.
struct TimerDelay {
  let duration: Duration
  let amount: TimeAmount

  init(_ duration: Duration) {
    self.duration = duration
    amount = TimeAmount(duration)
  }
}
