import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing
import TimerLoop
import TimerLoopNIO

/// The semantic rules of ``TimerEventLoop`` (TimerLoop's LoopSemanticsTests),
/// each checked on a loop of a `MultiThreadedEventLoopGroup` and on an
/// `EmbeddedEventLoop`.
@Suite struct NIOLoopSemanticsTests {
  @Test(arguments: NIOLoopKind.allCases)
  func equalDeadlinesFireInSchedulingOrder(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<Int>()
    let timers = harness.timers
    try harness.onLoop {
      let deadline = timers.now + .milliseconds(20)
      for i in [3, 1, 4, 1, 5, 9, 2, 6] {
        try timers.schedule(at: deadline) { log.append(i) }
      }
    }
    try harness.advance(by: .milliseconds(20))
    #expect(log.all == [3, 1, 4, 1, 5, 9, 2, 6])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func differentDeadlinesFireInDeadlineOrder(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<Int>()
    let timers = harness.timers
    try harness.onLoop {
      for ms in [30, 10, 20, 0, 5] {
        try timers.schedule(after: .milliseconds(Int64(ms))) { log.append(ms) }
      }
    }
    try harness.advance(by: .milliseconds(30))
    #expect(log.all == [0, 5, 10, 20, 30])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func neverFiresBeforeItsDeadline(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let early = EventLog<Deadline>()
    let timers = harness.timers
    try harness.onLoop {
      for ms in [1, 2, 3, 5, 8, 13] {
        let deadline = timers.now + .milliseconds(Int64(ms))
        try timers.schedule(at: deadline) { if timers.now < deadline { early.append(deadline) } }
      }
    }
    try harness.advance(by: .milliseconds(13))
    #expect(early.all.isEmpty)
  }

  /// On NIO's virtual time the boundary is exact: one nanosecond short of
  /// the deadline runs nothing; the deadline itself runs the timer.
  @Test func embeddedTimeDrivesTimersToTheNanosecond() throws {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    let fired = EventLog<Deadline>()
    #expect(timers.now == Deadline(loop.now))
    try timers.schedule(after: .milliseconds(10)) { fired.append(timers.now) }
    loop.advanceTime(by: .nanoseconds(9_999_999))
    #expect(fired.all.isEmpty)
    loop.advanceTime(by: .nanoseconds(1))
    #expect(fired.all == [Deadline(uptimeNanoseconds: 10_000_000)])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func workAddedByACallbackRunsInTheNextPass(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<String>()
    let timers = harness.timers
    try harness.onLoop {
      let deadline = timers.now + .milliseconds(5)
      try timers.schedule(at: deadline) {
        log.append("first")
        _ = try? timers.schedule(after: .zero) { log.append("added") }
      }
      try timers.schedule(at: deadline) { log.append("second") }
    }
    try harness.advance(by: .milliseconds(5))
    #expect(log.all == ["first", "second", "added"])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func aCallbackCancelsASiblingDueInTheSamePass(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<String>()
    let timers = harness.timers
    try harness.onLoop {
      let deadline = timers.now + .milliseconds(5)
      let sibling = Mutex<TimerHandle?>(nil)
      try timers.schedule(at: deadline) {
        log.append("first")
        sibling.withLock { $0?.cancel() }
      }
      let handle = try timers.schedule(at: deadline) { log.append("sibling") }
      sibling.withLock { $0 = handle }
    }
    try harness.advance(by: .milliseconds(5))
    #expect(log.all == ["first"])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func cancelReleasesTheClosureAndRescheduleMovesTheTimer(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<String>()
    let timers = harness.timers
    var canary: Canary? = Canary()
    let watched = WeakReference(canary!)
    let target = Mutex(Deadline.distantFuture)
    let (cancelled, moved) = try harness.onLoop { [canary] in
      let cancelled = try timers.schedule(after: .seconds(10)) { withExtendedLifetime(canary) {} }
      let moved = try timers.schedule(after: .seconds(10)) {
        log.append(timers.now >= target.withLock { $0 } ? "moved" : "early")
      }
      return (cancelled, moved)
    }
    canary = nil
    cancelled.cancel()
    try harness.onLoop { #expect(watched.object == nil) }
    try harness.onLoop {
      let deadline = timers.now + .milliseconds(20)
      target.withLock { $0 = deadline }
      moved.reschedule(to: deadline)
    }
    if kind == .embedded {
      try harness.advance(by: .milliseconds(19))
      #expect(log.all.isEmpty)
      try harness.advance(by: .milliseconds(1))
    } else {
      try harness.advance(by: .milliseconds(20))
    }
    #expect(log.all == ["moved"])
  }

  @Test(arguments: NIOLoopKind.allCases)
  func aRepeatingTimerStaysOnItsGridAndCancelsItself(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let ticks = EventLog<Deadline>()
    let third = DispatchSemaphore(value: 0)
    let timers = harness.timers
    let first = try harness.onLoop {
      let first = timers.now + .milliseconds(10)
      try timers.scheduleRepeating(firstAt: first, every: .milliseconds(10)) { handle in
        ticks.append(timers.now)
        if ticks.all.count == 3 {
          handle.cancel()
          third.signal()
        }
      }
      return first
    }
    if kind == .embedded {
      try harness.advance(by: .milliseconds(50))
      #expect(ticks.all == [first, first + .milliseconds(10), first + .milliseconds(20)])
    } else {
      // A loaded machine may make the real loop skip ticks (fixed rate), so
      // it waits for the third, whenever it comes, and then for a marker.
      #expect(third.wait(timeout: .now() + .seconds(30)) == .success)
      try harness.advance(by: .milliseconds(20))
      #expect(ticks.all.count == 3)
      #expect(ticks.all.allSatisfy { $0 >= first })  // never before the first deadline
    }
  }

  @Test(arguments: NIOLoopKind.allCases)
  func badInputHasItsDocumentedOutcome(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let log = EventLog<String>()
    let timers = harness.timers
    try harness.onLoop {
      try timers.schedule(after: .milliseconds(-5)) { log.append("negative") }
      try timers.schedule(after: .zero) { log.append("zero") }
      try timers.schedule(after: Duration.seconds(Int64.max)) { log.append("huge") }
      try timers.schedule(at: .distantFuture) { log.append("never") }
    }
    try harness.advance(by: .milliseconds(1))
    #expect(log.all == ["negative", "zero"])
    // Pending forever, and the loop still answers.
    try harness.onLoop { #expect(timers.liveTimerCount == 2) }
  }

  /// A repeat interval under 0.1 ms (zero here) repeats every 0.1 ms, as
  /// Apple's `Timer` does, so it cannot spin the loop: on NIO's virtual time,
  /// eleven calls in 1 ms.
  @Test func aZeroRepeatIntervalRepeatsEveryTenthOfAMillisecond() throws {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    let calls = EventLog<Deadline>()
    let start = timers.now
    try timers.scheduleRepeating(after: .zero, every: .zero) { _ in calls.append(timers.now) }
    loop.advanceTime(by: .milliseconds(1))
    #expect(calls.all == (0...10).map { start + .microseconds(100 * $0) })
  }

  @Test(arguments: NIOLoopKind.allCases)
  func handlerTimersArmAndDisarmOnTheLoopThread(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let handler = RecordingHandler()
    let timers = harness.timers
    let key = try harness.onLoop {
      let key = try timers.makeTimer(handler: handler, tag: 7)
      timers.arm(key, at: timers.now + .milliseconds(5))
      timers.arm(key, at: timers.now + .milliseconds(10))  // moved out: only this one fires
      return key
    }
    try harness.advance(by: .milliseconds(10))
    #expect(handler.tags.all == [7])
    try harness.onLoop {
      timers.arm(key, at: timers.now + .milliseconds(5))
      timers.disarm(key)
    }
    try harness.advance(by: .milliseconds(10))
    #expect(handler.tags.all == [7])
    try harness.onLoop { timers.invalidate(key) }
  }
}

/// Records the tags of its firings.
final class RecordingHandler: TimerHandler, Sendable {
  let tags = EventLog<UInt64>()
  func timerFired(tag: UInt64) { tags.append(tag) }
}
