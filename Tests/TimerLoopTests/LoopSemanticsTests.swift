import Dispatch
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The semantic rules of ``TimerEventLoop``, each checked on both the virtual-time
/// loop and the real epoll loop.
@Suite struct LoopSemanticsTests {
  @Test(arguments: LoopKind.allCases)
  func equalDeadlinesFireInSchedulingOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    let deadline = harness.loop.now + .milliseconds(20)
    for i in [3, 1, 4, 1, 5, 9, 2, 6] {
      try harness.loop.schedule(at: deadline) { log.append(i) }
    }
    try harness.advance(by: .milliseconds(20))
    #expect(log.all == [3, 1, 4, 1, 5, 9, 2, 6])
  }

  @Test(arguments: LoopKind.allCases)
  func differentDeadlinesFireInDeadlineOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    try harness.onLoop {
      // Scheduled inside one pass, so all are due together when the loop next looks.
      for ms in [30, 10, 20, 0, 5] {
        try harness.loop.schedule(after: .milliseconds(Int64(ms))) { log.append(ms) }
      }
    }
    try harness.advance(by: .milliseconds(40))
    #expect(log.all == [0, 5, 10, 20, 30])
  }

  @Test(arguments: LoopKind.allCases)
  func timerNeverFiresBeforeItsDeadline(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let earliness = EventLog<Duration>()
    for us in stride(from: Int64(0), through: 20_000, by: 1_250) {
      let deadline = harness.loop.now + .microseconds(us)
      try harness.loop.schedule(at: deadline) { [loop = harness.loop] in
        earliness.append(deadline - loop.now)
      }
    }
    try harness.advance(by: .milliseconds(25))
    #expect(earliness.all.count == 17)
    #expect(earliness.all.allSatisfy { $0 <= .zero }, "fired early by \(earliness.all.max()!)")
  }

  @Test(arguments: LoopKind.allCases)
  func callbackCancellingASiblingDueInTheSamePassStopsIt(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    let sibling = HandleBox()
    try harness.onLoop {
      // Both scheduled inside one loop task, so a pause of the test thread
      // cannot let the first fire before the second exists.
      let deadline = harness.loop.now + .milliseconds(10)
      try harness.loop.schedule(at: deadline) {
        log.append("first")
        sibling.value?.cancel()
      }
      sibling.value = try harness.loop.schedule(at: deadline) { log.append("sibling") }
    }
    try harness.advance(by: .milliseconds(10))
    #expect(log.all == ["first"])
  }

  @Test(arguments: LoopKind.allCases)
  func zeroDelayTimerScheduledFromACallbackRunsInTheNextPass(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    // Both scheduled while the loop is held, so a pause of this thread cannot
    // let "a" fire, and its follow-ups run, before "b" exists.
    try harness.whileLoopIsHeld {
      let deadline = harness.loop.now + .milliseconds(10)
      try harness.loop.schedule(at: deadline) { [loop = harness.loop] in
        log.append("a")
        _ = try? loop.schedule(after: .zero) { log.append("zero-delay from a") }
        _ = try? loop.execute { log.append("task from a") }
      }
      try harness.loop.schedule(at: deadline) { log.append("b") }
    }
    try harness.advance(by: .milliseconds(10))
    #expect(log.all == ["a", "b", "task from a", "zero-delay from a"])
  }

  @Test(arguments: LoopKind.allCases)
  func zeroAndNegativeDelaysRunInTheNextPassInSchedulingOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    try harness.onLoop {
      try harness.loop.schedule(after: .zero) { log.append(1) }
      try harness.loop.schedule(after: .milliseconds(-5)) { log.append(2) }
      try harness.loop.schedule(after: .seconds(-500)) { log.append(3) }
      try harness.loop.schedule(after: .min) { log.append(4) }
      try harness.loop.schedule(after: Duration.seconds(-3)) { log.append(5) }
      #expect(log.all.isEmpty, "ran inside the pass that scheduled it")
    }
    try harness.advance(by: .milliseconds(1))
    #expect(log.all == [1, 2, 3, 4, 5])
  }

  @Test(arguments: LoopKind.allCases)
  func pastDeadlinesRunInTheNextPassInDeadlineOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    try harness.onLoop {
      let now = harness.loop.now
      try harness.loop.schedule(at: now) { log.append(1) }
      try harness.loop.schedule(at: now + .milliseconds(-5)) { log.append(2) }
      try harness.loop.schedule(at: .distantPast) { log.append(3) }
    }
    try harness.advance(by: .milliseconds(1))
    #expect(log.all == [3, 2, 1])
  }

  @Test(arguments: LoopKind.allCases)
  func repeatingTimerCanCancelItselfFromItsCallback(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let fires = Atomic<Int>(0)
    let third = DispatchSemaphore(value: 0)
    try harness.loop.scheduleRepeating(after: .milliseconds(2), every: .milliseconds(2)) { handle in
      if fires.add(1, ordering: .relaxed).newValue == 3 {
        handle.cancel()
        third.signal()
      }
    }
    try harness.advance(by: .milliseconds(40))
    // Waited for, not assumed done by the marker: a real loop's thread held
    // off the CPU for most of the span runs one call for the missed ticks in
    // the marker's pass. Then 20 more periods for a call after the cancel.
    #expect(third.wait(timeout: .now() + .seconds(30)) == .success)
    try harness.advance(by: .milliseconds(40))
    #expect(fires.load(ordering: .relaxed) == 3)
  }

  @Test(arguments: LoopKind.allCases)
  func oneShotCanRescheduleItselfFromItsCallback(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Duration>()
    let box = HandleBox()
    let second = DispatchSemaphore(value: 0)
    let start = harness.loop.now
    // Scheduled on the loop thread, so the box is set before the timer can fire.
    try harness.onLoop {
      box.value = try harness.loop.schedule(after: .milliseconds(5)) { [loop = harness.loop] in
        log.append(loop.now - start)
        if log.all.count == 1 { box.value?.reschedule(after: .milliseconds(5)) }
        if log.all.count == 2 { second.signal() }
      }
    }
    try harness.advance(by: .milliseconds(30))
    // Waited for, not assumed done by the marker: a real loop's thread held
    // off the CPU past the marker's deadline runs the marker in the pass that
    // makes the first call, before the rescheduled one is due. Then 20 ms
    // more for a call that should not come.
    #expect(second.wait(timeout: .now() + .seconds(30)) == .success)
    try harness.advance(by: .milliseconds(20))
    #expect(log.all.count == 2)
    #expect(log.all.last.map { $0 >= .milliseconds(10) } == true)
    try harness.onLoop {
      #expect(box.value?.deadline == nil, "a finished one-shot is still queued")
    }
  }

  @Test(arguments: LoopKind.allCases)
  func cancelledTimerNeverFiresAndCancelIsIdempotent(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let fired = Atomic<Bool>(false)
    // Cancelled while the loop is held, so a pause of this thread cannot let
    // the timer fire before the cancel.
    let handle = try harness.whileLoopIsHeld {
      let handle = try harness.loop.schedule(after: .milliseconds(5)) {
        fired.store(true, ordering: .relaxed)
      }
      handle.cancel()
      handle.cancel()
      return handle
    }
    try harness.advance(by: .milliseconds(20))
    let didFire = fired.load(ordering: .relaxed)
    #expect(!didFire)
    try harness.onLoop { #expect(handle.deadline == nil) }
  }

  /// On the loop thread the closure goes at once; from another thread, before
  /// the loop runs anything else.
  @Test(arguments: LoopKind.allCases)
  func cancelReleasesTheClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    weak var weakCanary: Canary?
    let handle: TimerHandle = try {
      let canary = Canary()
      weakCanary = canary
      return try harness.loop.schedule(after: .seconds(60)) { _ = canary }
    }()
    #expect(weakCanary != nil)
    handle.cancel()
    try harness.onLoop {}
    #expect(weakCanary == nil)
  }

  /// README, Cancel: cancelled from another thread, a closure is released by
  /// the loop before it runs anything else; here, before the next timer or
  /// task of the same pass.
  @Test(arguments: LoopKind.allCases, [false, true])
  func crossThreadCancelReleasesTheClosureBeforeTheNextCallback(kind: LoopKind, tasks: Bool)
    throws
  {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let cancelled = HandleBox()
    let watched = try {
      let canary = Canary()
      cancelled.value = try harness.loop.schedule(after: .seconds(3600)) { _ = canary }
      return WeakReference(canary)
    }()
    let cancelFromAnotherThread: @Sendable () -> Void = {
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        cancelled.value?.cancel()
        done.signal()
      }
      done.wait()
    }
    let releasedBeforeNext = Locked<Bool?>(nil)
    let next: @Sendable () -> Void = {
      releasedBeforeNext.withLock { $0 = watched.object == nil }
    }
    try harness.onLoop {
      if tasks {
        try harness.loop.execute(cancelFromAnotherThread)
        try harness.loop.execute(next)
      } else {
        let deadline = harness.loop.now + .milliseconds(1)
        try harness.loop.schedule(at: deadline, cancelFromAnotherThread)
        try harness.loop.schedule(at: deadline, next)
      }
    }
    try harness.advance(by: .milliseconds(1))
    #expect(releasedBeforeNext.withLock { $0 } == true)
  }

  @Test(arguments: LoopKind.allCases)
  func fireOfAOneShotReleasesItsClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      try harness.loop.schedule(after: .milliseconds(1)) { _ = canary }
    }()
    #expect(weakCanary != nil)
    try harness.advance(by: .milliseconds(5))
    #expect(weakCanary == nil)
  }

  @Test(arguments: LoopKind.allCases)
  func hugeDelaysNeverFireAndNeverTrap(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let fired = Atomic<Int>(0)
    let delays: [Duration] = [
      .nanoseconds(Int64.max), .nanoseconds(Int64.max) + .nanoseconds(1) / 2, .max,
      .seconds(Int64.max),
    ]
    var handles = try delays.map { delay in
      try harness.loop.schedule(after: delay) { fired.add(1, ordering: .relaxed) }
    }
    // Durations beyond what `Duration.components` can report (issue 10).
    let hugeDuration = Duration.seconds(Int64.max) * 2
    handles.append(
      try harness.loop.schedule(after: hugeDuration) { fired.add(1, ordering: .relaxed) })
    handles.append(
      try harness.loop.scheduleRepeating(after: hugeDuration, every: hugeDuration) { _ in
        fired.add(1, ordering: .relaxed)
      })
    // Pending for an hour, so the real loop cannot fire it before it moves.
    let moved = try harness.loop.schedule(after: .seconds(3600)) {
      fired.add(1, ordering: .relaxed)
    }
    moved.reschedule(after: hugeDuration)
    handles.append(moved)
    try harness.onLoop { [handles] in
      #expect(handles.allSatisfy { $0.deadline == .distantFuture })
    }
    try harness.loop.scheduleRepeating(after: .max, every: .max) { _ in
      fired.add(1, ordering: .relaxed)
    }
    try harness.advance(by: .seconds(1))
    #expect(fired.load(ordering: .relaxed) == 0)
  }

  @Test(arguments: LoopKind.allCases)
  func schedulingAfterShutdownThrowsAndReleasesTheClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    harness.loop.shutdown()
    weak var weakCanary: Canary?
    #expect(throws: TimerLoopError.shutdown) {
      let canary = Canary()
      weakCanary = canary
      try harness.loop.schedule(after: .zero) { _ = canary }
    }
    #expect(weakCanary == nil)
    #expect(throws: TimerLoopError.shutdown) { try harness.loop.execute {} }
    #expect(throws: TimerLoopError.shutdown) {
      try harness.loop.scheduleRepeating(after: .zero, every: .seconds(1)) { _ in }
    }
    harness.loop.shutdown()  // twice is fine
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownReleasesEveryPendingClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    weak var weakOneShot: Canary?
    weak var weakRepeating: Canary?
    let handle: TimerHandle = try {
      let oneShot = Canary()
      let repeating = Canary()
      weakOneShot = oneShot
      weakRepeating = repeating
      try harness.loop.scheduleRepeating(after: .seconds(1), every: .seconds(1)) { _ in
        _ = repeating
      }
      return try harness.loop.schedule(after: .seconds(3600)) { _ = oneShot }
    }()
    harness.loop.shutdown()
    #expect(weakOneShot == nil)
    #expect(weakRepeating == nil)
    handle.cancel()  // harmless after shutdown
  }

  @Test(arguments: LoopKind.allCases)
  func closuresRunOnTheLoopThreadOneAtATime(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let running = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let offLoop = Atomic<Int>(0)
    let done = DispatchGroup()
    // Schedule from several threads at once; all closures must land on one thread.
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for i in 0..<250 {
        done.enter()
        _ = try? harness.loop.schedule(after: .microseconds(Int64(i * 10))) {
          [loop = harness.loop] in
          if running.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
            overlaps.add(1, ordering: .relaxed)
          }
          if !loop.inEventLoop { offLoop.add(1, ordering: .relaxed) }
          running.subtract(1, ordering: .sequentiallyConsistent)
          done.leave()
        }
      }
    }
    try harness.advance(by: .milliseconds(10))
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(overlaps.load(ordering: .relaxed) == 0)
    #expect(offLoop.load(ordering: .relaxed) == 0)
  }
}
