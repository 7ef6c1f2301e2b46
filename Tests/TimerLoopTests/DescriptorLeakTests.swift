import Foundation
import XCTest

@testable import TimerLoop

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

  func testAThousandLoopsLeaveNoDescriptorBehind() throws {
    let before = try openDescriptorCount()
    for _ in 0..<1_000 {
      try EpollEventLoop.startOnNewThread().shutdown()
    }
    XCTAssertEqual(try openDescriptorCount(), before)
  }

  /// Each step of opening a loop can fail (EMFILE when the process is out of
  /// descriptors, ENOMEM); the error names the call, and whatever the earlier
  /// steps opened is closed again.
  func testAFailedStepOfOpeningALoopClosesWhatItOpened() throws {
    let before = try openDescriptorCount()
    let steps: [(String, Int32)] = [
      ("epoll_create1", EMFILE), ("timerfd_create", EMFILE), ("eventfd", ENOMEM),
      ("epoll_ctl", ENOMEM),
    ]
    for (syscall, code) in steps {
      FaultInjection.inject([code], into: syscall)
      XCTAssertThrowsError(try EpollEventLoop()) { error in
        XCTAssertEqual(error as? SystemError, SystemError(syscall: syscall, errno: code))
      }
      FaultInjection.reset()
      XCTAssertEqual(try openDescriptorCount(), before, "after a failed \(syscall)")
    }
  }
}
