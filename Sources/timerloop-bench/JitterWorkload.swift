import BlockTimers
import Dispatch
import Foundation
import TimerLoop

/// W3 `jitter`: K repeating 10 ms timers, timer k first due at `t0 + k × 10 ms / K` with
/// `t0` = init start + 200 ms, run for S seconds (K × 100 firings per second expected).
///
/// Measures the lateness of every firing against its ideal time on the grid (µs
/// percentiles; negative means early), the CPU the whole process used over the run (s) and
/// its voluntary context switches over the run (for a loop on one thread: how often it
/// blocked, i.e. its wake-ups). TimerLoop's loop runs with the given leeway.
/// Checks that the run kept up (`kept_up`: at least 90% of the expected firings) and that
/// nothing fired early (`never_early`: the minimum lateness is not negative).
enum JitterWorkload {
  /// K when `--timers` is not given.
  static let defaultCount = 10_000
  /// The run's length in seconds when `--seconds` is not given.
  static let defaultSeconds = 3.0
  /// How long after the end a run may take to stop all its timers before it is declared stuck.
  static let patience = Duration.seconds(10)
  /// `kept_up` is 1 when at least this many tenths of the expected firings happened: a loop
  /// that keeps up skips ticks only when the machine stalls it.
  static let keptUpTenths = 9

  /// Runs the workload with `count` timers for `seconds` on `implementation` and emits its metrics.
  static func run(
    _ implementation: Implementation, count: Int, seconds: Double, leeway: Duration,
    sink: MetricSink
  ) throws {
    let recorder =
      switch implementation {
      case .timerloop: try runTimerLoop(count: count, seconds: seconds, leeway: leeway)
      case .blocktimer: try runBlockTimer(count: count, seconds: seconds, leeway: leeway)
      case .timerloopHandler, .weakTarget, .continuous, .timerloopPool:
        preconditionFailure("jitter does not run on \(implementation)")
      case .foundation: runFoundation(count: count, seconds: seconds)
      case .dispatch: runDispatch(count: count, seconds: seconds)
      }
    let cpuAtRunEnd = ProcessStats.cpuSeconds()
    let switchesAtRunEnd = ProcessStats.voluntaryContextSwitches()
    if recorder.stoppedTimers < count {
      printError(
        "jitter on \(implementation): gave up with \(count - recorder.stoppedTimers) timers running"
      )
    }
    let firings = recorder.sampleCount + recorder.overflow
    let expectedFirings = count * Int(seconds * 100 + 0.5)
    let summary = recorder.latencySummary()
    sink.emit("k", count, "timers")
    sink.emit("secs", seconds, digits: 1, "s")
    sink.emit("init_s", (recorder.initEnd - recorder.start).inSeconds, digits: 4, "s")
    sink.emit("firings", firings, "count")
    sink.emit("expected_firings", expectedFirings, "count")
    sink.emit("sample_overflow", recorder.overflow, "count")
    summary?.emit(to: sink)
    sink.emit("cpu_s", cpuAtRunEnd - recorder.cpuAtInitEnd, digits: 3, "s")
    sink.emit("voluntary_switches", switchesAtRunEnd - recorder.switchesAtInitEnd, "count")
    if implementation == .timerloop || implementation == .blocktimer {
      sink.emit("leeway_us", Double(leeway.inNanoseconds) / 1e3, digits: 1, "us")
    }
    // The checks: lateness percentiles of a run that skipped most ticks, or fired early,
    // do not describe the same work as the others'.
    sink.emit("kept_up", firings * 10 >= expectedFirings * keptUpTenths ? 1 : 0, "bool")
    sink.emit("never_early", (summary?.min ?? 0) >= 0 ? 1 : 0, "bool")
  }

  /// TimerLoop's fixed-rate timers skip missed ticks, so a callback is charged to the tick
  /// the timer was queued for: the first deadline, then the handle's next deadline as the
  /// previous callback saw it (the loop queues it before the callback runs).
  private static func runTimerLoop(
    count: Int, seconds: Double, leeway: Duration
  ) throws -> LatenessRecorder {
    try EpollEventLoop.runOnCurrentThread(leeway: leeway) { loop in
      let recorder = LatenessRecorder(timers: count, seconds: seconds, start: Deadline.now())
      for k in 0..<count {
        try loop.scheduleRepeating(
          firstAt: recorder.firstDeadline(ofTimer: k), every: LatenessRecorder.period
        ) { handle in
          let now = Deadline.now()
          guard !recorder.isOver(at: now) else {
            handle.cancel()
            if recorder.stopTimer() { loop.shutdown() }
            return
          }
          let tick = recorder.nextTick[k]
          recorder.nextTick[k] =
            handle.deadline.map { recorder.tick(ofTimer: k, at: $0) } ?? tick + 1
          recorder.record(timer: k, tick: tick, at: now)
        }
      }
      recorder.finishInit()
      try loop.schedule(at: recorder.end + patience) { loop.shutdown() }
      return recorder
    }
  }

  /// `BlockTimer(fire:interval:repeats:block:)` added to the loop, as Foundation's are to the
  /// run loop. The dates are `Date()` and the loop's clock read together (the middle of two
  /// clock readings around `Date()`); the timer maps them back through its loop's own pairing,
  /// so a first deadline can differ from the recorder's by the two pairings' error (well under
  /// a microsecond on an idle core). Inside the block `fireDate` is already the next tick (the
  /// timer moves on before the call), which charges the following call.
  private static func runBlockTimer(
    count: Int, seconds: Double, leeway: Duration
  ) throws -> LatenessRecorder {
    try EpollEventLoop.runOnCurrentThread(leeway: leeway) { loop in
      let before = Deadline.now()
      let startDate = Date()
      let start = before + (Deadline.now() - before) / 2
      let recorder = LatenessRecorder(timers: count, seconds: seconds, start: start)
      let period = LatenessRecorder.period.inSeconds
      for k in 0..<count {
        let firstDate = startDate + (recorder.firstDeadline(ofTimer: k) - start).inSeconds
        let timer = BlockTimer(fire: firstDate, interval: period, repeats: true) { timer in
          let now = Deadline.now()
          guard !recorder.isOver(at: now) else {
            timer.invalidate()
            if recorder.stopTimer() { loop.shutdown() }
            return
          }
          let tick = recorder.nextTick[k]
          recorder.nextTick[k] = Int(
            (timer.fireDate.timeIntervalSince(firstDate) / period).rounded())
          recorder.record(timer: k, tick: tick, at: now)
        }
        timer.add(to: loop)
      }
      recorder.finishInit()
      try loop.schedule(at: recorder.end + patience) { loop.shutdown() }
      return recorder
    }
  }

  /// CoreFoundation skips missed ticks too; during the callout `fireDate` is the tick being
  /// served. A phase needs `Timer(fire:interval:repeats:block:)`.
  private static func runFoundation(count: Int, seconds: Double) -> LatenessRecorder {
    let runLoop = RunLoop.current
    let startDate = Date()
    let recorder = LatenessRecorder(timers: count, seconds: seconds, start: Deadline.now())
    let period = LatenessRecorder.period.inSeconds
    for k in 0..<count {
      let firstDate = startDate + (recorder.firstDeadline(ofTimer: k) - recorder.start).inSeconds
      let timer = Timer(fire: firstDate, interval: period, repeats: true) { timer in
        let now = Deadline.now()
        guard !recorder.isOver(at: now) else {
          timer.invalidate()
          recorder.stopTimer()
          return
        }
        let tick = Int((timer.fireDate.timeIntervalSince(firstDate) / period).rounded())
        recorder.record(timer: k, tick: tick, at: now)
      }
      runLoop.add(timer, forMode: .default)
    }
    recorder.finishInit()
    _ = runLoop.spin(
      until: { recorder.stoppedTimers == count }, giveUpAt: recorder.end + patience)
    return recorder
  }

  /// Dispatch coalesces missed ticks into one handler call whose `data` counts them; the
  /// call is charged to the oldest tick it covers.
  private static func runDispatch(count: Int, seconds: Double) -> LatenessRecorder {
    let queue = DispatchSource.makeBenchmarkQueue()
    let done = DispatchSemaphore(value: 0)
    let recorder = LatenessRecorder(timers: count, seconds: seconds, start: Deadline.now())
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(count)
    queue.sync {
      for k in 0..<count {
        // The handler needs its source; the box is filled before the handler can run,
        // because the queue is busy with this `sync` until every timer is armed.
        let source = Shared<(any DispatchSourceTimer)?>(nil)
        let timer = DispatchSource.activatedTimer(
          on: queue, at: DispatchTime(recorder.firstDeadline(ofTimer: k)),
          repeating: DispatchTimeInterval(LatenessRecorder.period)
        ) {
          guard let timer = source.value else { return }
          let now = Deadline.now()
          guard !recorder.isOver(at: now) else {
            timer.cancel()
            source.value = nil  // breaks the cycle source → handler → box → source
            if recorder.stopTimer() { done.signal() }
            return
          }
          let tick = recorder.nextTick[k]
          recorder.nextTick[k] += Int(timer.data)
          recorder.record(timer: k, tick: tick, at: now)
        }
        source.value = timer
        sources.append(timer)
      }
    }
    recorder.finishInit()
    _ = done.wait(timeout: DispatchTime(recorder.end + patience))
    queue.sync { for source in sources { source.cancel() } }
    return recorder
  }
}

/// W3 bookkeeping, the same for every implementation: the tick grid, which tick each
/// timer's next callback is charged to, and the lateness samples (ns), stored like
/// `w3_samples` in `common.h` (a fixed capacity, overflow counted).
///
/// Touched only by the thread that fires the timers; see ``Shared`` for why that is safe.
final class LatenessRecorder: @unchecked Sendable {
  /// Every timer's repeat interval.
  static let period = Duration.milliseconds(10)
  /// `period` in nanoseconds, for the per-firing arithmetic.
  static let periodNanoseconds = period.inNanoseconds
  /// Time from the start of init to the grid's origin `t0`, leaving room to arm every timer.
  static let lead = Duration.milliseconds(200)

  /// K, the number of timers.
  let timers: Int
  /// Monotonic time just before the first arm.
  let start: Deadline
  /// `t0`, the grid's origin: timer k's tick m is ideally due at `t0 + phase_k + m × period`.
  let gridStart: Deadline
  /// Firings at or after this time stop their timer instead of being recorded.
  let end: Deadline
  /// Monotonic time just after the last arm.
  private(set) var initEnd: Deadline
  /// Process CPU seconds at `initEnd`.
  private(set) var cpuAtInitEnd = 0.0
  /// The process's voluntary context switches at `initEnd`.
  private(set) var switchesAtInitEnd = 0
  /// Lateness samples stored.
  private(set) var sampleCount = 0
  /// Firings recorded while the sample buffer was full.
  private(set) var overflow = 0
  /// Timers that have seen the end and stopped.
  private(set) var stoppedTimers = 0
  /// The tick each timer's next callback is charged to, for implementations that learn it
  /// from the previous callback (TimerLoop, Dispatch).
  let nextTick: UnsafeMutableBufferPointer<Int>
  /// A raw buffer, not an array, so that recording costs next to nothing in the measured CPU.
  private let samples: UnsafeMutableBufferPointer<Int64>

  /// A recorder for `timers` timers running `seconds` from `start`, room for every
  /// expected firing plus two per timer (up to 64 Mi samples).
  init(timers: Int, seconds: Double, start: Deadline) {
    self.timers = timers
    self.start = start
    gridStart = start + Self.lead
    end = gridStart + .nanoseconds(Int64(seconds * 1e9))
    initEnd = start
    nextTick = .allocate(capacity: timers)
    nextTick.initialize(repeating: 0)
    samples = .allocate(capacity: min(timers * (Int(seconds * 100) + 2), 1 << 26))
  }

  deinit {
    nextTick.deallocate()
    samples.deallocate()
  }

  /// Timer k's first tick, in monotonic nanoseconds: `k × period / K` (1 µs steps at
  /// K = 10,000) into the grid. In nanoseconds, not `Duration`s: `record` runs per firing.
  private func firstDeadlineNanoseconds(ofTimer k: Int) -> Int64 {
    gridStart.uptimeNanoseconds + Self.periodNanoseconds * Int64(k) / Int64(timers)
  }

  /// When timer k's first tick is due.
  func firstDeadline(ofTimer k: Int) -> Deadline {
    Deadline(uptimeNanoseconds: firstDeadlineNanoseconds(ofTimer: k))
  }

  /// The index of timer k's tick nearest to `deadline`.
  func tick(ofTimer k: Int, at deadline: Deadline) -> Int {
    let offset = deadline.uptimeNanoseconds - firstDeadlineNanoseconds(ofTimer: k)
    return Int((offset + Self.periodNanoseconds / 2) / Self.periodNanoseconds)
  }

  /// Whether the run is over at `now`.
  func isOver(at now: Deadline) -> Bool { now >= end }

  /// Marks the end of init: every timer is armed.
  func finishInit() {
    initEnd = Deadline.now()
    cpuAtInitEnd = ProcessStats.cpuSeconds()
    switchesAtInitEnd = ProcessStats.voluntaryContextSwitches()
  }

  /// Records a callback of timer k at `now` charged to its tick `tick`.
  func record(timer k: Int, tick: Int, at now: Deadline) {
    guard sampleCount < samples.count else {
      overflow += 1
      return
    }
    let ideal = firstDeadlineNanoseconds(ofTimer: k) + Int64(tick) * Self.periodNanoseconds
    samples[sampleCount] = now.uptimeNanoseconds - ideal
    sampleCount += 1
  }

  /// Counts a timer that has stopped itself after the end.
  /// - Returns: `true` once every timer has stopped.
  @discardableResult
  func stopTimer() -> Bool {
    stoppedTimers += 1
    return stoppedTimers == timers
  }

  /// Percentiles of the recorded lateness; sorts the samples.
  func latencySummary() -> LatencySummary? {
    LatencySummary(sorting: UnsafeMutableBufferPointer(rebasing: samples[..<sampleCount]))
  }
}
