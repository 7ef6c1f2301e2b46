import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

struct DescriptorRegistryTests {
  @Test func aStaleRegistrationNeverNamesANewOneAfterItsSlotRanThroughItsGenerations() {
    var registry = DescriptorRegistry()
    let stale = registry.add(3, interest: .readable, mode: .level) { _ in }
    _ = registry.remove(stale)
    registry.testsOnly_setGeneration(DescriptorRegistry.lastGeneration, ofFreeIndex: 0)
    let last = registry.add(3, interest: .readable, mode: .level) { _ in }
    #expect(UInt32(truncatingIfNeeded: last) == 0, "the free slot is reused first")
    _ = registry.remove(last)

    let next = registry.add(4, interest: .readable, mode: .level) { _ in }
    #expect(next != stale && next != last)
    #expect(registry.registration(stale) == nil && registry.registration(last) == nil)
    #expect(registry.remove(stale) == nil && registry.remove(last) == nil)
    #expect(registry.registration(next)?.fd == 4, "stale ids left the new registration alone")
  }
}
