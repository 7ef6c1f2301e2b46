import Testing

@testable import TimerLoop

/// The queue against a plain reference: a list sorted by (deadline, push order).
@Suite struct TimerQueueTests {
  /// A small deterministic generator (SplitMix64), so a failing seed replays.
  struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  struct Reference {
    var items: [(deadline: Int64, order: Int, slot: UInt32)] = []
    var pushes = 0
    mutating func push(_ slot: UInt32, _ deadline: Int64) {
      items.append((deadline, pushes, slot))
      pushes += 1
      items.sort { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
    }
    mutating func remove(_ slot: UInt32) -> Bool {
      guard let index = items.firstIndex(where: { $0.slot == slot }) else { return false }
      items.remove(at: index)
      return true
    }
  }

  @Test(arguments: 0..<200)
  func randomOperationsMatchTheReference(seed: UInt64) {
    var rng = SplitMix64(state: seed)
    var queue = TimerQueue()
    var reference = Reference()
    var now: Int64 = 0
    for _ in 0..<300 {
      let slot = UInt32.random(in: 0..<40, using: &rng)
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5 where !queue.contains(slot: slot):
        // Few distinct deadlines, so ties (FIFO) are common.
        let deadline = now + Int64.random(in: 0..<8, using: &rng)
        queue.push(slot: slot, deadline: Deadline(uptimeNanoseconds: deadline))
        reference.push(slot, deadline)
      case 5..<7:
        #expect(queue.remove(slot: slot) == reference.remove(slot), "seed \(seed)")
      case 7 where queue.contains(slot: slot):
        // Later, earlier or the same: the lazy and the eager path.
        let deadline = now + Int64.random(in: 0..<8, using: &rng)
        queue.reschedule(slot: slot, to: Deadline(uptimeNanoseconds: deadline))
        _ = reference.remove(slot)
        reference.push(slot, deadline)
      default:
        now += Int64.random(in: 0..<3, using: &rng)
        while let popped = queue.popFirst(dueAt: Deadline(uptimeNanoseconds: now)) {
          let expected = reference.items.removeFirst()
          #expect(popped == expected.slot && expected.deadline <= now, "seed \(seed)")
        }
        #expect(reference.items.first.map { $0.deadline > now } ?? true, "seed \(seed)")
      }
      #expect(queue.count == reference.items.count, "seed \(seed)")
      #expect(queue.first()?.slot == reference.items.first?.slot, "seed \(seed)")
    }
  }

  @Test func equalDeadlinesPopInSchedulingOrderAfterRemovalsAndMoves() {
    var queue = TimerQueue()
    let deadline = Deadline(uptimeNanoseconds: 10)
    for slot in UInt32(0)..<100 {
      queue.push(slot: slot, deadline: deadline + .nanoseconds(-Int64(slot % 2)))
    }
    for slot in stride(from: UInt32(0), to: 100, by: 3) { queue.remove(slot: slot) }
    // Odd slots move later onto the shared deadline: behind the even ones, in move order.
    for slot in stride(from: UInt32(1), to: 100, by: 2) where slot % 3 != 0 {
      queue.reschedule(slot: slot, to: deadline)
    }
    var popped: [UInt32] = []
    while let slot = queue.popFirst(dueAt: deadline) { popped.append(slot) }
    let survivors = (UInt32(0)..<100).filter { $0 % 3 != 0 }
    #expect(popped == survivors.filter { $0 % 2 == 0 } + survivors.filter { $0 % 2 == 1 })
  }

  @Test func orphansAreCompactedSoTheHeapStaysProportionalToLiveTimers() {
    var queue = TimerQueue()
    for round in 0..<100 {
      for slot in UInt32(0)..<100 {
        queue.push(slot: slot, deadline: Deadline(uptimeNanoseconds: Int64(1_000 - round)))
        queue.remove(slot: slot)
      }
    }
    #expect(queue.count == 0)
    #expect(queue.nodeCount <= 64)
  }

  /// Moving a timer earlier again and again piles up orphans until the heap
  /// compacts; the compaction must rebuild from the moved key, or the timer
  /// would sit at its old, later deadline.
  @Test func compactionDuringEarlierMovesKeepsTheNewDeadline() {
    var queue = TimerQueue()
    queue.push(slot: 0, deadline: Deadline(uptimeNanoseconds: 500))
    queue.push(slot: 1, deadline: Deadline(uptimeNanoseconds: 1_000))
    for step in 0..<100 {
      queue.reschedule(slot: 1, to: Deadline(uptimeNanoseconds: Int64(999 - step)))
    }
    queue.reschedule(slot: 1, to: Deadline(uptimeNanoseconds: 100))
    #expect(queue.first()?.slot == 1)
    #expect(queue.first()?.deadline == Deadline(uptimeNanoseconds: 100))
  }

  @Test func nothingPopsBeforeItsDeadline() {
    var queue = TimerQueue()
    queue.push(slot: 0, deadline: Deadline(uptimeNanoseconds: 100))
    #expect(queue.popFirst(dueAt: Deadline(uptimeNanoseconds: 99)) == nil)
    #expect(queue.popFirst(dueAt: Deadline(uptimeNanoseconds: 100)) == 0)
  }
}

@Suite struct MemoryLayoutTests {
  /// Per-timer memory is a target of the performance work; a field added or
  /// reordered carelessly shows up here first.
  @Test func timerEntriesAndQueueNodesStayCompact() {
    #expect(MemoryLayout<TimerEntry>.stride == 32)
    #expect(MemoryLayout<TimerQueue.Node>.stride == 24)
    #expect(MemoryLayout<TimerQueue.Key>.stride == 24)
  }
}
