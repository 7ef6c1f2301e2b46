import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/liveTimerCount`` answers from any thread (issue 19,
/// item 9): exact on the loop thread, elsewhere the count published at the
/// end of the loop's latest pass.
@Suite struct LiveTimerCountTests {
  /// The count as a thread other than the loop's reads it.
  private func readElsewhere(_ loop: VirtualEventLoop) throws -> Int {
    let count = Atomic<Int>(-1)
    try onAnotherThread { count.store(loop.liveTimerCount, ordering: .relaxed) }
    return count.load(ordering: .relaxed)
  }

  @Test func anotherThreadReadsTheCountTheLatestPassPublished() throws {
    let loop = VirtualEventLoop()  // this thread is its loop thread
    defer { loop.shutdown() }
    let handles = try (0..<3).map { _ in try loop.schedule(after: .seconds(10)) {} }
    #expect(loop.liveTimerCount == 3)
    #expect(try readElsewhere(loop) == 0, "no pass has ended yet")
    loop.run()
    #expect(try readElsewhere(loop) == 3)

    try onAnotherThread { handles[0].cancel() }
    #expect(try readElsewhere(loop) == 3, "the cancel is not applied yet")
    #expect(loop.liveTimerCount == 2, "the loop thread applies it before reading")
    loop.run()
    #expect(try readElsewhere(loop) == 2)

    loop.advanceTime(by: .seconds(10))
    #expect(try readElsewhere(loop) == 0)
    #expect(loop.liveTimerCount == 0)
  }
}
