import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

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

/// On virtual time, which of the operation and the deadline ends first is
/// decided by virtual time, in every run, whatever executor the caller is on
/// (issue 19, item 2). The operation sleeps on the loop, then yields a few
/// times, which takes no virtual time but gave the deadline, decided by real
/// time, the time to pass first.
@Suite(.timeLimit(.minutes(1))) struct VirtualTimeoutTests {
  /// An actor on the global executor, to call `withTimeout` from.
  actor Caller {
    func call(_ loop: VirtualEventLoop, sleep: Duration) async throws -> Int {
      try await loop.withTimeout(.milliseconds(10)) { try await VirtualTimeoutTests.operation(loop, sleep: sleep) }
    }

    /// Returns once no other thread holds the actor (see `withDeadline`).
    func settle() {}
  }

  static func operation(_ loop: VirtualEventLoop, sleep: Duration) async throws -> Int {
    try await loop.sleep(for: sleep)
    for _ in 0..<3 { await Task.yield() }
    return 1
  }

  /// Runs an operation sleeping `sleep` under a 10 ms timeout, advanced past
  /// both with one `advanceTime`.
  private func outcome(sleep: Duration, fromAnActor: Bool) async -> Result<Int, any Error> {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let caller = Caller()
    let task = Task {
      if fromAnActor { return try await caller.call(loop, sleep: sleep) }
      return try await loop.withTimeout(.milliseconds(10)) {
        try await Self.operation(loop, sleep: sleep)
      }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    // Until the thread that ran the call up to its sleep lets the actor go,
    // a job the loop resumes there would wait for it, in real time.
    if fromAnActor { await caller.settle() }
    loop.advanceTime(by: .milliseconds(20))
    return await task.result
  }

  @Test(arguments: [false, true])
  func anOperationEndingBeforeTheDeadlineWinsInEveryRun(fromAnActor: Bool) async throws {
    for _ in 0..<50 {
      #expect(try await outcome(sleep: .milliseconds(5), fromAnActor: fromAnActor).get() == 1)
    }
  }

  @Test(arguments: [false, true])
  func anOperationEndingAfterTheDeadlineTimesOutInEveryRun(fromAnActor: Bool) async throws {
    for _ in 0..<50 {
      #expect(await outcome(sleep: .milliseconds(15), fromAnActor: fromAnActor).isTimedOut)
    }
  }

  /// At the same instant, the deadline's timer was scheduled first and fires
  /// first: the call times out.
  @Test func anOperationEndingAtTheDeadlineTimesOutInEveryRun() async throws {
    for _ in 0..<50 {
      #expect(await outcome(sleep: .milliseconds(10), fromAnActor: false).isTimedOut)
    }
  }
}
