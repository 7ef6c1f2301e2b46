import Foundation
import Glibc
import TimerLoop
import XCTest

@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The clock timerfds are closed by the loop's shutdown (see
/// ``DescriptorCountingTestCase``).
final class ClockDescriptorLeakTests: DescriptorCountingTestCase {

  func testShutdownClosesTheBootTimeTimerfd() throws {
    let before = try openDescriptorCount()
    let loop = try EpollEventLoop.startOnNewThread()
    let armed = DispatchSemaphore(value: 0)
    try loop.execute {
      _ = try? loop.schedule(at: loop.continuousNow.advanced(by: .seconds(3600))) {}
      armed.signal()
    }
    XCTAssertEqual(armed.wait(timeout: .now() + .seconds(30)), .success)
    XCTAssertEqual(try openDescriptorCount(), before + 4)
    loop.shutdown()
    XCTAssertEqual(try openDescriptorCount(), before)
  }

  /// This process's timerfds on `CLOCK_REALTIME`, with their `settime flags`.
  private func wallClockTimerFDs() throws -> [CInt: String] {
    var found: [CInt: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
      guard let fd = CInt(name),
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))
          == "anon_inode:[timerfd]",
        let info = try? timerFDInfo(fd), info["clockid"] == "\(CLOCK_REALTIME)"
      else { continue }
      found[fd] = info["settime flags"]
    }
    return found
  }

  /// Scheduled from a thread other than the loop's, before the loop ever
  /// ran, a wall-clock timer arms its timerfd with `TFD_TIMER_ABSTIME |
  /// TFD_TIMER_CANCEL_ON_SET` at once, so that the kernel reports a step of
  /// the clock made before the loop watches it (`ClockStepTests` makes one).
  func testAWallTimerScheduledFromAnotherThreadArmsItsTimerfdAtOnce() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let before = try wallClockTimerFDs()
    try loop.schedule(at: Date().addingTimeInterval(3600)) {}
    let opened = try wallClockTimerFDs().filter { before[$0.key] == nil }
    XCTAssertEqual(Array(opened.values), ["03"], "not armed at once with both flags")
  }

  func testALoopThatNeverRanOpensNoTimerfdForABootTimer() throws {
    let before = try openDescriptorCount()
    let loop = try EpollEventLoop()
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(3600))) {}
    XCTAssertEqual(try openDescriptorCount(), before + 3)
    loop.shutdown()
    XCTAssertEqual(try openDescriptorCount(), before)
  }
}
