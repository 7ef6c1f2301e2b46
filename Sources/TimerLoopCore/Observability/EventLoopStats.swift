import Synchronization

/// Counters of a loop, readable from any thread: ``TimerEventLoop/stats``.
///
/// The loop updates them once per pass with relaxed atomic stores (nothing per
/// timer), so reading them costs the loop nothing and never blocks it. Each
/// field is exact as of some pass, but a snapshot taken while the loop runs
/// may mix fields of two consecutive passes.
public struct EventLoopStats: Sendable, Hashable {
  /// Passes run (see ``TimerEventLoop``).
  public var passes: Int
  /// Passes that followed a wait: on ``EpollEventLoop/run()``, each return
  /// from a blocking `epoll_wait` (a timer, a request from another thread, a
  /// ready descriptor); on ``EpollEventLoop/runOnce()``, each call; on a
  /// ``VirtualEventLoop``, each move of its clock to a pending deadline.
  public var wakeUps: Int
  /// Timer callbacks run (``EventLoopPassInfo/timersFired``, summed): the
  /// monotonic timers', not the boot-time and wall-clock timers'.
  public var timersFired: Int
  /// Tasks run (``EventLoopPassInfo/tasksRun``, summed).
  public var tasksRun: Int
  /// Timers scheduled and not ended at the end of the latest pass
  /// (``TimerEventLoop/liveTimerCount`` as the loop thread saw it then):
  /// monotonic timers only.
  public var liveTimers: Int
  /// Passes by the lateness of their earliest due timer
  /// (``EventLoopPassInfo/lateness``): element `i` counts those late by less
  /// than `latenessBucketBounds[i]` and, for `i > 0`, at least
  /// `latenessBucketBounds[i - 1]`; the last element counts the rest. Passes
  /// with no timer due are not counted.
  public var latenessHistogram: [Int]

  /// The upper bounds of ``latenessHistogram``'s buckets but the last: 10 µs,
  /// 50 µs, 100 µs, 200 µs, 500 µs, 1 ms, 5 ms, 10 ms, 50 ms, 100 ms, 1 s.
  public static var latenessBucketBounds: [Duration] { latenessBuckets.map(\.duration) }

  /// ``latenessBucketBounds`` as the loop compares them, once per pass.
  static let latenessBuckets: [TimeAmount] = [
    .microseconds(10), .microseconds(50), .microseconds(100), .microseconds(200),
    .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(10),
    .milliseconds(50), .milliseconds(100), .seconds(1),
  ]
}

/// The atomics behind ``EventLoopStats``. Written by the loop thread only, so a
/// relaxed load and store replace a read-modify-write.
final class LoopCounters: Sendable {
  private let passes = Atomic<Int>(0)
  private let wakeUps = Atomic<Int>(0)
  private let timersFired = Atomic<Int>(0)
  private let tasksRun = Atomic<Int>(0)
  private let liveTimers = Atomic<Int>(0)
  private let lateness = InlineArray<12, Atomic<Int>> { _ in Atomic(0) }

  /// Counts a pass. Loop thread only.
  func record(_ outcome: TimerScheduler.PassOutcome, wokeUp: Bool, liveTimers live: Int) {
    Self.add(1, to: passes)
    if wokeUp { Self.add(1, to: wakeUps) }
    Self.add(outcome.timersFired, to: timersFired)
    Self.add(outcome.tasksRun, to: tasksRun)
    liveTimers.store(live, ordering: .relaxed)
    if let late = outcome.lateness {
      let bounds = EventLoopStats.latenessBuckets
      Self.add(1, to: lateness[bounds.firstIndex { late < $0 } ?? bounds.count])
    }
  }

  /// ``EventLoopStats/liveTimers`` alone. Any thread.
  var publishedLiveTimers: Int { liveTimers.load(ordering: .relaxed) }

  func snapshot() -> EventLoopStats {
    EventLoopStats(
      passes: passes.load(ordering: .relaxed), wakeUps: wakeUps.load(ordering: .relaxed),
      timersFired: timersFired.load(ordering: .relaxed),
      tasksRun: tasksRun.load(ordering: .relaxed),
      liveTimers: liveTimers.load(ordering: .relaxed),
      latenessHistogram: lateness.indices.map { lateness[$0].load(ordering: .relaxed) })
  }

  private static func add(_ amount: Int, to counter: borrowing Atomic<Int>) {
    counter.store(counter.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
  }
}

extension TimerEventLoop {
  /// The loop's counters (passes, wake-ups, timers fired, live timers, a
  /// lateness histogram), safe and cheap to read from any thread; see
  /// ``EventLoopStats``. O(1).
  public var stats: EventLoopStats { scheduler.counters.snapshot() }
}
