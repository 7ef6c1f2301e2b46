// keepalive-server: the example server of the TimerLoop manual's "Servers and
// embedding" article (README.md here); Benchmarks/server-load.sh puts wrk in front of it.
import Dispatch
import Glibc
import TimerLoop

let config: ServerConfig
do {
  config = try ServerConfig(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandleStandardError.write("\(error)\n\n\(ServerConfig.usage)\n")
  exit(2)
}
signal(SIGPIPE, SIG_IGN)  // a peer that resets must not kill the server

let stats = ServerStats()
let group = try EpollEventLoopGroup(count: config.loops)
let ready = DispatchGroup()
for loop in group.loops {
  ready.enter()
  try loop.execute {
    defer { ready.leave() }
    do {
      // Kept alive by the handler it registers, which captures it.
      try Listener(loop: loop, config: config, stats: stats).start()
    } catch {
      FileHandleStandardError.write("keepalive-server: \(error)\n")
      exit(1)
    }
  }
}
ready.wait()
print("listening=127.0.0.1:\(config.port) loops=\(config.loops)")
fflush(nil)
try group.loops[0].scheduleRepeating(after: .seconds(1), every: .seconds(1)) { _ in
  print(stats.line())
  fflush(nil)
}
let stop = DispatchSemaphore(value: 0)
if let duration = config.duration {
  try group.loops[0].schedule(after: duration) { stop.signal() }
}
stop.wait()
group.shutdown()

/// Standard error, unbuffered.
enum FileHandleStandardError {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}
