import Dispatch
import Synchronization
import Testing

import TimerLoop
import TimerLoopEpoll
@_spi(TimerLoopHost) @testable import TimerLoopCore

/// ``VirtualEventLoop/advance(to:)``, the asynchronous advance, and the loop
/// handed back after it: each test pins one sentence of its documentation
/// (issue 19, item 7).
@Suite(.timeLimit(.minutes(1))) struct AsyncAdvanceTests {
  @Test func theDocumentedExampleWakesAtEachSecond() async throws {
    for _ in 0..<20 {
      #expect(try await asyncAdvanceExample() == [.seconds(1), .seconds(2), .seconds(3)])
    }
  }

  /// Three tasks on the loop, started by the test with no
  /// `waitForSleepingTasks`, interleave the same way in every run of one
  /// call (``VirtualTimeTests`` steps 1 ms at a time after waiting for
  /// plain tasks to sleep).
  @Test func tasksOnTheLoopInterleaveTheSameWayInOneCall() async throws {
    let expected = [
      "C25", "A30", "B45", "A60", "B65", "B85", "A90", "C100", "B105", "A120", "B125", "B145",
      "A150",
    ]
    for _ in 0..<10 {
      let loop = VirtualEventLoop()
      let start = loop.now
      let log = EventLog<String>()
      @Sendable func record(_ name: String) {
        log.append("\(name)\((loop.now - start).wholeNanoseconds / 1_000_000)")
      }
      let tasks = [
        Task(executorPreference: loop) {
          for await _ in loop.ticks(every: .milliseconds(30)) { record("A") }
        },
        Task(executorPreference: loop) {
          do {
            try await loop.sleep(for: .milliseconds(45))
            while true {
              record("B")
              try await loop.sleep(for: .milliseconds(20))
            }
          } catch {}
        },
        Task(executorPreference: loop) {
          let clock: any Clock<Duration> = loop.clock
          var backoff = Duration.milliseconds(25)
          do {
            while true {
              try await clock.sleep(for: backoff)
              record("C")
              backoff *= 3
            }
          } catch {}
        },
      ]
      await loop.advance(by: .milliseconds(150))
      #expect(log.all == expected)
      #expect(loop.now == start + .milliseconds(150))
      for task in tasks { task.cancel() }
      await loop.advance(by: .zero)  // the cancelled tasks end on the loop
      for task in tasks { await task.value }
    }
  }

  /// An actor pinned to the loop, called from a task that prefers the loop,
  /// sleeps three times on the loop: the sleeps run on the actor's
  /// isolation, so each wake-up runs on the loop, in the pass that fires it,
  /// before the clock moves on, and the task needs no `waitForSleepingTasks`.
  @Test func anActorPinnedToTheLoopWakesAtEachDeadlineInOneCall() async throws {
    for _ in 0..<20 {
      let loop = VirtualEventLoop()
      let worker = PinnedSleeper(loop: loop)
      let task = Task(executorPreference: loop) { try await worker.sleepThreeTimes() }
      await loop.advance(by: .seconds(3))
      let wakes = await valueWithin30Seconds { await worker.wakes }
      #expect(wakes == [.seconds(1), .seconds(2), .seconds(3)])
      try await task.value
    }
  }

  /// Work another thread sends during a pass is taken in before the clock
  /// moves: a callback at 1 ms has another thread `execute` a closure and
  /// waits until the call has returned; the closure runs at 1 ms. (The
  /// synchronous `advanceTime` runs it in the pass at the next deadline, 2 ms.)
  @Test func workSentFromAnotherThreadRunsBeforeTheClockMoves() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let ranAt = Locked<Duration?>(nil)
    try loop.schedule(after: .milliseconds(1)) {
      let sent = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        try? loop.execute { ranAt.withLock { $0 = loop.now - start } }
        sent.signal()
      }
      sent.wait()
    }
    try loop.schedule(after: .milliseconds(2)) {}
    await loop.advance(by: .milliseconds(2))
    #expect(ranAt.withLock { $0 } == .milliseconds(1))
  }

  /// After the call no thread holds the loop: a plain `Task` calling an actor
  /// pinned to it completes with no further advance, at the time the call
  /// reached, on a thread that holds the loop meanwhile (the actor checks
  /// its isolation). Before, the call waited for an advance in silence.
  @Test func aPinnedActorCalledFromAPlainTaskRunsAtOnceAfterwards() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let reader = VirtualClockReader(loop: loop)
    await loop.advance(by: .milliseconds(3))
    for _ in 0..<100 {
      let read = await valueWithin30Seconds { await reader.read() }
      #expect(read == start + .milliseconds(3))
    }
    #expect(loop.now == start + .milliseconds(3), "the clock did not move")
    #expect(!loop.inEventLoop, "no thread holds the loop between runs")
  }

  /// `execute` from another thread, and a timer due now, run at once after
  /// the call too, without moving the clock.
  @Test func executeAndDueTimersFromOtherThreadsRunAtOnceAfterwards() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    await loop.advance(by: .zero)
    let ran = DispatchSemaphore(value: 0)
    try onAnotherThread { _ = try? loop.execute { ran.signal() } }
    #expect(ran.wait(timeout: .now() + .seconds(30)) == .success)
    let fired = DispatchSemaphore(value: 0)
    try onAnotherThread { _ = try? loop.schedule(after: .zero) { fired.signal() } }
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(loop.now == start)
  }

  /// A loop that the test still holds (it created it) and nobody runs: a
  /// plain `Task` calling an actor pinned to it stops the program, after
  /// `strandedCallGraceSeconds` of waiting (1 s here, not 30: the child's
  /// wait held up tests running beside it), with a message that says what
  /// to do, instead of waiting in silence.
  @Test func aPinnedActorCallThatNobodyWouldRunStopsWithAMessage() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      VirtualEventLoop.strandedCallGraceSeconds.store(1, ordering: .relaxed)
      let loop = VirtualEventLoop()
      let reader = VirtualClockReader(loop: loop)
      _ = await Task { await reader.read() }.value
    }
    let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(
      stderr.contains(VirtualEventLoop.strandedActorCallMessage(graceSeconds: 1)), "\(stderr)")
  }

  /// A call that reaches the held loop just before the test's first
  /// `advance(by:)` is not stranded: the advance runs it. (It stopped the
  /// program at once: 200 plain tasks started before the test's first
  /// advance did, in most runs.) The test waits until the call has reached
  /// the loop's inbox before advancing.
  @Test func aPinnedActorCallJustBeforeTheFirstAdvanceRunsInIt() async throws {
    await #expect(processExitsWith: .success) {
      let loop = VirtualEventLoop()
      let reader = VirtualClockReader(loop: loop)
      let call = Task { await reader.read() }
      while !loop.scheduler.inboxPending.load(ordering: .sequentiallyConsistent) {
        await Task.yield()
      }
      await loop.advance(by: .seconds(1))
      let read = await call.value
      precondition(read == loop.now - .seconds(1))
    }
  }

  /// A synchronous `run()` while a drain runs work from another thread waits
  /// for it instead of running passes beside it, and then holds the loop.
  @Test func aSynchronousRunWaitsForADrainAndThenHoldsTheLoop() async throws {
    let loop = VirtualEventLoop()
    await loop.advance(by: .zero)
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let inDrain = Atomic<Bool>(false)
    DispatchQueue.global().async {
      try? loop.execute {
        inDrain.store(true, ordering: .relaxed)
        started.signal()
        release.wait()
        inDrain.store(false, ordering: .relaxed)
      }
    }
    #expect(started.wait(timeout: .now() + .seconds(30)) == .success)
    DispatchQueue.global().async { release.signal() }
    let ranBeside = Locked<Bool?>(nil)
    try loop.execute { ranBeside.withLock { $0 = inDrain.load(ordering: .relaxed) } }
    loop.run()
    #expect(ranBeside.withLock { $0 } == false)
    #expect(loop.inEventLoop)
  }

  /// Calls made at once take turns, each moving the clock by its own amount
  /// from where the previous left it: eight concurrent one-second advances
  /// move it eight seconds, and a timer due at each second fires at its
  /// own time. (They moved it anywhere from one to eight seconds, as the
  /// turns found the clock, before each read it in its turn.)
  @Test func concurrentAdvancesEachMoveTheClockByTheirOwnAmount() async throws {
    for _ in 0..<20 {
      let loop = VirtualEventLoop()
      let start = loop.now
      let fired = EventLog<Duration>()
      for second in 1...8 {
        try loop.schedule(after: .seconds(Int64(second))) { fired.append(loop.now - start) }
      }
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 { group.addTask { await loop.advance(by: .seconds(1)) } }
      }
      #expect(loop.now - start == .seconds(8))
      #expect(fired.all == (1...8).map { .seconds(Int64($0)) })
    }
  }

  /// A task holds the loop it created on whichever thread it runs; another
  /// task that the runtime runs on the same thread meanwhile does not: it
  /// is not on the loop, and its calls wait for the loop's next run, as
  /// another thread's do. Both tasks run on the one thread of an epoll
  /// loop. (The thread held the loop, so that task changed the table
  /// directly: plain tasks that scheduled timers while the test's first
  /// `advance(by:)` ran on the loop's queue corrupted its timing wheel.)
  @Test func anotherTaskOnTheHoldersThreadDoesNotHoldTheLoop() async throws {
    let thread = try EpollEventLoop.startOnNewThread(name: "one-thread")
    defer { thread.shutdown() }
    let (created, sendLoop) = AsyncStream<VirtualEventLoop>.makeStream()
    let (release, releaseHolder) = AsyncStream<Void>.makeStream()
    let holder = Task(executorPreference: thread) {
      let loop = VirtualEventLoop()
      sendLoop.yield(loop)
      for await _ in release {}  // the holder waits, alive, off the thread
      return loop.inEventLoop
    }
    let loop = try #require(await created.first { _ in true })
    let other = await Task(executorPreference: thread) {
      let onLoop = loop.inEventLoop
      _ = try? loop.schedule(after: .zero) {}
      return (onLoop: onLoop, liveTimers: loop.liveTimerCount)
    }.value
    #expect(!other.onLoop)
    #expect(other.liveTimers == 0, "the schedule call waits for the loop's next run")
    releaseHolder.finish()
    #expect(await holder.value, "the holder still holds the loop")
    await loop.advance(by: .zero)
    #expect(loop.stats.timersFired == 1)
  }

  /// Called from a pass of the loop it would drive, it stops the program
  /// with a message, as a nested `advanceTime` does.
  @Test func anAdvanceFromACallbackIsRefused() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let loop = VirtualEventLoop()
      let task = Task(executorPreference: loop) { await loop.advance(by: .seconds(1)) }
      await loop.advance(by: .zero)
      await task.value
    }
    let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(stderr.contains(VirtualEventLoop.nestedAsyncAdvanceMessage), "\(stderr)")
  }
}

/// What `operation` returns, run in a plain `Task`, or `nil` if it has not
/// returned after 30 s of real time: a test that fails instead of hanging
/// when the task waits forever (the task is left waiting).
private func valueWithin30Seconds<Value: Sendable>(
  _ operation: @escaping @Sendable () async -> Value
) async -> Value? {
  let outcome = FirstOutcome<Value>()
  return await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
    outcome.set(continuation)
    Task { outcome.resume(returning: await operation()) }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) {
      outcome.resume(returning: nil)
    }
  }
}

/// A continuation resumed by whichever comes first.
private final class FirstOutcome<Value: Sendable>: Sendable {
  private let continuation = Locked<CheckedContinuation<Value?, Never>?>(nil)
  func set(_ continuation: CheckedContinuation<Value?, Never>) {
    self.continuation.withLock { $0 = continuation }
  }
  func resume(returning value: Value?) {
    continuation.withLock { $0.take() }?.resume(returning: value)
  }
}

/// An actor pinned to a virtual loop whose task sleeps three times, 1 s
/// apart, recording when it wakes.
private actor PinnedSleeper {
  let loop: VirtualEventLoop
  let origin: Deadline
  private(set) var wakes: [Duration] = []
  init(loop: VirtualEventLoop) {
    self.loop = loop
    origin = loop.now
  }
  nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

  func sleepThreeTimes() async throws {
    for _ in 0..<3 {
      try await loop.sleep(for: .seconds(1))
      loop.checkIsolated()
      wakes.append(loop.now - origin)
    }
  }
}
