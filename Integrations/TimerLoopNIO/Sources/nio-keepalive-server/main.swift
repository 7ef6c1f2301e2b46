// nio-keepalive-server: keepalive-server's HTTP/1.1 keep-alive server on
// SwiftNIO's ServerBootstrap, with its timeouts on TimerLoop or on NIO's own
// timers (--timers); Benchmarks/server-load.sh here puts wrk in front of it.
import Glibc
import NIOCore
import NIOPosix

do {
  try serve(ServerConfig(arguments: Array(CommandLine.arguments.dropFirst())))
} catch let error as UsageError {
  StandardError.write("\(error)\n\n\(ServerConfig.usage)\n")
  exit(2)
} catch {
  StandardError.write("nio-keepalive-server: \(error)\n")
  exit(1)
}

/// Serves until `config.duration` has passed, or for ever.
func serve(_ config: ServerConfig) throws {
  let stats = ServerStats()
  let group = MultiThreadedEventLoopGroup(numberOfThreads: config.loops)
  let bootstrap =
    switch config.timers {
    case .timerloop: makeBootstrap(TimerLoopTimeouts.self, group: group, config: config, stats: stats)
    case .nio: makeBootstrap(NIOTimeouts.self, group: group, config: config, stats: stats)
    }
  let server = try bootstrap.bind(host: "127.0.0.1", port: config.port).wait()
  print("listening=127.0.0.1:\(config.port) loops=\(config.loops) timers=\(config.timers.rawValue)")
  fflush(nil)
  let ticker = group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) {
    _ in
    print(stats.line())
    fflush(nil)
  }
  if let duration = config.duration {
    group.next().scheduleTask(in: TimeAmount(duration)) { server.close(promise: nil) }
  }
  try server.closeFuture.wait()
  ticker.cancel()
  try group.syncShutdownGracefully()
}

/// A bootstrap whose connections run `KeepaliveHandler` on `Timeouts`.
func makeBootstrap<Timeouts: ConnectionTimeouts>(
  _: Timeouts.Type, group: MultiThreadedEventLoopGroup, config: ServerConfig, stats: ServerStats
) -> ServerBootstrap {
  ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 4096)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(
          KeepaliveHandler<Timeouts>(
            idleTimeout: config.idleTimeout, requestDeadline: config.requestDeadline,
            stats: stats))
      }
    }
}

/// Standard error, unbuffered.
enum StandardError {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}
