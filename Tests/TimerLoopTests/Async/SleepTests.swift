import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/sleep(until:)`` and its forms: never early, one timer, and
/// exactly one resumption whether the timer fires, the task is cancelled or
/// the loop shuts down.
@Suite(.timeLimit(.minutes(2))) struct SleepTests {
  @Test func aSleepResumesAtItsDeadlineOnVirtualTimeAndNotBefore() async throws {
    let loop = VirtualEventLoop()
    let deadline = loop.now + .milliseconds(10)
    let sleeper = Task {
      try await loop.sleep(for: .milliseconds(10))
      return loop.now
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(9))
    #expect(loop.sleepingTaskCount == 1, "resumed 1 ms early")
    loop.advanceTime(by: .milliseconds(1))
    #expect(loop.sleepingTaskCount == 0)
    #expect(try await sleeper.value == deadline)
    loop.run()  // on this thread, so that it may read the table
    #expect(loop.liveTimerCount == 0)
  }

  @Test func theDurationAndDeadlineFormsAllUseOneTimer() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let sleepers = [
      Task { try await loop.sleep(for: Duration.milliseconds(3)) },
      Task { try await loop.sleep(for: Duration.milliseconds(2)) },
      Task { try await loop.sleep(until: start + .milliseconds(1)) },
    ]
    await loop.waitForSleepingTasks(atLeast: 3)
    loop.run()
    #expect(loop.liveTimerCount == 3)
    loop.advanceTime(by: .milliseconds(3))
    for sleeper in sleepers { try await sleeper.value }
    loop.run()  // on this thread, so that it may read the table
    #expect(loop.liveTimerCount == 0)
  }

  @Test func zeroNegativeAndPastSleepsResumeInTheNextPass() async throws {
    let loop = VirtualEventLoop()
    let sleepers = [
      Task { try await loop.sleep(for: .zero) },
      Task { try await loop.sleep(for: .milliseconds(-5)) },
      Task { try await loop.sleep(until: .distantPast) },
    ]
    await loop.waitForSleepingTasks(atLeast: 3)
    loop.run()
    for sleeper in sleepers { try await sleeper.value }
  }

  @Test(arguments: LoopKind.allCases)
  func cancellingASleepingTaskResumesItAtOnceAndRemovesItsTimer(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let loop = harness.loop
    let before = try liveTimers(loop)
    let sleeper = Task { try await loop.sleep(for: .seconds(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    #expect(try liveTimers(loop) == before + 1)
    sleeper.cancel()
    #expect(await sleeper.result.isCancellation)
    #expect(loop.sleepingTaskCount == 0)
    #expect(try liveTimers(loop) == before)
  }

  @Test func aTaskCancelledBeforeItSleepsThrowsWithoutSchedulingATimer() async throws {
    let loop = VirtualEventLoop()
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await loop.sleep(for: .seconds(1))
    }
    #expect(await sleeper.result.isCancellation)
    loop.run()
    #expect(loop.liveTimerCount == 0)
    #expect(loop.sleepingTaskCount == 0)
  }

  /// Cancellation racing the timer's firing, on a real loop: each sleep ends
  /// exactly once, one way or the other, and no timer is left behind.
  @Test func cancellationRacingTheTimerResumesEachSleepOnce() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop", leeway: .zero)
    defer { loop.shutdown() }
    var outcomes = (returned: 0, cancelled: 0)
    for round in 0..<1_000 {
      let sleeper = Task { try await loop.sleep(for: .microseconds(Int64(round % 50))) }
      for _ in 0..<(round % 7) * 100 { await Task.yield() }
      sleeper.cancel()
      switch await sleeper.result {
      case .success: outcomes.returned += 1
      case .failure(let error):
        #expect(error is CancellationError)
        outcomes.cancelled += 1
      }
    }
    #expect(outcomes.returned + outcomes.cancelled == 1_000)
    #expect(loop.sleepingTaskCount == 0)
    #expect(try liveTimers(loop) == 0)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsPendingSleepsAndLaterOnesWithShutdown(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    weak var canary: Canary?
    var sleepers: [Task<Void, any Error>] = []
    for hours in 1...10 {
      let captured = Canary()
      canary = captured
      sleepers.append(
        Task {
          try await loop.sleep(for: .seconds(3_600 * Int64(hours)))
          withExtendedLifetime(captured) {}
        })
    }
    await loop.waitForSleepingTasks(atLeast: 10)
    loop.shutdown()
    if let virtual = loop as? VirtualEventLoop { virtual.run() }  // releases on its loop thread
    for sleeper in sleepers { #expect(await sleeper.result.isShutdown) }
    #expect(canary == nil)
    #expect(loop.sleepingTaskCount == 0)
    let later = Task { try await loop.sleep(for: .zero) }
    #expect(await later.result.isShutdown)
  }

  /// Shutdown from another thread while sleeps are being scheduled, firing
  /// and cancelled: every sleep ends, each exactly once.
  @Test func shutdownRacingSleepsEndsEveryOne() async throws {
    for _ in 0..<20 {
      let loop = try EpollEventLoop.startOnNewThread(name: "test-loop", leeway: .zero)
      let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
        for index in 0..<200 {
          group.addTask {
            do {
              try await loop.sleep(for: .microseconds(Int64(index * 5)))
            } catch let error as TimerLoopError {
              #expect(error == .shutdown)
            }
            return true
          }
        }
        group.addTask {
          for _ in 0..<50 { await Task.yield() }
          loop.shutdown()
          return false
        }
        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
      #expect(ended == 200)
      #expect(loop.sleepingTaskCount == 0)
    }
  }

  /// 100,000 tasks sleeping at once on one real loop: all resume, none early.
  /// Under ThreadSanitizer, which makes it about ten times slower, 10,000.
  /// `TIMERLOOP_SLEEP_TEST_TASKS` sets another count.
  @Test func manyConcurrentSleepsOnOneLoopAllResumeNoneEarly() async throws {
    let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
    let count =
      ProcessInfo.processInfo.environment["TIMERLOOP_SLEEP_TEST_TASKS"].flatMap { Int($0) }
      ?? (underThreadSanitizer ? 10_000 : 100_000)
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    let early = Tally()
    let resumed = Tally()
    try await withThrowingDiscardingTaskGroup { group in
      for index in 0..<count {
        group.addTask {
          let deadline = loop.now + .microseconds(Int64(1_000 + (index * 7_919) % 200_000))
          try await loop.sleep(until: deadline)
          if Deadline.now() < deadline { early.add() }
          resumed.add()
        }
      }
    }
    #expect(resumed.count == count)
    #expect(early.count == 0)
    #expect(loop.sleepingTaskCount == 0)
    #expect(try liveTimers(loop) == 0)
  }

  /// A sleep cancelled from a thread other than the loop's leaves its cancel
  /// in the loop's inbox; a virtual loop that is then let go, never driven
  /// again, is freed. (The sleep held the scheduler, and the timer's closure
  /// the sleep: a cycle LeakSanitizer reported in three suites' tests.)
  @Test func aVirtualLoopLetGoWithACrossThreadCancelInItsInboxIsFreed() async throws {
    weak var weakScheduler: TimerScheduler?
    do {
      // Made on a thread of its own, which ends: every call below is from
      // another thread. Handed over through a lock, which ThreadSanitizer
      // sees (a continuation resumed from that thread drew a false report).
      let made = Locked<VirtualEventLoop?>(nil)
      let ready = DispatchSemaphore(value: 0)
      Thread {
        made.withLock { $0 = VirtualEventLoop() }
        ready.signal()
      }.start()
      ready.wait()
      let loop = try #require(made.withLock { $0.take() })  // the thread may outlive this scope
      weakScheduler = loop.scheduler
      // A child task, not a Task: the group has released it, with the loop
      // it captured, when it returns (a Task's closure could outlive its result).
      let cancelled = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          do {
            try await loop.sleep(for: .seconds(10))
            return false
          } catch {
            return error is CancellationError
          }
        }
        await loop.waitForSleepingTasks(atLeast: 1)
        group.cancelAll()
        return await group.next() ?? false
      }
      #expect(cancelled)
    }
    #expect(weakScheduler == nil, "the loop's scheduler leaked")
  }
}
