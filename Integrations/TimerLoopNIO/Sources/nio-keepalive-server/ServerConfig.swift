import NIOCore

/// The server's settings, from the command line: keepalive-server's, plus
/// the timer implementation.
struct ServerConfig {
  /// The timers a connection's timeouts run on.
  enum Timers: String {
    /// TimerLoop's handler timers on the channel loop's `NIOTimerLoop`.
    case timerloop
    /// NIO's `scheduleTask(in:_:)`, cancelled and scheduled again on every re-arm.
    case nio
  }

  var port = 8080
  var loops = System.coreCount
  var timers = Timers.timerloop
  /// A connection with no read for this long is closed.
  var idleTimeout = Duration.seconds(5)
  /// A request whose header has started must be complete within this long
  /// (the slowloris defence).
  var requestDeadline = Duration.seconds(2)
  /// Stop after this long; `nil` runs until killed.
  var duration: Duration?

  static let usage = """
    usage: nio-keepalive-server [--timers timerloop|nio] [--port N] [--loops N]
                                [--idle-timeout S] [--request-deadline S] [--duration S]
    An HTTP/1.1 keep-alive server on 127.0.0.1 that answers every request with a
    fixed 200, on a MultiThreadedEventLoopGroup of one loop per core. Every
    connection has an idle timeout (re-armed on every read) and a request deadline,
    on TimerLoop's timers (timerloop, the default) or NIO's scheduleTask (nio).
    Prints one line of counters a second on standard output.
    """

  init(arguments: [String]) throws {
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      guard let value = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
      switch flag {
      case "--timers":
        guard let timers = Timers(rawValue: value) else {
          throw UsageError("unknown timers '\(value)'")
        }
        self.timers = timers
      case "--port":
        guard let port = UInt16(value) else { throw UsageError("bad port '\(value)'") }
        self.port = Int(port)
      case "--loops":
        guard let loops = Int(value), (1...1024).contains(loops) else {
          throw UsageError("bad loop count '\(value)'")
        }
        self.loops = loops
      case "--idle-timeout": idleTimeout = try Self.seconds(value)
      case "--request-deadline": requestDeadline = try Self.seconds(value)
      case "--duration": duration = try Self.seconds(value)
      default: throw UsageError("unknown option '\(flag)'")
      }
    }
  }

  /// Seconds from the command line; a billion or more (about 31 years), like
  /// infinity and NaN, is refused: `Duration.seconds(_:)` traps beyond its range.
  private static func seconds(_ text: String) throws -> Duration {
    guard let seconds = Double(text), seconds > 0, seconds < 1e9 else {
      throw UsageError("bad seconds '\(text)'")
    }
    return .seconds(seconds)
  }
}

struct UsageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
