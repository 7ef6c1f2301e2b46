import Dispatch
import Glibc
import NIOCore

/// `churn`: `config.timers` idle timeouts of 30 s (never due) armed, re-armed
/// `config.rearms` times at random, then cancelled; all in one task on the
/// loop thread. Prints ns per arm, re-arm and cancel, and allocations per
/// re-arm; returns them by name.
func churn<Timers: BenchTimers>(
  _: Timers.Type, on loop: any EventLoop, config: BenchConfig
) throws -> [String: Double] {
  let lines = try loop.submit {
    let timers = try Timers(
      on: loop, count: config.timers, delay: .seconds(30), keptTimers: true, fired: { _ in })
    var random = Random()
    let arm = measure { for index in 0..<config.timers { timers.rearm(index) } }
    let rearm = measure {
      for _ in 0..<config.rearms { timers.rearm(random.next(below: config.timers)) }
    }
    let cancel = measure { for index in 0..<config.timers { timers.cancel(index) } }
    return [
      ("arm_ns", Double(arm.ns) / Double(config.timers)),
      ("rearm_ns", Double(rearm.ns) / Double(config.rearms)),
      ("cancel_ns", Double(cancel.ns) / Double(config.timers)),
      ("allocs_per_rearm", Double(rearm.allocations) / Double(config.rearms)),
    ]
  }.wait()
  for (metric, value) in lines { emit(Timers.name, "churn", metric, value) }
  return Dictionary(uniqueKeysWithValues: lines)
}

/// `million`: `config.oneShots` one-shots due 20 ms on, over 10 ms, in index
/// order, scheduled in one task on the loop thread and then fired by it.
/// Prints ns per schedule, the process's CPU ns per firing (from the end of
/// scheduling to the last firing: the loop idles until the first is due),
/// allocations per schedule, and whether each fired once, in order.
func million<Timers: BenchTimers>(_: Timers.Type, on loop: any EventLoop, config: BenchConfig) throws {
  let count = config.oneShots
  let done = DispatchSemaphore(value: 0)
  let record = FiringRecord()
  let start = try loop.submit {
    let timers = try Timers(
      on: loop, count: count, delay: .zero, keptTimers: false,
      fired: { index in
        record.fired(index)
        if record.count == count {
          record.lastCPU = nanoseconds(CLOCK_PROCESS_CPUTIME_ID)
          done.signal()
        }
      })
    record.timers = timers
    let first = loop.now + .milliseconds(20)
    let schedule = try measure {
      for index in 0..<count {
        try timers.schedule(index, at: first + .nanoseconds(Int64(index) * 10_000_000 / Int64(count)))
      }
    }
    return (schedule, nanoseconds(CLOCK_PROCESS_CPUTIME_ID))
  }.wait()
  let finished = done.wait(timeout: .now() + .seconds(60)) == .success
  let (fired, violations, lastCPU) = try loop.submit {
    defer { record.timers = nil }
    return (record.count, record.orderViolations, record.lastCPU)
  }.wait()
  emit(Timers.name, "million", "schedule_ns", Double(start.0.ns) / Double(count))
  emit(Timers.name, "million", "fire_cpu_ns", Double(lastCPU - start.1) / Double(count))
  emit(Timers.name, "million", "allocs_per_schedule", Double(start.0.allocations) / Double(count))
  emit(Timers.name, "million", "fired", Double(fired))
  emit(Timers.name, "million", "ok", finished && fired == count && violations == 0 ? 1 : 0)
}

/// What `million`'s timers record as they fire. Loop thread only.
private final class FiringRecord: @unchecked Sendable {
  var timers: (any BenchTimers)?
  var count = 0
  var orderViolations = 0
  var lastCPU: Int64 = 0
  private var last = -1

  func fired(_ index: Int) {
    if index <= last { orderViolations += 1 }
    last = index
    count += 1
  }
}
