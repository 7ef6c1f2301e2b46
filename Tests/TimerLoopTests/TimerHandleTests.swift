import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The Bad input article: `cancel()` or `reschedule` on a finished timer does
/// nothing, even if another timer reuses its table slot.
@Suite struct TimerHandleTests {
  /// A slot's generation never wraps: the slot whose timer had the last
  /// generation an id can hold is retired, so a handle from 2^31 timers ago
  /// cannot name the next timer. A seam sets the generation near that point
  /// instead of ending 2^31 timers in the slot.
  @Test func aStaleHandleNeverActsOnATimerAfterItsSlotRanThroughItsGenerations() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let stale = try loop.schedule(after: .seconds(1)) {}
    let slot = stale.id.slot
    stale.cancel()
    loop.scheduler.table.pointee.testsOnly_setGeneration(
      TimerID.lastGeneration, ofFreeSlot: slot)
    let last = try loop.schedule(after: .seconds(1)) {}
    #expect(last.id.slot == slot, "the free slot is reused first")
    last.cancel()

    let fired = Locked(0)
    let next = try loop.schedule(after: .milliseconds(1)) { fired.withLock { $0 += 1 } }
    #expect(next.id != stale.id && next.id != last.id)
    for handle in [stale, last] {
      handle.reschedule(after: .seconds(10))
      handle.cancel()
    }
    loop.advanceTime(by: .milliseconds(1))
    #expect(fired.withLock { $0 } == 1)
    #expect(loop.liveTimerCount == 0, "a retired slot counts as a live timer")
  }
}
