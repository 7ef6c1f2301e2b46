import Dispatch
import Foundation
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// A call on the loop thread does not overtake a call that another thread
/// made and returned from before it (issue 19, item 1): the loop applies the
/// other thread's request first. Each test holds the loop thread in a
/// callback, has another thread make its call and return, and only then
/// makes the loop-thread call, so the two calls are ordered without a sleep.
@Suite struct CrossThreadOrderTests {
  @Test(arguments: LoopKind.allCases)
  func aLoopThreadDisarmAfterACrossThreadArmLeavesTheTimerDisarmed(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let handler = RecordingHandler()
    try harness.onLoop { [loop = harness.loop] in
      let key = try loop.makeTimer(handler: handler, tag: 1)
      try onAnotherThread { loop.arm(key, after: .milliseconds(1)) }
      loop.disarm(key)
    }
    try harness.advance(by: .milliseconds(20))
    #expect(handler.fired.all.isEmpty, "the earlier arm from another thread undid the disarm")
  }

  /// The idle timeout: re-armed on the loop thread after another thread disarmed it.
  @Test(arguments: LoopKind.allCases)
  func aLoopThreadArmAfterACrossThreadDisarmArmsTheTimer(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let handler = RecordingHandler()
    try harness.onLoop { [loop = harness.loop] in
      let key = try loop.makeTimer(handler: handler, tag: 1)
      loop.arm(key, after: .seconds(3600))
      try onAnotherThread { loop.disarm(key) }
      loop.arm(key, after: .milliseconds(1))
    }
    try harness.advance(by: .milliseconds(20))
    #expect(handler.fired.all == [1], "the earlier disarm from another thread undid the arm")
  }

  /// Closure and handler timers at one deadline, scheduled in turn from
  /// another thread and from the loop thread, fire in the order of the calls.
  @Test(arguments: LoopKind.allCases)
  func equalDeadlinesFireInCallOrderAcrossThreads(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    let handler = RecordingHandler()
    handler.onFire.withLock { $0 = { tag in log.append("handler \(tag)") } }
    try harness.onLoop { [loop = harness.loop] in
      let deadline = loop.now + .milliseconds(5)
      try onAnotherThread { _ = try? loop.schedule(at: deadline) { log.append("closure 1") } }
      try loop.schedule(at: deadline, handler: handler, tag: 2)
      try onAnotherThread { _ = try? loop.schedule(at: deadline, handler: handler, tag: 3) }
      try loop.schedule(at: deadline) { log.append("closure 4") }
    }
    try harness.advance(by: .milliseconds(20))
    #expect(log.all == ["closure 1", "handler 2", "handler 3", "closure 4"])
  }

  /// The later of two reschedules wins, and the loop thread reads the
  /// deadline another thread set.
  @Test(arguments: LoopKind.allCases)
  func aLoopThreadRescheduleAfterACrossThreadOneWins(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    let (soon, readBack) = try onLoop(harness.loop) { [loop = harness.loop] in
      let soon = loop.now + .milliseconds(1)
      let never = try loop.schedule(after: .seconds(3600)) { log.append("moved back to soon") }
      let due = try loop.schedule(after: .seconds(3600)) { log.append("due") }
      try onAnotherThread {
        never.reschedule(to: soon)
        due.reschedule(to: .distantFuture)
      }
      let readBack = never.deadline
      never.reschedule(to: .distantFuture)
      due.reschedule(to: soon)
      return (soon, readBack)
    }
    try harness.advance(by: .milliseconds(20))
    #expect(log.all == ["due"])
    #expect(readBack == soon, "the deadline read missed the earlier reschedule")
  }

  /// A loop-thread call that applies another thread's cancel runs no user
  /// code: the cancelled closure's captures are released by the loop before
  /// its next callback, not inside the call (whose caller may hold a lock).
  @Test(arguments: LoopKind.allCases)
  func aCancelAppliedByALoopThreadCallIsReleasedBeforeTheNextCallback(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    try harness.onLoop { [loop = harness.loop] in
      let cancelled = try loop.schedule(after: .seconds(3600)) {
        [object = CallsBackOnDeinit(loop: loop, log: log)] in _ = object
      }
      try onAnotherThread { cancelled.cancel() }
      try loop.schedule(after: .zero) { log.append("next timer") }
      log.append("callback returns")
    }
    try harness.advance(by: .milliseconds(1))
    #expect(log.all == ["callback returns", "deinit", "task from deinit", "next timer"])
  }

  /// Boot-time and wall-clock timers at one date, scheduled in turn from
  /// another thread and from the loop thread, fire in the order of the calls.
  @Test(arguments: LoopKind.allCases)
  func equalClockDatesFireInCallOrderAcrossThreads(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    let instant = harness.bootInstant(after: .milliseconds(5))
    let date = harness.loop.wallClockNow.addingTimeInterval(0.005)
    try harness.onLoop { [loop = harness.loop] in
      try onAnotherThread { _ = try? loop.schedule(at: instant) { log.append("boot 1") } }
      try loop.schedule(at: instant) { log.append("boot 2") }
      try onAnotherThread { _ = try? loop.schedule(at: date) { log.append("wall 1") } }
      try loop.schedule(at: date) { log.append("wall 2") }
    }
    try harness.advance(toBootInstant: instant)
    try harness.advance(toWallDate: date)
    #expect(log.all.filter { $0.hasPrefix("boot") } == ["boot 1", "boot 2"])
    #expect(log.all.filter { $0.hasPrefix("wall") } == ["wall 1", "wall 2"])
  }
}

/// Logs its `deinit` and queues a task on the loop from there.
private final class CallsBackOnDeinit: Sendable {
  let loop: any TimerEventLoop
  let log: EventLog<String>

  init(loop: any TimerEventLoop, log: EventLog<String>) {
    self.loop = loop
    self.log = log
  }

  deinit {
    log.append("deinit")
    _ = try? loop.execute { [log] in log.append("task from deinit") }
  }
}
