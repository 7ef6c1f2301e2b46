import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// `sleep`: T tasks sleep at once, each a random 1–1,000 ms five times in a row (the
/// durations come from a fixed seed, the same on every implementation), as a server's tasks
/// wait on timeouts and backoffs. `sleep-group` runs the same tasks as the children of one
/// task group (`withTaskGroup`, the group's task on the same executor as the children), the
/// shape a new user writes for "run these and wait for all"; `sleep-nested` as the children
/// of nested discarding task groups of at most ``nestedWidth`` children each, the pattern the
/// AsyncAwait article recommends for thousands of children.
///
/// - `timerloop`: `loop.sleep(until:)` on an `EpollEventLoop` running on a thread of its own;
///   every task prefers the loop as its task executor (`Task(executorPreference:)`), so it
///   runs, sleeps and wakes on the loop's thread.
/// - `timerloop-pool`: the same sleep, tasks on the default executor: the loop thread runs
///   the timers and resumes the continuations, the tasks run on the default executor's
///   threads.
/// - `continuous`: `Task.sleep(until:clock:)` on `ContinuousClock`, tasks on the default
///   executor.
///
/// Measures the resident-set growth per sleeping task (read once every task has started its
/// first sleep), the process CPU of the whole run per wake-up (task creation included), the
/// lateness of every wake-up against its deadline as the task sees it (µs percentiles;
/// `early` counts wake-ups before their deadline, which must be none), and the wall time
/// from the first task created to the last one finished. `ok=1` when every task woke five
/// times and none early.
enum SleepWorkload {
  /// T when `--timers` is not given: 10,000, so that the default run stays short
  /// (`Task.sleep` at T = 100,000 takes over a minute); Benchmarks/RESULTS.md has figures at 100,000.
  static let defaultCount = 10_000
  /// Sleeps per task.
  static let rounds = 5
  /// How long the run may take before it is declared stuck: five sleeps of at most 1 s,
  /// with room for a slow executor (a task group of 100,000 children took over a minute).
  static let patience = DispatchTimeInterval.seconds(600)

  /// How the tasks are made.
  enum Shape {
    /// Each its own unstructured task (`Task(executorPreference:)`).
    case tasks
    /// The children of one `withTaskGroup`.
    case group
    /// The children of groups of at most ``nestedWidth`` children, themselves the children of
    /// one group.
    case nestedGroups
  }

  /// The most children a group of `sleep-nested` has: the runtime finds an ending child in its
  /// group's list by walking it (Benchmarks/RESULTS.md, 2026-12-03).
  static let nestedWidth = 256

  /// One sleep of `duration` from now; returns how late the task woke (never negative
  /// unless the sleep ended early).
  typealias Nap = @Sendable (_ duration: Duration) async -> Duration

  /// Runs the workload with `count` tasks of `shape` on `implementation` and emits its metrics.
  static func run(
    _ implementation: Implementation, count: Int, shape: Shape, sink: MetricSink
  ) throws {
    let recorder = SleepRecorder(tasks: count)
    let rssBefore = ProcessStats.residentBytes()
    let cpuBefore = ProcessStats.cpuSeconds()
    let start = Deadline.now()
    let loop: EpollEventLoop?
    let nap: Nap
    switch implementation {
    case .timerloop, .timerloopPool:
      let epoll = try EpollEventLoop.startOnNewThread(name: "sleep-bench")
      loop = epoll
      nap = { duration in
        let deadline = Deadline.now() + duration
        try? await epoll.sleep(until: deadline)
        return Deadline.now() - deadline
      }
    case .continuous:
      loop = nil
      nap = { duration in
        let deadline = ContinuousClock.now + duration
        try? await Task.sleep(until: deadline, clock: .continuous)
        return ContinuousClock.now - deadline
      }
    case .timerloopHandler, .blocktimer, .weakTarget, .foundation, .dispatch:
      preconditionFailure("sleep runs on timerloop, timerloop-pool and continuous only")
    }
    defer { loop?.shutdown() }
    // Tasks prefer the loop on `timerloop` only.
    let executor: (any TaskExecutor)? = implementation == .timerloop ? loop : nil
    @Sendable func sleeper(_ task: Int) async {
      recorder.taskStarts()
      for round in 0..<rounds {
        recorder.record(lateness: await nap(recorder.duration(task: task, round: round)))
      }
    }
    switch shape {
    case .tasks:
      for task in 0..<count {
        Task(executorPreference: executor) {
          await sleeper(task)
          recorder.tasksEnd(1)
        }
      }
    case .group:
      // Ends when the group has taken back every child: its cost is the run's.
      Task(executorPreference: executor) {
        await withTaskGroup(of: Void.self) { tasks in
          for task in 0..<count {
            tasks.addTask(executorPreference: executor) { await sleeper(task) }
          }
        }
        recorder.tasksEnd(count)
      }
    case .nestedGroups:
      Task(executorPreference: executor) {
        await withDiscardingTaskGroup { groups in
          for first in stride(from: 0, to: count, by: nestedWidth) {
            groups.addTask(executorPreference: executor) {
              await withDiscardingTaskGroup { tasks in
                for task in first..<min(first + nestedWidth, count) {
                  tasks.addTask(executorPreference: executor) { await sleeper(task) }
                }
              }
            }
          }
        }
        recorder.tasksEnd(count)
      }
    }
    let rssSleeping = recorder.residentBytesOnceAllSleep()
    let finished = recorder.waitForAllTasks(timeout: patience)
    let wall = Deadline.now() - start
    let cpu = ProcessStats.cpuSeconds() - cpuBefore
    if !finished { printError("sleep on \(implementation): gave up waiting for the tasks") }
    let wakeUps = recorder.sampleCount
    let early = recorder.earlyCount
    sink.emit("t", count, "tasks")
    sink.emit("wakeups", wakeUps, "count")
    sink.emit("expected_wakeups", count * rounds, "count")
    sink.emit(
      "bytes_per_task", Double(rssSleeping - rssBefore) / Double(count), digits: 1, "bytes")
    sink.emit("cpu_us_per_wakeup", cpu * 1e6 / Double(max(wakeUps, 1)), digits: 2, "us")
    recorder.latencySummary()?.emit(to: sink)
    sink.emit("early", early, "count")
    sink.emit("total_s", wall.inSeconds, digits: 3, "s")
    sink.emit("ok", finished && wakeUps == count * rounds && early == 0 ? 1 : 0, "bool")
  }
}

/// The `sleep` workload's bookkeeping, shared by tasks on any thread: each lateness sample
/// goes to a slot of its own (claimed with an atomic add), and the samples are read only
/// after every task has ended (a semaphore orders the memory).
final class SleepRecorder: @unchecked Sendable {
  let tasks: Int
  private let samples: UnsafeMutableBufferPointer<Int64>
  private let nextSample = Atomic<Int>(0)
  private let early = Atomic<Int>(0)
  private let started = Atomic<Int>(0)
  private let ended = Atomic<Int>(0)
  private let allStarted = DispatchSemaphore(value: 0)
  private let allEnded = DispatchSemaphore(value: 0)

  init(tasks: Int) {
    self.tasks = tasks
    samples = .allocate(capacity: tasks * SleepWorkload.rounds)
  }

  deinit {
    samples.deallocate()
  }

  /// Sleep `round` of `task`: 1 to 1,000 whole milliseconds, from SplitMix64 over a fixed seed.
  func duration(task: Int, round: Int) -> Duration {
    var z = UInt64(task * SleepWorkload.rounds + round) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return .milliseconds(Int64(z % 1_000) + 1)
  }

  /// A task is about to start its first sleep.
  func taskStarts() {
    if started.add(1, ordering: .relaxed).newValue == tasks { allStarted.signal() }
  }

  /// `count` tasks have ended (all of them at once when a task group has returned).
  func tasksEnd(_ count: Int) {
    if ended.add(count, ordering: .releasing).newValue == tasks { allEnded.signal() }
  }

  /// How late a task woke from one sleep.
  func record(lateness: Duration) {
    if lateness < .zero { early.add(1, ordering: .relaxed) }
    let index = nextSample.add(1, ordering: .relaxed).oldValue
    if index < samples.count { samples[index] = lateness.inNanoseconds }
  }

  /// The resident set once every task has started its first sleep.
  func residentBytesOnceAllSleep() -> Int {
    allStarted.wait()
    return ProcessStats.residentBytes()
  }

  /// Waits for the last task to end; whether it did within `timeout`.
  func waitForAllTasks(timeout: DispatchTimeInterval) -> Bool {
    allEnded.wait(timeout: .now() + timeout) == .success
  }

  var sampleCount: Int { min(nextSample.load(ordering: .acquiring), samples.count) }

  var earlyCount: Int { early.load(ordering: .relaxed) }

  /// Percentiles of the recorded lateness; sorts the samples. Call after every task ended.
  func latencySummary() -> LatencySummary? {
    LatencySummary(sorting: UnsafeMutableBufferPointer(rebasing: samples[..<sampleCount]))
  }
}
