import NIOCore
import NIOEmbedded
import Testing

@testable import nio_keepalive_server

/// The example server's connection handler on `EmbeddedChannel`, on NIO's
/// virtual time, with each timer implementation: the idle timeout closes at
/// exactly its deadline, every read re-arms it, and a started request is
/// closed at its deadline however slowly its bytes come.
@Suite struct KeepaliveHandlerTests {
  enum Timers: CaseIterable { case timerloop, nio }

  /// A connected channel running the handler: idle timeout 5 s, request deadline 2 s.
  final class Connection {
    let channel = EmbeddedChannel()
    let stats = ServerStats()

    init(_ timers: Timers) throws {
      let (idle, deadline) = (Duration.seconds(5), Duration.seconds(2))
      let handler: any ChannelHandler =
        switch timers {
        case .timerloop:
          KeepaliveHandler<TimerLoopTimeouts>(idleTimeout: idle, requestDeadline: deadline, stats: stats)
        case .nio:
          KeepaliveHandler<NIOTimeouts>(idleTimeout: idle, requestDeadline: deadline, stats: stats)
        }
      try channel.pipeline.syncOperations.addHandler(handler)
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    deinit {
      _ = try? channel.finish()
      try? channel.embeddedEventLoop.syncShutdownGracefully()
    }

    func advance(by amount: TimeAmount) { channel.embeddedEventLoop.advanceTime(by: amount) }

    func send(_ text: String) throws { try channel.writeInbound(ByteBuffer(string: text)) }

    /// The responses written since the last call.
    func responses() throws -> Int {
      var count = 0
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
        count += String(buffer: buffer).components(separatedBy: "HTTP/1.1 200 OK").count - 1
      }
      return count
    }
  }

  @Test(arguments: Timers.allCases)
  func anIdleConnectionClosesAtExactlyTheTimeout(_ timers: Timers) throws {
    let connection = try Connection(timers)
    connection.advance(by: .seconds(5) - .nanoseconds(1))
    #expect(connection.channel.isActive)
    connection.advance(by: .nanoseconds(1))
    #expect(!connection.channel.isActive)
    #expect(connection.stats.closedIdle.load(ordering: .relaxed) == 1)
    #expect(connection.stats.closedIdleEarly.load(ordering: .relaxed) == 0)
  }

  @Test(arguments: Timers.allCases)
  func everyReadRearmsTheIdleTimeout(_ timers: Timers) throws {
    let connection = try Connection(timers)
    for _ in 0..<3 {
      connection.advance(by: .seconds(4))
      try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try connection.responses() == 1)
    }
    // A read that completes no request re-arms it too.
    connection.advance(by: .seconds(4))
    try connection.send("GET / HTTP/1.1\r\n\r\nGET")
    try connection.send(" / HTTP/1.1\r\n\r\n")
    #expect(try connection.responses() == 2)
    connection.advance(by: .seconds(5) - .nanoseconds(1))
    #expect(connection.channel.isActive)
    connection.advance(by: .nanoseconds(1))
    #expect(!connection.channel.isActive)
    #expect(connection.stats.requests.load(ordering: .relaxed) == 5)
    #expect(connection.stats.closedIdle.load(ordering: .relaxed) == 1)
  }

  @Test(arguments: Timers.allCases)
  func aSlowRequestClosesAtItsDeadline(_ timers: Timers) throws {
    let connection = try Connection(timers)
    try connection.send("GET / HTTP/1.1\r\n")
    // A byte every half second keeps the idle timeout away, not the deadline.
    for _ in 0..<3 {
      connection.advance(by: .milliseconds(500))
      try connection.send("X")
    }
    connection.advance(by: .milliseconds(500) - .nanoseconds(1))
    #expect(connection.channel.isActive)
    connection.advance(by: .nanoseconds(1))
    #expect(!connection.channel.isActive)
    #expect(connection.stats.closedDeadline.load(ordering: .relaxed) == 1)
    #expect(try connection.responses() == 0)
  }

  @Test(arguments: Timers.allCases)
  func aCompletedRequestStopsItsDeadline(_ timers: Timers) throws {
    let connection = try Connection(timers)
    try connection.send("GET / HTTP/1.1\r\n")
    connection.advance(by: .seconds(1))
    try connection.send("\r\n")
    #expect(try connection.responses() == 1)
    connection.advance(by: .seconds(3))
    #expect(connection.channel.isActive)
    #expect(connection.stats.closedDeadline.load(ordering: .relaxed) == 0)
  }

  @Test(arguments: Timers.allCases)
  func aCloseEndsBothTimeouts(_ timers: Timers) throws {
    let connection = try Connection(timers)
    try connection.send("GET / HTTP/1.1\r\n")
    try connection.channel.close().wait()
    connection.advance(by: .seconds(10))
    #expect(connection.stats.closedByPeer.load(ordering: .relaxed) == 1)
    #expect(connection.stats.closedIdle.load(ordering: .relaxed) == 0)
    #expect(connection.stats.closedDeadline.load(ordering: .relaxed) == 0)
    #expect(connection.stats.open.load(ordering: .relaxed) == 0)
  }
}
