import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

@Suite struct ClockTimerHeapTests {
  func timer() -> ClockTimer { ClockTimer(repeats: .never, body: .once {}) }

  @Test func popsInDeadlineOrderWithTiesFirstInFirstOut() {
    var heap = ClockTimerHeap()
    let deadlines: [Int64] = [5, 3, 5, 1, 3, 5, 0, 9]
    let timers = deadlines.map { _ in timer() }
    for (timer, deadline) in zip(timers, deadlines) { heap.insert(timer, at: deadline) }
    let due = heap.popDue(now: 5)
    #expect(due.map(\.deadline) == [0, 1, 3, 3, 5, 5, 5])
    #expect(
      due.map { ObjectIdentifier($0.timer) }
        == [6, 3, 1, 4, 0, 2, 5].map {
          ObjectIdentifier(timers[$0])
        })
    #expect(heap.earliestDeadline() == 9)
  }

  @Test func cancelledTimersCannotPileUp() {
    var heap = ClockTimerHeap()
    let kept = timer()
    heap.insert(kept, at: 1)
    for i in 0..<100_000 {
      let cancelled = timer()
      heap.insert(cancelled, at: Int64(i) + 1_000)
      cancelled.end()
      #expect(heap.entries.count <= 64, "\(heap.entries.count) entries for 1 valid timer")
      if heap.entries.count > 64 { return }
    }
    #expect(heap.earliestDeadline() == 1)
  }

  @Test func endedTimersAtTheTopAreDropped() {
    var heap = ClockTimerHeap()
    let first = timer()
    heap.insert(first, at: 1)
    heap.insert(timer(), at: 2)
    first.end()
    #expect(heap.earliestDeadline() == 2)
    #expect(heap.entries.count == 1)
  }
}
