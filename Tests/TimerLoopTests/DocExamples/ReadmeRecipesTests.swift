import Synchronization
import Testing
import TimerLoop

/// Runs the README's async-server recipe on virtual time, with a pretend
/// connection: the idle timeout and the request deadline each close it at
/// their exact virtual time, and a client that leaves is not timed out. A
/// regression that leaves a wait unmet fails at the time limit instead of
/// hanging: the limit cancels the test, which cancels the serving task.
@Suite(.timeLimit(.minutes(1))) struct ReadmeRecipesTests {
  /// A connection that delivers `requests`, then either ends (`leaves`) or
  /// waits on the loop until cancelled; answering takes `answerTime`.
  final class PretendConnection: ClientConnection {
    let loop: VirtualEventLoop
    let requests: Mutex<[String]>
    let leaves: Bool
    let answerTime: Duration
    let log = Mutex<[String]>([])
    let start: Deadline

    init(loop: VirtualEventLoop, requests: [String], leaves: Bool, answerTime: Duration) {
      self.loop = loop
      self.start = loop.now
      self.requests = Mutex(requests)
      self.leaves = leaves
      self.answerTime = answerTime
    }

    func nextRequest() async throws -> String? {
      if let request = requests.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
        return request
      }
      if leaves { return nil }
      try await loop.sleep(until: .distantFuture)  // ends when cancelled
      return nil
    }

    func respond(to request: String) async throws {
      try await loop.sleep(for: answerTime)
      log.withLock { $0.append("answered \(request) at \(milliseconds) ms") }
    }

    func close(reason: String) async {
      log.withLock { $0.append("closed at \(milliseconds) ms: \(reason)") }
    }

    /// Virtual milliseconds since the connection was made.
    var milliseconds: Int64 { (loop.now.uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000 }
  }

  /// Serves `connection`, moving virtual time forward by each of `steps` once
  /// two tasks sleep on the loop: the limit's timer and the connection's
  /// read or answer. (`withTimeout` returns only after its timer has ended,
  /// so two sleeping tasks are always those of the current wait.)
  func run(_ connection: PretendConnection, steps: [Duration]) async {
    let loop = connection.loop
    let served = Task { await serve(connection, on: loop) }
    for step in steps {
      await loop.waitForSleepingTasks(atLeast: 2)
      loop.advanceTime(by: step)
    }
    await withTaskCancellationHandler {
      await served.value
    } onCancel: {
      served.cancel()
    }
  }

  @Test func anIdleClientIsClosedThirtySecondsAfterItsLastAnswer() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = PretendConnection(
      loop: loop, requests: ["GET /"], leaves: false, answerTime: .milliseconds(10))
    await run(connection, steps: [.milliseconds(10), .seconds(30)])
    #expect(
      connection.log.withLock { $0 }
        == ["answered GET / at 10 ms", "closed at 30010 ms: timed out"])
  }

  @Test func aSlowAnswerIsCutOffAtTheRequestDeadline() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = PretendConnection(
      loop: loop, requests: ["GET /slow"], leaves: true, answerTime: .seconds(5))
    await run(connection, steps: [.seconds(2)])
    #expect(connection.log.withLock { $0 } == ["closed at 2000 ms: timed out"])
  }

  @Test func aClientThatLeavesIsClosedWithoutATimeout() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let connection = PretendConnection(
      loop: loop, requests: ["GET /a", "GET /b"], leaves: true, answerTime: .milliseconds(1))
    await run(connection, steps: [.milliseconds(1), .milliseconds(1)])
    #expect(
      connection.log.withLock { $0 }
        == ["answered GET /a at 1 ms", "answered GET /b at 2 ms", "closed at 2 ms: the client left"])
  }
}
