import NIOCore
import NIOEmbedded
import Testing
import TimerLoop
import TimerLoopNIO

// The README's example, as it is written there.

/// Closes a connection after 30 s without a read. The timer is re-armed on
/// every read, on the channel's own thread: one call into the wheel, no
/// allocation.
final class IdleTimeoutHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private var timers: NIOTimerLoop?
  private var idle: TimerKey?

  func handlerAdded(context: ChannelHandlerContext) {
    let timers = context.eventLoop.timerLoop  // once: the lookup takes a lock
    self.timers = timers
    idle = try? timers.makeTimer(handler: CloseOnTimeout(context))  // throws only after shutdown
    if let idle { timers.arm(idle, after: .seconds(30)) }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if let timers, let idle { timers.arm(idle, after: .seconds(30)) }
    context.fireChannelRead(data)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    if let timers, let idle { timers.invalidate(idle) }
  }
}

/// The timer's handler: a `TimerHandler` is `Sendable`, so it holds the
/// channel's context loop-bound, as NIO's own timers do.
final class CloseOnTimeout: TimerHandler {
  private let context: NIOLoopBound<ChannelHandlerContext>
  init(_ context: ChannelHandlerContext) {
    self.context = NIOLoopBound(context, eventLoop: context.eventLoop)
  }
  func timerFired(tag: UInt64) { context.value.close(promise: nil) }  // on the channel's thread
}

/// The example on an `EmbeddedChannel`, on NIO's virtual time only.
@Suite struct ReadmeExampleTests {
  @Test func idleTimeoutClosesTheChannelThirtySecondsAfterTheLastRead() throws {
    let channel = EmbeddedChannel(handler: IdleTimeoutHandler())
    let loop = channel.embeddedEventLoop
    defer { try? loop.syncShutdownGracefully() }
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
    loop.advanceTime(by: .seconds(20))
    try channel.writeInbound(ByteBuffer(string: "ping"))
    loop.advanceTime(by: .seconds(20))
    #expect(channel.isActive)  // 20 s since the read
    loop.advanceTime(by: .seconds(10))
    #expect(!channel.isActive)  // 30 s since the read
  }
}
