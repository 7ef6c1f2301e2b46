// swift-format-ignore-file
// The recipes of the README, verbatim (DocExamplesAreCompiledTests checks
// that they still match; ReadmeRecipesTests runs them).
import Foundation
import Synchronization
import Testing
import TimerLoop

// The platforms section: code that also builds where TimerLoop does not.
#if canImport(TimerLoop)
import TimerLoop
#endif

func startTicking() throws {
  #if canImport(TimerLoop)
  let loop = try EpollEventLoop.startOnNewThread(name: "timers")
  try loop.scheduleRepeating(after: .seconds(1), every: .seconds(1)) { _ in print("tick") }
  #endif
}

/// One client connection of an async server; a real one wraps a socket.
protocol ClientConnection: Sendable {
  /// The next request, or `nil` once the client has closed the connection.
  func nextRequest() async throws -> String?
  func respond(to request: String) async throws
  func close(reason: String) async
}

/// Serves `connection` until the client leaves, stays idle for 30 s between
/// requests, or takes more than 2 s over one request. Each limit is one
/// timer on `loop`; when it expires, the awaited call is cancelled.
func serve(_ connection: some ClientConnection, on loop: some TimerEventLoop) async {
  do {
    // The idle timeout: at most 30 s of waiting for each request.
    while let request = try await loop.withTimeout(
      .seconds(30), operation: { try await connection.nextRequest() })
    {
      // The request deadline: 2 s to read the rest of it and answer.
      try await loop.withTimeout(.seconds(2)) { try await connection.respond(to: request) }
    }
    await connection.close(reason: "the client left")
  } catch TimerLoopError.timedOut {
    await connection.close(reason: "timed out")
  } catch {
    await connection.close(reason: "\(error)")
  }
}

// In production: let loop = try EpollEventLoop.startOnNewThread(name: "timers")
/// Rotates the logs every day at 03:00 in `calendar`'s time zone.
@discardableResult
func scheduleLogRotation(
  on loop: some TimerEventLoop, in calendar: Calendar = .current,
  rotate: @escaping @Sendable () -> Void
) throws -> ClockTimerHandle {
  try loop.scheduleRepeating(matching: DateComponents(hour: 3, minute: 0), in: calendar) { _ in
    rotate()
  }
}

@Test func logsRotateAtThreeEveryNight() throws {
  var utc = Calendar(identifier: .gregorian)
  utc.timeZone = TimeZone(identifier: "UTC")!
  let loop = VirtualEventLoop()   // a clock that moves only when the test says
  defer { loop.shutdown() }
  loop.setWallClock(to: utc.date(from: DateComponents(year: 2026, month: 3, day: 1, hour: 12))!)
  let rotations = Atomic<Int>(0)
  try scheduleLogRotation(on: loop, in: utc) { rotations.add(1, ordering: .relaxed) }

  loop.advanceTime(by: .seconds(15 * 3_600 - 1))   // to 02:59:59 on 2 March
  #expect(rotations.load(ordering: .relaxed) == 0)
  loop.advanceTime(by: .seconds(1))                // 03:00:00
  #expect(rotations.load(ordering: .relaxed) == 1)
  loop.advanceTime(by: .seconds(30 * 86_400))      // a month, with no waiting
  #expect(rotations.load(ordering: .relaxed) == 31)
}
