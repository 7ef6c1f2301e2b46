import Foundation
import TimerLoop
import XCTest

/// XCTest rather than Swift Testing: XCTest runs these serially, with no other
/// test opening descriptors at the same time, so the process-wide count is exact.
final class DescriptorLeakTests: XCTestCase {
  override func setUp() {
    // The first loop's shutdown starts libdispatch's own threads and
    // descriptors (it waits on a DispatchGroup); let that happen before counting.
    try? EpollEventLoop.startOnNewThread().shutdown()
  }

  private func openDescriptorCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
  }

  func testShutdownClosesTheLoopsThreeDescriptors() throws {
    let before = try openDescriptorCount()
    let loops = try (0..<10).map { _ in try EpollEventLoop.startOnNewThread() }
    XCTAssertEqual(try openDescriptorCount(), before + 30)
    for loop in loops { loop.shutdown() }
    XCTAssertEqual(try openDescriptorCount(), before)
  }

  func testALoopThatNeverRanClosesItsDescriptorsOnShutdown() throws {
    let before = try openDescriptorCount()
    let loop = try EpollEventLoop()
    XCTAssertEqual(try openDescriptorCount(), before + 3)
    loop.shutdown()
    XCTAssertEqual(try openDescriptorCount(), before)
  }
}
