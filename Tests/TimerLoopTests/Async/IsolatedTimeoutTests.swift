import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// `withTimeout` and `withDeadline` take the caller's isolation (issue 19,
/// item 6): an actor times out work on its own non-`Sendable` state, and the
/// operation returns a non-`Sendable` value. That this file compiles in
/// Swift 6 mode is half the test.
@Suite(.timeLimit(.minutes(1))) struct IsolatedTimeoutTests {
  /// Not `Sendable`: only its actor may touch it.
  final class Tally {
    var steps = 0
    var cancelled = false
  }

  /// What a request hands back: not `Sendable` either, so it must be sent.
  final class Reply {
    let steps: Int
    init(steps: Int) { self.steps = steps }
  }

  actor Connection {
    let loop: any TimerEventLoop
    let tally = Tally()
    /// Whether the caller's task was cancelled after the call: a timeout
    /// cancels the operation's child task, never the caller.
    var callerCancelledAfterward = false

    init(loop: any TimerEventLoop) {
      self.loop = loop
    }

    /// A step, a sleep of `work` on the loop, a step, under `timeout`.
    func request(work: Duration, timeout: Duration) async throws -> sending Reply {
      defer { callerCancelledAfterward = Task.isCancelled }
      return try await loop.withTimeout(timeout) {
        self.preconditionIsolated()
        tally.steps += 1
        do {
          try await loop.sleep(for: work)
        } catch {
          tally.cancelled = true
          throw error
        }
        self.preconditionIsolated()
        tally.steps += 1
        return Reply(steps: tally.steps)
      }
    }

    /// The same on the boot-time clock: a deadline `timeout` after
    /// ``TimerEventLoop/continuousNow``.
    func bootTimeRequest(work: Duration, timeout: Duration) async throws -> sending Reply {
      try await loop.withDeadline(loop.continuousNow + timeout) {
        tally.steps += 1
        try await loop.sleep(for: work)
        tally.steps += 1
        return Reply(steps: tally.steps)
      }
    }

    var state: (steps: Int, cancelled: Bool) { (tally.steps, tally.cancelled) }
  }

  /// On virtual time: an operation sleeping `work` under a 10 ms timeout,
  /// advanced by 20 ms with one `advanceTime`. (The deadline's verdict is
  /// given at its virtual instant; the cancellation reaches the operation
  /// from the caller's task, in real time, so an operation that is to be
  /// cancelled must still be waiting when the advance ends.)
  private func virtualOutcome(work: Duration) async -> (Result<Int, any Error>, Connection) {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = Connection(loop: loop)
    let task = Task { try await connection.request(work: work, timeout: .milliseconds(10)).steps }
    await loop.waitForSleepingTasks(atLeast: 2)
    // Until the thread that ran the request up to its sleep lets the actor
    // go, a job the loop resumes there would wait for it, in real time (see
    // `withDeadline`): a call of the actor's returns once it is free.
    _ = await connection.state
    loop.advanceTime(by: .milliseconds(20))
    return (await task.result, connection)
  }

  @Test func onVirtualTimeTheOperationEndingFirstReturnsItsValue() async throws {
    for _ in 0..<20 {
      let (result, connection) = await virtualOutcome(work: .milliseconds(5))
      #expect(try result.get() == 2)
      #expect(await connection.state == (2, false))
      #expect(await connection.callerCancelledAfterward == false)
    }
  }

  @Test func onVirtualTimeTheDeadlinePassingFirstCancelsTheOperationAndThrows() async throws {
    for _ in 0..<20 {
      let (result, connection) = await virtualOutcome(work: .seconds(3_600))
      #expect(result.isTimedOut)
      #expect(await connection.state == (1, true))
      #expect(await connection.callerCancelledAfterward == false)
    }
  }

  @Test func onARealLoopTheOperationEndingFirstReturnsItsValue() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "isolated-timeout")
    defer { loop.shutdown() }
    let connection = Connection(loop: loop)
    let reply = try await connection.request(work: .milliseconds(1), timeout: .seconds(60))
    #expect(reply.steps == 2)
    #expect(await connection.state == (2, false))
    #expect(try liveTimers(loop) == 0)
  }

  @Test func onARealLoopTheDeadlinePassingFirstCancelsTheOperationAndThrows() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "isolated-timeout")
    defer { loop.shutdown() }
    let connection = Connection(loop: loop)
    let start = Deadline.now()
    let result = await Task {
      try await connection.request(work: .seconds(3_600), timeout: .milliseconds(10)).steps
    }.result
    #expect(result.isTimedOut)
    #expect(Deadline.now() - start >= .milliseconds(10))
    #expect(await connection.state == (1, true))
    #expect(await connection.callerCancelledAfterward == false)
    #expect(try liveTimers(loop) == 0)
  }

  /// The boot-time form counts suspended time: a suspend covering the
  /// deadline times the operation out, although no monotonic time passed.
  @Test func aBootTimeDeadlineCountsSuspendedTime() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = Connection(loop: loop)
    let task = Task {
      try await connection.bootTimeRequest(work: .seconds(1), timeout: .milliseconds(10)).steps
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.suspend(for: .seconds(60))
    #expect(await task.result.isTimedOut)
  }

  @Test func aBootTimeDeadlineLaterThanTheOperationReturnsItsValue() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = Connection(loop: loop)
    let task = Task {
      try await connection.bootTimeRequest(work: .milliseconds(5), timeout: .milliseconds(10)).steps
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.advanceTime(by: .milliseconds(20))
    #expect(try await task.result.get() == 2)
  }
}
