import Foundation
import XCTest

@testable import TimerLoop

/// XCTest, run serially like ``DescriptorLeakTests``, so the process-wide
/// descriptor count is exact.
final class ClockDescriptorLeakTests: XCTestCase {
  override func setUp() {
    try? EpollEventLoop.startOnNewThread().shutdown()
  }

  private func openDescriptorCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
  }

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

  func testALoopThatNeverRanOpensNoTimerfdForABootTimer() throws {
    let before = try openDescriptorCount()
    let loop = try EpollEventLoop()
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(3600))) {}
    XCTAssertEqual(try openDescriptorCount(), before + 3)
    loop.shutdown()
    XCTAssertEqual(try openDescriptorCount(), before)
  }
}
