import Dispatch
import Foundation
import TimerLoop
import XCTest

@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Racing first clock timers against shutdown leaves no descriptor open
/// (see ``DescriptorCountingTestCase``).
final class ClockTimerRaceLeakTests: DescriptorCountingTestCase {

  /// Threads racing to schedule a loop's first wall-clock and boot-time
  /// timers (the first wall-clock one opens and arms its timerfd on the
  /// scheduling thread) against a shutdown from another thread, on loops
  /// running and loops that never ran: every descriptor is closed, nothing
  /// traps or deadlocks. Run under ThreadSanitizer in CI.
  func testFirstClockTimersRacingAShutdownLeaveNoDescriptorOpen() throws {
    let before = try openDescriptorCount()
    for round in 0..<60 {
      let loop =
        round.isMultiple(of: 3) ? try EpollEventLoop() : try EpollEventLoop.startOnNewThread()
      DispatchQueue.concurrentPerform(iterations: 4) { thread in
        if thread == 0 && round.isMultiple(of: 2) {
          loop.shutdown()
          return
        }
        _ = try? loop.schedule(at: Date().addingTimeInterval(3_600)) {}
        _ = try? loop.schedule(at: loop.continuousNow.advanced(by: .seconds(3_600))) {}
        _ = try? loop.schedule(at: Date(timeIntervalSinceNow: -1)) {}
      }
      loop.shutdown()
    }
    XCTAssertEqual(try openDescriptorCount(), before)
  }
}
