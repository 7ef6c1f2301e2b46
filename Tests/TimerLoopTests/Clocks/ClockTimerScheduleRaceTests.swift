import Foundation
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// `schedule(at:_:)` on the boot-time and wall clocks, called on another
/// thread, throws ``TimerLoopError/shutdown`` only for a timer that never
/// ran: the loop can run a past-due timer, whose body shuts the loop down,
/// before the call returns (it threw in 8 to 32 of these 3,000 calls per
/// clock before the fix).
@Suite struct ClockTimerScheduleRaceTests {
  @Test(arguments: [TimerClock.boot, .wall])
  func aScheduleWhoseTimerAlreadyRanDoesNotThrow(_ clock: TimerClock) throws {
    var threwAfterRunning = 0
    for _ in 0..<3_000 {
      let loop = try EpollEventLoop.startOnNewThread(name: "schedule-race")
      defer { loop.shutdown() }
      let ran = Atomic<Bool>(false)
      let body: @Sendable () -> Void = {
        ran.store(true, ordering: .releasing)
        loop.shutdown()
      }
      do {
        switch clock {
        case .boot: try loop.schedule(at: ContinuousClock.Instant(bootNanoseconds: 0), body)
        case .wall: try loop.schedule(at: Date.distantPast, body)
        }
      } catch {
        if ran.load(ordering: .acquiring) { threwAfterRunning += 1 }
      }
    }
    #expect(threwAfterRunning == 0, "schedule threw .shutdown after its body had run")
  }
}
