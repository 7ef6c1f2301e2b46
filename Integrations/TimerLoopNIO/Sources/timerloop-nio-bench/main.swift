// timerloop-nio-bench: NIO's scheduleTask and cancel against TimerLoop's
// handler timers, on the same NIOPosix loop thread, in one run (README.md).
import Glibc
import NIOCore
import NIOPosix

let config: BenchConfig
do {
  config = try BenchConfig(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  print("\(error)\n\n\(BenchConfig.usage)")
  exit(2)
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
print(
  "# timerloop-nio-bench: timers=\(config.timers) rearms=\(config.rearms)",
  "one_shots=\(config.oneShots) loadavg=\(loadAverage())")
let nio = try churn(NIOBenchTimers.self, on: loop, config: config)
let timerLoop = try churn(TimerLoopBenchTimers.self, on: loop, config: config)
// The target: a re-arm plus a cancel at most 1/20 of NIO's.
let ratio =
  (timerLoop["rearm_ns"]! + timerLoop["cancel_ns"]!) / (nio["rearm_ns"]! + nio["cancel_ns"]!)
print("ratio.churn.rearm_plus_cancel=\((ratio * 1000).rounded() / 1000)")
try million(NIOBenchTimers.self, on: loop, config: config)
try million(TimerLoopBenchTimers.self, on: loop, config: config)
try group.syncShutdownGracefully()

/// The first three fields of /proc/loadavg, comma-separated: the machine is shared.
func loadAverage() -> String {
  guard let file = fopen("/proc/loadavg", "r") else { return "?" }
  defer { fclose(file) }
  var bytes = [CChar](repeating: 0, count: 128)
  guard fgets(&bytes, Int32(bytes.count), file) != nil else { return "?" }
  let text = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return text.split(separator: " ").prefix(3).joined(separator: ",")
}
