import Foundation
import TimerLoop
import XCTest

@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The base of the tests that count the process's open descriptors. XCTest
/// rather than Swift Testing: XCTest runs these serially, with no other test
/// opening descriptors at the same time, so the process-wide count is exact.
class DescriptorCountingTestCase: XCTestCase {
  override func setUp() {
    // The first loop's shutdown starts libdispatch's own threads and
    // descriptors (it waits on a DispatchGroup); let that happen before counting.
    try? EpollEventLoop.startOnNewThread().shutdown()
  }

  func openDescriptorCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
  }
}
