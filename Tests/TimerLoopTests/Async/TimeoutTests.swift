import Testing

@testable import TimerLoop

/// ``TimerEventLoop/withDeadline(_:operation:)`` and `withTimeout`: the result or
/// a timeout, one timer, gone when the call returns.
@Suite(.timeLimit(.minutes(1))) struct TimeoutTests {
  @Test func theOperationsResultIsReturnedWhenItFinishesFirst() async throws {
    let loop = VirtualEventLoop()
    #expect(try await loop.withTimeout(.seconds(1)) { 42 } == 42)
    #expect(try await loop.withTimeout(Duration.seconds(1)) { "duration" } == "duration")
    loop.run()
    #expect(loop.liveTimerCount == 0)
    #expect(loop.sleepingTaskCount == 0)
  }

  @Test func theOperationsErrorIsRethrownWhenItFinishesFirst() async throws {
    let loop = VirtualEventLoop()
    await #expect(throws: Failure()) {
      try await loop.withDeadline(loop.now + .seconds(1)) { throw Failure() }
    }
    loop.run()
    #expect(loop.liveTimerCount == 0)
  }

  @Test func theDeadlineCancelsTheOperationAndThrowsTimedOut() async throws {
    let loop = VirtualEventLoop()
    let caller = Task {
      try await loop.withTimeout(.seconds(1)) {
        try await loop.sleep(for: .seconds(10))
        return 1
      }
    }
    await loop.waitForSleepingTasks(atLeast: 2)  // the deadline and the operation
    loop.advanceTime(by: .milliseconds(999))
    #expect(loop.sleepingTaskCount == 2)
    loop.advanceTime(by: .milliseconds(1))
    #expect(await caller.result.isTimedOut)
    loop.run()
    #expect(loop.liveTimerCount == 0)
    #expect(loop.sleepingTaskCount == 0)
  }

  @Test func aDeadlineInThePastTimesOutInTheNextPass() async throws {
    let loop = VirtualEventLoop()
    let caller = Task {
      try await loop.withDeadline(.distantPast) { try await loop.sleep(for: .seconds(10)) }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.run()
    #expect(await caller.result.isTimedOut)
  }

  /// The documented outcome for an operation that ignores cancellation: the
  /// call waits for it, then throws `timedOut` and drops its late result.
  @Test func anOperationIgnoringCancellationDelaysTheTimeoutUntilItReturns() async throws {
    let loop = VirtualEventLoop()
    let cancelled = Gate()
    let release = Gate()
    let finished = Tally()
    let caller = Task {
      defer { finished.add() }
      return try await loop.withTimeout(.seconds(1)) {
        await withTaskCancellationHandler {
          await release.wait()
        } onCancel: {
          cancelled.open()
        }
        return 7
      }
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .seconds(1))
    await cancelled.wait()
    #expect(finished.count == 0, "returned while its operation was still running")
    release.open()
    #expect(await caller.result.isTimedOut)
  }

  @Test func cancellingTheCallerCancelsTheOperationAndTheTimer() async throws {
    let loop = VirtualEventLoop()
    let caller = Task {
      try await loop.withTimeout(.seconds(10)) { try await loop.sleep(for: .seconds(100)) }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    caller.cancel()
    #expect(await caller.result.isCancellation)
    loop.run()
    #expect(loop.liveTimerCount == 0)
  }

  @Test func aRealLoopTimesOutNoEarlierThanTheDeadline() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    let before = try liveTimers(loop)
    let start = Deadline.now()
    let result = await Task {
      try await loop.withTimeout(.milliseconds(10)) { try await loop.sleep(for: .seconds(3_600)) }
    }.result
    #expect(result.isTimedOut)
    #expect(Deadline.now() - start >= .milliseconds(10))
    #expect(try liveTimers(loop) == before)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsPendingTimeoutsWithShutdown(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    weak var canary: Canary?
    let caller: Task<Void, any Error>
    do {
      let captured = Canary()
      canary = captured
      caller = Task {
        try await loop.withTimeout(.seconds(3_600)) {
          try await loop.sleep(for: .seconds(7_200))
          withExtendedLifetime(captured) {}
        }
      }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.shutdown()
    if let virtual = loop as? VirtualEventLoop { virtual.run() }  // releases on its loop thread
    #expect(await caller.result.isShutdown)
    #expect(canary == nil)
    let later = await Task { try await loop.withTimeout(.seconds(1)) { 1 } }.result
    #expect(later.isShutdown)
  }
}
