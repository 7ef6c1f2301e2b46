/// The bench's sizes, from the command line.
struct BenchConfig {
  /// Idle timeouts pending at once in `churn`.
  var timers = 10_000
  /// Random re-arms in `churn`.
  var rearms = 200_000
  /// One-shots scheduled and fired in `million`.
  var oneShots = 100_000

  static let usage = """
    usage: timerloop-nio-bench [--timers N] [--rearms N] [--one-shots N]
    Runs NIO's scheduleTask/cancel and TimerLoop's handler timers on the same
    NIOPosix loop thread, one after the other, and prints key=value lines:
      churn    N idle timeouts (30 s, never due) re-armed R times at random,
               then cancelled: ns per re-arm, per cancel, allocations per re-arm
      million  M one-shots due over 10 ms, scheduled then fired: ns per
               schedule, CPU ns per firing, allocations per schedule
    Defaults: --timers 10000 --rearms 200000 --one-shots 100000 (seconds).
    """

  init(arguments: [String]) throws {
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      guard let value = remaining.popFirst(), let count = Int(value), count > 0, count <= 50_000_000
      else { throw UsageError("\(flag) needs a count from 1 to 50,000,000") }
      switch flag {
      case "--timers": timers = count
      case "--rearms": rearms = count
      case "--one-shots": oneShots = count
      default: throw UsageError("unknown option '\(flag)'")
      }
    }
  }
}

struct UsageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
