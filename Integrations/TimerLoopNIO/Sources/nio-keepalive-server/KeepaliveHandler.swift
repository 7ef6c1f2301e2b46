import NIOCore

/// One keep-alive connection, as keepalive-server's `Connection` in the
/// TimerLoop package serves it: reads requests (up to the blank line that
/// ends the header; bodies are not supported), answers each with a fixed
/// 200, and closes on end of stream, on error, after the idle timeout, or
/// when a started request misses its deadline. The idle timeout is re-armed
/// on every read, the pattern this server measures; `Timeouts` is the timer
/// implementation under test.
final class KeepaliveHandler<Timeouts: ConnectionTimeouts>: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let idleTimeout: TimerDelay
  private let requestDeadline: TimerDelay
  private let stats: ServerStats
  private var context: ChannelHandlerContext?
  private var timeouts: Timeouts?
  private var input: ByteBuffer?
  private var requestStarted = false
  private var lastRead = NIODeadline.distantPast
  private var closeReason: CloseReason?

  private enum CloseReason { case idle, deadline, bad }

  init(idleTimeout: Duration, requestDeadline: Duration, stats: ServerStats) {
    self.idleTimeout = TimerDelay(idleTimeout)
    self.requestDeadline = TimerDelay(requestDeadline)
    self.stats = stats
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    do {
      timeouts = try Timeouts(on: context.eventLoop) { [weak self] timeout in
        self?.timeoutPassed(timeout)
      }
    } catch {
      context.close(promise: nil)  // the loop is shutting down
      return
    }
    if context.channel.isActive { startIdleTimeout(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    startIdleTimeout(context)
    context.fireChannelActive()
  }

  private func startIdleTimeout(_ context: ChannelHandlerContext) {
    stats.open.add(1, ordering: .relaxed)
    lastRead = context.eventLoop.now
    timeouts?.arm(.idle, after: idleTimeout)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    lastRead = context.eventLoop.now
    timeouts?.arm(.idle, after: idleTimeout)
    stats.rearms.add(1, ordering: .relaxed)
    var chunk = unwrapInboundIn(data)
    if input == nil { input = chunk } else { input!.writeBuffer(&chunk) }
    serveCompleteRequests(context)
  }

  private func serveCompleteRequests(_ context: ChannelHandlerContext) {
    guard var buffer = input else { return }
    input = nil
    var served = false
    while let end = buffer.readableBytesView.firstRange(of: HTTP.endOfHeader) {
      buffer.moveReaderIndex(to: end.upperBound)
      context.write(wrapOutboundOut(HTTP.response), promise: nil)
      stats.requests.add(1, ordering: .relaxed)
      served = true
    }
    if served && requestStarted {
      timeouts?.disarm(.request)
      requestStarted = false
    }
    guard buffer.readableBytes > 0 else { return }
    guard buffer.readableBytes <= HTTP.maximumHeader else { return close(context, .bad) }
    buffer.discardReadBytes()
    input = buffer
    if !requestStarted {
      // A request has started: it must be complete before its deadline,
      // however slowly its bytes come.
      requestStarted = true
      timeouts?.arm(.request, after: requestDeadline)
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    context.flush()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)  // a reset or another error: counted as the peer's close
  }

  func channelInactive(context: ChannelHandlerContext) {
    stats.open.subtract(1, ordering: .relaxed)
    switch closeReason {
    case .none, .bad: stats.closedByPeer.add(1, ordering: .relaxed)
    case .idle: stats.closedIdle.add(1, ordering: .relaxed)
    case .deadline: stats.closedDeadline.add(1, ordering: .relaxed)
    }
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timeouts?.invalidate()
    timeouts = nil
    self.context = nil
  }

  /// A timeout passed: on the loop thread, from the timer implementation.
  private func timeoutPassed(_ timeout: ConnectionTimeout) {
    guard let context else { return }
    switch timeout {
    case .idle:
      if context.eventLoop.now - lastRead < idleTimeout.amount {
        stats.closedIdleEarly.add(1, ordering: .relaxed)
      }
      close(context, .idle)
    case .request:
      close(context, .deadline)
    }
  }

  private func close(_ context: ChannelHandlerContext, _ reason: CloseReason) {
    guard closeReason == nil else { return }
    closeReason = reason
    context.close(promise: nil)
  }
}

/// The server's fixed bytes (a generic type cannot hold static constants).
private enum HTTP {
  static let response = ByteBuffer(
    string:
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\n\r\nok"
  )
  static let endOfHeader = Array("\r\n\r\n".utf8)
  /// A header longer than this is not a request we serve.
  static let maximumHeader = 16 * 1024
}
