import Dispatch
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Records every pass report, and the thread it came on.
final class PassRecorder: EventLoopMetricsDelegate {
  private let log = EventLog<(info: EventLoopPassInfo, thread: pthread_t)>()
  /// Called with each report after it is recorded.
  let observer: @Sendable (EventLoopPassInfo) -> Void

  init(observer: @escaping @Sendable (EventLoopPassInfo) -> Void = { _ in }) {
    self.observer = observer
  }

  func processedPass(info: EventLoopPassInfo) {
    log.append((info, pthread_self()))
    observer(info)
  }

  var passes: [EventLoopPassInfo] { log.all.map(\.info) }
  var threads: [pthread_t] { log.all.map(\.thread) }
}

/// The metrics delegate and ``EventLoopStats``: what a pass reports, in virtual
/// time where the figures are exact, and on a real loop where the thread matters.
@Suite struct ObservabilityTests {
  static let start = Deadline(uptimeNanoseconds: 1_000_000_000)

  @Test func theDelegateHearsOfEveryPassWithWhatRanAndWhen() throws {
    let recorder = PassRecorder()
    let loop = VirtualEventLoop(start: Self.start, metricsDelegate: recorder)
    try loop.execute {}
    try loop.schedule(after: .milliseconds(3)) { loop.stall(for: .milliseconds(5)) }
    try loop.schedule(after: .milliseconds(3)) {}
    try loop.schedule(after: .milliseconds(7)) {}
    loop.advanceTime(by: .milliseconds(10))
    let t0 = Self.start
    #expect(
      recorder.passes == [
        // The task, at once; the first pass counts its sleep from the loop's creation.
        EventLoopPassInfo(
          start: t0, timersFired: 0, tasksRun: 1, lateness: nil, asleep: .zero, busy: .zero),
        // Both 3 ms timers, on time; the first keeps the loop busy for 5 ms.
        EventLoopPassInfo(
          start: t0 + .milliseconds(3), timersFired: 2, tasksRun: 0, lateness: .zero,
          asleep: .milliseconds(3), busy: .milliseconds(5)),
        // The 7 ms timer, 1 ms late, with no sleep in between.
        EventLoopPassInfo(
          start: t0 + .milliseconds(8), timersFired: 1, tasksRun: 0,
          lateness: .milliseconds(1), asleep: .zero, busy: .zero),
      ])
    #expect(recorder.threads.allSatisfy { pthread_equal($0, pthread_self()) != 0 })
    var histogram = Array(repeating: 0, count: EventLoopStats.latenessBucketBounds.count + 1)
    histogram[0] = 1  // on time: under 10 µs
    histogram[6] = 1  // 1 ms: from 1 ms, under 5 ms
    #expect(
      loop.stats
        == EventLoopStats(
          passes: 3, wakeUps: 1, timersFired: 3, tasksRun: 1, liveTimers: 0,
          latenessHistogram: histogram))
  }

  /// A fixed-rate timer goes back on the queue at its next grid point before it
  /// fires; its lateness is measured against the deadline it was due at.
  @Test func aLateRepeatingTimersLatenessIsFromTheTickItServes() throws {
    let recorder = PassRecorder()
    let loop = VirtualEventLoop(start: Self.start, metricsDelegate: recorder)
    try loop.scheduleRepeating(firstAt: Self.start + .milliseconds(1), every: .milliseconds(1)) {
      _ in
    }
    loop.stall(for: .microseconds(2_500))
    loop.run()
    #expect(recorder.passes.map(\.lateness) == [.microseconds(1_500)])
  }

  @Test func statsCountWithoutADelegateAndReadTheSameFromAnotherThread() throws {
    let loop = VirtualEventLoop(start: Self.start)
    let handle = try loop.scheduleRepeating(after: .milliseconds(1), every: .milliseconds(1)) { _ in
    }
    try loop.schedule(after: .seconds(60)) {}
    loop.advanceTime(by: .milliseconds(3))
    let here = loop.stats
    #expect(here.passes == 4 && here.wakeUps == 3 && here.timersFired == 3)
    #expect(here.liveTimers == 2)
    #expect(here.latenessHistogram.reduce(0, +) == 3)
    let there = DispatchQueue(label: "ObservabilityTests.reader").sync { loop.stats }
    #expect(there == here)
    handle.cancel()
    loop.run()
    #expect(loop.stats.liveTimers == 1)
  }

  @Test func aRealLoopReportsOnItsOwnThread() throws {
    let sawTimer = DispatchSemaphore(value: 0)
    let recorder = PassRecorder { if $0.timersFired > 0 { sawTimer.signal() } }
    let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: recorder)
    defer { loop.shutdown() }
    let loopThread = try onLoop(loop) { pthread_self() }
    let deadline = loop.now + .milliseconds(5)
    let lateInCallback = Locked<Duration?>(nil)
    try loop.schedule(at: deadline) { lateInCallback.withLock { $0 = Deadline.now() - deadline } }
    #expect(sawTimer.wait(timeout: .now() + .seconds(30)) == .success)
    let pass = try #require(recorder.passes.last { $0.timersFired > 0 })
    let lateness = try #require(pass.lateness)
    // Measured at the pass's start, before the callback read the clock.
    let upperBound = try #require(lateInCallback.withLock { $0 })
    #expect(lateness >= .zero && lateness <= upperBound)
    #expect(pass.busy >= .zero && pass.asleep >= .zero)
    #expect(recorder.threads.allSatisfy { pthread_equal($0, loopThread) != 0 })
    let stats = loop.stats
    #expect(stats.timersFired >= 1 && stats.wakeUps >= 1 && stats.passes >= 2)
  }
}

extension EventLoopPassInfo: CustomTestStringConvertible {
  public var testDescription: String {
    "start \(start.uptimeNanoseconds) fired \(timersFired) tasks \(tasksRun) late "
      + "\(lateness.map { "\($0.wholeNanoseconds)" } ?? "nil") asleep \(asleep.wholeNanoseconds) busy \(busy.wholeNanoseconds)"
  }
}

/// The example of the Observability article and of `EventLoopMetricsDelegate`'s
/// documentation, compiled and run (the loop is shut down after).
final class SlowPassLog: EventLoopMetricsDelegate {
  func processedPass(info: EventLoopPassInfo) {  // on the loop thread, after each pass
    if info.busy > .milliseconds(5) {
      print("slow pass: \(info.timersFired) timers in \(info.busy)")
    }
  }
}

@Test func theObservabilityArticleExampleRuns() throws {
  let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: SlowPassLog())
  defer { loop.shutdown() }
  loop.onTermination { error in print("the loop stopped: \(error)") }
  let stats = loop.stats  // from any thread
  print(stats.passes, stats.wakeUps, stats.liveTimers, stats.latenessHistogram)
  #expect(stats.latenessHistogram.count == EventLoopStats.latenessBucketBounds.count + 1)
}

extension ObservabilityTests {
  /// One delegate for a group: each loop reports on its own thread, where
  /// `EpollEventLoop.current` names it.
  @Test func aGroupsLoopsEachReportOnTheirOwnThread() throws {
    let reporters = EventLog<ObjectIdentifier?>()
    let sawTimers = DispatchSemaphore(value: 0)
    let recorder = PassRecorder {
      guard $0.timersFired > 0 else { return }
      reporters.append(EpollEventLoop.current.map(ObjectIdentifier.init))
      sawTimers.signal()
    }
    let group = try EpollEventLoopGroup(count: 2, metricsDelegate: recorder)
    defer { group.shutdown() }
    for loop in group.loops { try loop.schedule(after: .milliseconds(1)) {} }
    for _ in group.loops {
      #expect(sawTimers.wait(timeout: .now() + .seconds(30)) == .success)
    }
    #expect(Set(reporters.all) == Set(group.loops.map { ObjectIdentifier($0) }))
  }
}
