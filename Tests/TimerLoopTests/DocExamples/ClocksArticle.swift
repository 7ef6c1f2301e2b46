// swift-format-ignore-file
// The examples of the article "Boot-time, wall-clock and calendar timers"
// (Clocks.md), verbatim; DocExamplesAreCompiledTests checks that they still
// match, and the calendar test runs as written.
import Foundation
import Synchronization
import Testing
import TimerLoop

@Suite struct ClocksArticle {
  /// A timer on each of the loop's three clocks.
  func scheduleOnEveryClock(
    on loop: any TimerEventLoop, renewLease: @escaping @Sendable () -> Void,
    remind: @escaping @Sendable () -> Void, rotateLogs: @escaping @Sendable () -> Void,
    eightOClock: Date
  ) async throws {
    // A lease that must expire on time even if the machine sleeps meanwhile.
    let expiry = loop.continuousNow + .seconds(600)
    try loop.schedule(at: expiry) { renewLease() }

    // At a date on the wall clock, and every day at 03:00 in the calendar's time zone.
    try loop.schedule(at: Date(timeIntervalSinceNow: 3_600)) { remind() }
    try loop.scheduleRepeating(matching: DateComponents(hour: 3, minute: 0)) { _ in rotateLogs() }

    // A task that waits on the boot-time clock.
    try await loop.continuousClock.sleep(until: expiry)   // or loop.sleep(until: expiry)

    // At 8:00 by the wall clock (followed if it is set); in a minute, up to 1 s late.
    try await loop.sleep(until: eightOClock)
    try await loop.sleep(for: .seconds(60), tolerance: .seconds(1))
  }

  @Test func theLogsRotateAtThreeEveryNight() throws {
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.setWallClock(to: utc.date(from: DateComponents(year: 2026, month: 3, day: 1, hour: 2))!)
    let rotations = Rotations()
    try loop.scheduleRepeating(matching: DateComponents(hour: 3, minute: 0), in: utc) { _ in
      rotations.count.withLock { $0 += 1 }
    }
    loop.advanceTime(by: .seconds(3_599))
    #expect(rotations.count.withLock { $0 } == 0)   // 02:59:59
    loop.advanceTime(by: .seconds(1))
    #expect(rotations.count.withLock { $0 } == 1)   // 03:00 on the first day
    loop.advanceTime(by: .seconds(86_400))
    #expect(rotations.count.withLock { $0 } == 2)   // and on the next
  }

  /// What the job did, from the loop's thread.
  final class Rotations: Sendable {
    let count = Mutex(0)
  }
}
