import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// An actor pinned to a virtual loop, whose method reads the loop's time.
actor VirtualClockReader {
  let loop: VirtualEventLoop
  init(loop: VirtualEventLoop) { self.loop = loop }
  nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
  func read() -> Deadline {
    loop.checkIsolated()  // on the loop's thread, in a pass
    return loop.now
  }
}

/// ``VirtualEventLoop/runAutoAdvancing(_:)``: async code on virtual time with
/// no `waitForSleepingTasks`, no `advanceTime` and no executor preference in
/// the code under test (issue 19, item 7).
@Suite(.timeLimit(.minutes(1))) struct AutoAdvanceTests {
  @Test func aTimeoutIsDecidedByVirtualTimeWithNoRituals() async throws {
    for _ in 0..<20 {
      let loop = VirtualEventLoop()
      let start = loop.now
      let ended = try await loop.runAutoAdvancing {
        try await loop.withTimeout(.milliseconds(10)) {
          try await loop.sleep(for: .milliseconds(5))
          await Task.yield()
          return loop.now
        }
      }
      #expect(ended == start + .milliseconds(5))
      let late = await Task {
        try await loop.runAutoAdvancing {
          try await loop.withTimeout(.milliseconds(10)) { try await loop.sleep(for: .seconds(5)) }
        }
      }.result
      #expect(late.isTimedOut)
      #expect(loop.now == start + .milliseconds(15), "moved past the second deadline")
    }
  }

  /// The scenario of ``VirtualTimeTests``, as child tasks of the body.
  private func scenario() async throws -> [String] {
    let loop = VirtualEventLoop()
    let start = loop.now
    let log = EventLog<String>()
    @Sendable func record(_ name: String) {
      log.append("\(name)\((loop.now - start).wholeNanoseconds / 1_000_000)")
    }
    try await loop.runAutoAdvancing {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for await _ in loop.ticks(every: .milliseconds(30)) { record("A") }
        }
        group.addTask {
          do {
            try await loop.sleep(for: .milliseconds(45))
            while true {
              record("B")
              try await loop.sleep(for: .milliseconds(20))
            }
          } catch {}
        }
        group.addTask {
          let clock: any Clock<Duration> = loop.clock
          var backoff = Duration.milliseconds(25)
          do {
            while true {
              try await clock.sleep(for: backoff)
              record("C")
              backoff *= 3
            }
          } catch {}
        }
        try? await loop.sleep(for: .milliseconds(150))
        group.cancelAll()
      }
    }
    return log.all
  }

  @Test func theSameAsyncCodeGivesTheSameOrderEveryTime() async throws {
    // At 150 ms the body's sleep and the tick end in one pass: the tick is
    // recorded before the body's cancellation reaches its consumer.
    let expected = [
      "C25", "A30", "B45", "A60", "B65", "B85", "A90", "C100", "B105", "A120", "B125", "B145",
      "A150",
    ]
    for _ in 0..<10 {
      let order = try await scenario()
      #expect(order == expected)
    }
  }

  @Test func anActorPinnedToTheLoopWorksWhenAPlainTaskCallsIt() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let reader = VirtualClockReader(loop: loop)
    let read = try await loop.runAutoAdvancing {
      try await loop.sleep(for: .milliseconds(7))
      return await Task { await reader.read() }.value  // a task on the global executor
    }
    #expect(read == start + .milliseconds(7))
  }

  @Test func cancellingTheCallerCancelsTheBody() async throws {
    let loop = VirtualEventLoop()
    let started = Gate()
    let caller = Task {
      try await loop.runAutoAdvancing {
        started.open()
        try await loop.sleep(until: .distantFuture)
      }
    }
    await started.wait()
    caller.cancel()
    #expect(await caller.result.isCancellation)
  }

  @Test func theDocumentedExampleGetsItsReplyAfterOneAndAHalfVirtualSeconds() async throws {
    let (start, reply) = try await runAutoAdvancingExample()
    #expect(reply == start + .milliseconds(1500))
  }

  @Test func aBodyThatEndsWithoutWaitingReturnsAtOnce() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    #expect(try await loop.runAutoAdvancing { 42 } == 42)
    #expect(loop.now == start)
  }
}
