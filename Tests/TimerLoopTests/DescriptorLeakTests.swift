import Foundation
import TimerLoop
import XCTest

@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Descriptors the loop opens are closed by its shutdown (see
/// ``DescriptorCountingTestCase``).
final class DescriptorLeakTests: DescriptorCountingTestCase {

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
