import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``EventLoopContinuousClock`` and ``TimerEventLoop/sleep(until:)-(ContinuousClock.Instant)``:
/// sleeps on the loop's boot time, which counts time suspended; cancelled and
/// shut down as the monotonic sleeps are.
@Suite(.timeLimit(.minutes(1))) struct ContinuousClockTests {
  @Test func theClockTellsTheLoopsBootTime() throws {
    let virtual = VirtualEventLoop()
    let start = virtual.continuousClock.now
    #expect(start == virtual.continuousNow)
    virtual.suspend(for: .seconds(5))
    #expect(virtual.continuousClock.now == start.advanced(by: .seconds(5)))
    let real = try EpollEventLoop()
    defer { real.shutdown() }
    let before = ContinuousClock.now
    let now = real.continuousClock.now
    #expect(before <= now && now <= ContinuousClock.now)
    #expect(real.continuousClock.minimumResolution == .nanoseconds(1))
  }

  /// Time suspended ends a boot-time sleep; a monotonic sleep of the same
  /// length goes on waiting for its running time.
  @Test func timeSuspendedCountsForABootTimeSleepAndNotForAMonotonicOne() async throws {
    let loop = VirtualEventLoop()
    let instant = loop.continuousNow.advanced(by: .seconds(10))
    let boot = Task {
      try await loop.sleep(until: instant)
      return loop.continuousNow
    }
    let monotonic = Task { try await loop.sleep(for: .seconds(10)) }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.advanceTime(by: .seconds(4))
    #expect(loop.sleepingTaskCount == 2)
    loop.suspend(for: .seconds(5))
    #expect(loop.sleepingTaskCount == 2, "resumed 1 s early")
    loop.suspend(for: .seconds(1))
    #expect(try await boot.value == instant)
    #expect(loop.sleepingTaskCount == 1)
    loop.advanceTime(by: .seconds(6))
    try await monotonic.value
    #expect(loop.sleepingTaskCount == 0)
  }

  /// Generic `Clock` code (a retry with backoff) on the boot-time clock: its
  /// waits end when a suspend covers them.
  @Test func genericClockCodeSleepsOnBootTime() async throws {
    let loop = VirtualEventLoop()
    let clock: any Clock<Duration> = loop.continuousClock
    let attempts = Tally()
    let worker = Task {
      try await retry(on: clock, attempts: 3) {
        attempts.add()
        if attempts.count < 3 { throw CancellationError() }
      }
    }
    for _ in 0..<2 {
      await loop.waitForSleepingTasks(atLeast: 1)
      loop.suspend(for: .seconds(3_600))
    }
    try await worker.value
    #expect(attempts.count == 3)
  }

  @Test func sleepsWithToleranceShareAWakeUpOnBootTimeAndNeverEndEarly() async throws {
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 30))
    let start = loop.continuousNow
    let woke = EventLog<ContinuousClock.Instant>()
    let sleepers = [Duration.milliseconds(1), .milliseconds(3)].map { duration in
      Task {
        try await loop.continuousClock.sleep(
          until: start.advanced(by: duration), tolerance: .milliseconds(10))
        woke.append(loop.continuousNow)
      }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    // Both instants move to the same point of the 8.39 ms (2^23 ns) grid.
    let grid = start.advanced(by: .nanoseconds(1 << 23))
    loop.suspend(for: .nanoseconds((1 << 23) - 1))
    #expect(loop.sleepingTaskCount == 2)
    loop.suspend(for: .nanoseconds(1))
    for sleeper in sleepers { try await sleeper.value }
    #expect(woke.all == [grid, grid])
  }

  @Test func aPastInstantResumesInTheNextPass() async throws {
    let loop = VirtualEventLoop()
    let past = loop.continuousNow.advanced(by: .seconds(-1))
    let sleeper = Task { try await loop.continuousClock.sleep(until: past) }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.run()
    try await sleeper.value
  }

  @Test(arguments: LoopKind.allCases)
  func cancellingASleepingTaskResumesItAtOnce(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let loop = harness.loop
    let sleeper = Task { try await loop.continuousClock.sleep(for: .seconds(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    sleeper.cancel()
    #expect(await sleeper.result.isCancellation)
    #expect(loop.sleepingTaskCount == 0)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsPendingSleepsAndLaterOnesWithShutdown(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    let sleeper = Task { try await loop.continuousClock.sleep(for: .seconds(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.shutdown()
    if let virtual = loop as? VirtualEventLoop { virtual.run() }  // releases on its loop thread
    #expect(await sleeper.result.isShutdown)
    #expect(loop.sleepingTaskCount == 0)
    let later = Task { try await loop.sleep(until: loop.continuousNow) }
    #expect(await later.result.isShutdown)
  }

  /// On a real loop the sleep ends on `CLOCK_BOOTTIME`, never before its
  /// instant as `ContinuousClock` reads it.
  @Test func aSleepOnARealLoopNeverEndsEarly() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    for milliseconds in [0, 1, 5, 20] {
      let instant = ContinuousClock.now.advanced(by: .milliseconds(milliseconds))
      try await loop.sleep(until: instant)
      #expect(ContinuousClock.now >= instant)
    }
  }
}
