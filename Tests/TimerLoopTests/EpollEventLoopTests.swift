import Dispatch
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Behaviour only the real loop has: threads, the timerfd, the eventfd.
@Suite struct EpollEventLoopTests {
  @Test func timerfdIsArmedOnlyForTheEarliestDeadlineAndDisarmedWhenTheLastTimerIsCancelled() throws
  {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let late = try loop.schedule(after: .seconds(7200)) {}
    let early = try loop.schedule(after: .seconds(3600)) {}
    // Two round trips: the first pass arms the timerfd after running the task.
    _ = try onLoop(loop) {}
    // Armed for the earliest deadline plus at most the leeway, not for the later one.
    #expect(
      try onLoop(loop) {
        guard let armed = loop.testsOnly_armedDeadline, let deadline = early.deadline else {
          return false
        }
        return armed >= deadline && armed <= deadline + loop.leeway
      })
    early.cancel()
    late.cancel()
    _ = try onLoop(loop) {}
    #expect(try onLoop(loop) { loop.testsOnly_armedDeadline == nil })
  }

  @Test func pendingTimersThatNeverFireLeaveTheTimerfdDisarmed() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try loop.schedule(after: .max) {}
    try loop.scheduleRepeating(after: .seconds(Int64.max), every: .seconds(1)) { _ in }
    _ = try onLoop(loop) {}
    // Disarmed: the loop sleeps in epoll_wait with no timeout, costing no CPU.
    #expect(try onLoop(loop) { loop.testsOnly_armedDeadline == nil })
  }

  @Test func aBurstOfCrossThreadCallsCostsOneWakeUp() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    // Hold the loop thread inside a task so the burst arrives while it is busy.
    let release = try holdLoopThread(loop)
    let before = loop.scheduler.wakeUpWrites.load(ordering: .relaxed)
    let ran = Atomic<Int>(0)
    for _ in 0..<1_000 { try loop.execute { ran.add(1, ordering: .relaxed) } }
    for i in 0..<1_000 {
      try loop.schedule(after: .nanoseconds(Int64(-i))) { ran.add(1, ordering: .relaxed) }
    }
    // One write, or none when the wake-up that delivered the blocking task is
    // still unread: either way the burst does not cost a write per call.
    #expect(loop.scheduler.wakeUpWrites.load(ordering: .relaxed) - before <= 1)
    release.signal()
    // Tasks run before timers within a pass; the second round trip follows both.
    _ = try onLoop(loop) {}
    _ = try onLoop(loop) {}
    #expect(ran.load(ordering: .relaxed) == 2_000)
  }

  @Test func crossThreadScheduleOfAnEarlierTimerWakesTheSleepingLoop() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try loop.schedule(after: .seconds(3600)) {}
    _ = try onLoop(loop) {}
    let fired = DispatchSemaphore(value: 0)
    try loop.schedule(after: .milliseconds(1)) { fired.signal() }
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
  }

  @Test func currentIsTheLoopRunningOnThisThread() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    #expect(EpollEventLoop.current == nil)
    #expect(!loop.inEventLoop)
    #expect(try onLoop(loop) { EpollEventLoop.current === loop && loop.inEventLoop })
  }

  @Test func runReturnsAtOnceForALoopAlreadyStartedOnItsOwnThread() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    // Straight after the start, before the new thread is known to run: run()
    // must not take the loop over (it would block this thread for good).
    try loop.run()
    let onThisThread = try onLoop(loop) { pthread_self() }
    #expect(onThisThread != pthread_self())
  }

  @Test func runOnTheCallingThreadReturnsAfterShutdownFromACallback() throws {
    let loop = try EpollEventLoop()
    let log = EventLog<String>()
    try loop.schedule(after: .milliseconds(1)) {
      log.append("timer")
      loop.shutdown()
      log.append("after shutdown")
    }
    try loop.schedule(after: .milliseconds(1)) { log.append("sibling after shutdown") }
    try loop.run()
    #expect(log.all == ["timer", "after shutdown"])
    #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
    try loop.run()  // returns at once: the loop has stopped for good
  }

  @Test func shutdownFromAnotherThreadWaitsForTheRunningCallback() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    let entered = DispatchSemaphore(value: 0)
    let finished = Atomic<Bool>(false)
    try loop.execute {
      entered.signal()
      // Busy for a while so that shutdown() is called while this runs.
      let end = Deadline.now() + .milliseconds(50)
      while Deadline.now() < end {}
      finished.store(true, ordering: .relaxed)
    }
    #expect(entered.wait(timeout: .now() + .seconds(30)) == .success)
    loop.shutdown()
    let finishedBeforeShutdownReturned = finished.load(ordering: .relaxed)
    #expect(finishedBeforeShutdownReturned)
  }

  /// Other threads keep scheduling while the loop shuts down: every call
  /// either schedules or throws `.shutdown`, nothing crashes or hangs, and in
  /// the end every closure has been released.
  @Test func shutdownWhileOtherThreadsScheduleReleasesEverything() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    let released = Atomic<Int>(0)
    let created = Atomic<Int>(0)
    final class Counted: Sendable {
      let released: @Sendable () -> Void
      init(_ released: @escaping @Sendable () -> Void) { self.released = released }
      deinit { released() }
    }
    let started = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for thread in 0..<4 {
      DispatchQueue.global().async(group: group) {
        started.signal()
        for i in 0..<2_000 {
          created.add(1, ordering: .relaxed)
          let counted = Counted { released.add(1, ordering: .relaxed) }
          let delay = Duration.microseconds(Int64((i * 37 + thread) % 5_000))
          _ = try? loop.schedule(after: delay) { _ = counted }
        }
      }
    }
    for _ in 0..<4 { #expect(started.wait(timeout: .now() + .seconds(30)) == .success) }
    loop.shutdown()
    #expect(group.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(released.load(ordering: .relaxed) == created.load(ordering: .relaxed))
  }

  /// The timerfd ticks periodically while timers are dense; a timer due
  /// before its first tick must re-arm it rather than wait for that tick.
  /// Checked on the timerfd, in the pass after the one that armed it, before
  /// the timer can fire: no pause of the machine can change what it finds.
  @Test func anEarlierTimerIsNotHeldBackByAPeriodicTimerfd() throws {
    let leeway = Duration.seconds(1)
    let loop = try EpollEventLoop.startOnNewThread(leeway: leeway)
    defer { loop.shutdown() }
    // 3.5 s is within 4 leeways: the timerfd ticks every second from then.
    try loop.schedule(after: .milliseconds(3_500)) {}
    _ = try onLoop(loop) {}
    _ = try onLoop(loop) {}  // armed by now
    let seen = Locked<(deadline: Deadline, armed: Deadline?)?>(nil)
    let read = DispatchSemaphore(value: 0)
    try loop.execute {
      let deadline = loop.now + .milliseconds(100)
      _ = try? loop.schedule(at: deadline) {}
      // Runs in the next pass: after this one has armed the timerfd, and
      // before the timer, since a pass runs its tasks first.
      _ = try? loop.execute {
        seen.withLock { $0 = (deadline, loop.testsOnly_armedDeadline) }
        read.signal()
      }
    }
    #expect(read.wait(timeout: .now() + .seconds(30)) == .success)
    let (deadline, armed) = try #require(seen.withLock { $0 })
    let armedFor = try #require(armed, "the timerfd is disarmed")
    #expect(
      armedFor >= deadline && armedFor <= deadline + leeway,
      "armed for the periodic tick, \(armedFor - deadline) after the timer")
  }

  /// A closure released as the loop stops may own the loop and shut it down
  /// in its `deinit`; that must not wait for the very thread running it.
  @Test func aDeinitThatShutsTheLoopDownWhileItStopsDoesNotDeadlock() throws {
    final class Owner: Sendable {
      let loop: EpollEventLoop
      init(_ loop: EpollEventLoop) { self.loop = loop }
      deinit { loop.shutdown() }
    }
    let loop = try EpollEventLoop.startOnNewThread()
    try {
      let owner = Owner(loop)
      try loop.schedule(after: .seconds(3600)) { _ = owner }
    }()
    let stopped = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      loop.shutdown()
      stopped.signal()
    }
    #expect(stopped.wait(timeout: .now() + .seconds(30)) == .success, "shutdown() deadlocked")
  }

  /// Requests from another thread apply as one batch before any of the
  /// closures they release runs its `deinit`: a `deinit` (from cancelling A)
  /// that cancels B, scheduled later in the same batch, finds B and stops it.
  @Test func aDeinitRunByACrossThreadCancelSeesTheWholeBatch() throws {
    final class CancelsOnDeinit: Sendable {
      let victim: HandleBox
      init(_ victim: HandleBox) { self.victim = victim }
      deinit { victim.value?.cancel() }
    }
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    // Hold the loop thread so that the requests below arrive as one batch.
    let release = try holdLoopThread(loop)
    let victim = HandleBox()
    let fired = Atomic<Bool>(false)
    let a: TimerHandle = try {
      let guardian = CancelsOnDeinit(victim)
      return try loop.schedule(after: .seconds(3600)) { _ = guardian }
    }()
    a.cancel()
    victim.value = try loop.schedule(after: .zero) { fired.store(true, ordering: .relaxed) }
    release.signal()
    _ = try onLoop(loop) {}
    _ = try onLoop(loop) {}
    let victimFired = fired.load(ordering: .relaxed)
    #expect(!victimFired, "the deinit's cancel was lost")
  }

  /// What cancel() promises about a call already running: it is neither
  /// interrupted nor waited for, and no call starts after it.
  @Test func cancelDoesNotWaitForOrInterruptACallAlreadyRunning() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let entered = DispatchSemaphore(value: 0)
    let finish = DispatchSemaphore(value: 0)
    let calls = Atomic<Int>(0)
    let finished = Atomic<Bool>(false)
    let handle = try loop.scheduleRepeating(after: .zero, every: .milliseconds(1)) { _ in
      guard calls.add(1, ordering: .relaxed).newValue == 1 else { return }
      entered.signal()
      finish.wait()
      finished.store(true, ordering: .relaxed)
    }
    #expect(entered.wait(timeout: .now() + .seconds(30)) == .success)
    handle.cancel()  // returns while the first call is still blocked in it
    let finishedBeforeCancelReturned = finished.load(ordering: .relaxed)
    #expect(!finishedBeforeCancelReturned)
    finish.signal()
    _ = try onLoop(loop) {}
    _ = try onLoop(loop) {}
    let ranToTheEnd = finished.load(ordering: .relaxed)
    #expect(ranToTheEnd, "the running call was interrupted")
    #expect(calls.load(ordering: .relaxed) == 1, "a call started after cancel() returned")
  }

  @Test func cancelFromAnotherThreadStopsARepeatingTimer() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let fires = Atomic<Int>(0)
    let third = DispatchSemaphore(value: 0)
    let handle = try loop.scheduleRepeating(after: .zero, every: .microseconds(200)) { _ in
      if fires.add(1, ordering: .relaxed).newValue == 3 { third.signal() }
    }
    #expect(third.wait(timeout: .now() + .seconds(30)) == .success)
    handle.cancel()
    // A call the loop had committed to before cancel() returned may not
    // have counted itself yet (cancel() does not wait for it); it has once
    // a task sent now has run.
    _ = try onLoop(loop) {}
    let afterCancel = fires.load(ordering: .relaxed)
    // 25 periods later, by a timer of the loop.
    try LoopHarness.wait(on: loop, for: .milliseconds(5))
    #expect(fires.load(ordering: .relaxed) == afterCancel, "a call started after cancel() returned")
  }
}
