/// The pending timers of one clock, earliest first: a binary min-heap keyed
/// by (deadline, sequence number), so that equal deadlines come out in the
/// order they went in (SwiftNIO's `ScheduledTask` ordering). O(log n) insert
/// and pop.
///
/// A cancelled timer is not searched for (cancel is O(1) from any thread): it
/// stays until it reaches the top (dropped there) or until the heap is
/// compacted; so does the stale entry a reschedule leaves behind (see
/// ``ClockTimer``). An insert that finds the heap at twice the size it had after
/// the previous compaction (at least 64 entries) first drops every ended
/// entry, so the heap never holds more than twice the most timers valid at
/// once (or 64), and the O(n) sweep is paid for by the inserts that grew it.
struct ClockTimerHeap {
  struct Entry {
    /// Nanoseconds on the heap's clock.
    var deadline: Int64
    var sequence: UInt64
    let timer: ClockTimer
    /// The timer's generation when the entry was made (see ``ClockTimer``).
    var generation: UInt64

    /// The timer is still due at this entry: not ended, not moved since.
    var isCurrent: Bool { timer.isCurrent(generation) }

    func precedes(_ other: Entry) -> Bool {
      (deadline, sequence) < (other.deadline, other.sequence)
    }
  }

  private(set) var entries: [Entry] = []
  private var nextSequence: UInt64 = 0
  private var compactionSize = 64

  /// Queues `timer` at `deadline`, after every entry already due then, as
  /// its entry of `generation`. `sequence` keeps the place of a timer taken
  /// out and put back.
  mutating func insert(
    _ timer: ClockTimer, at deadline: Int64, generation: UInt64 = 0, sequence: UInt64? = nil
  ) {
    if entries.count >= compactionSize {
      entries.removeAll { !$0.isCurrent }
      heapify()
      compactionSize = Swift.max(64, 2 * entries.count)
    }
    let entry = Entry(
      deadline: deadline, sequence: sequence ?? nextSequence, timer: timer, generation: generation)
    if sequence == nil { nextSequence += 1 }
    entries.append(entry)
    siftUp(entries.count - 1)
  }

  /// The earliest deadline of a timer still due; ended and stale entries
  /// at the top are dropped on the way.
  mutating func earliestDeadline() -> Int64? {
    while let top = entries.first {
      if top.isCurrent { return top.deadline }
      _ = popFirst()
    }
    return nil
  }

  /// Whether the first entry is no longer due: its timer ended or moved. O(1).
  var firstIsStale: Bool {
    entries.first.map { !$0.isCurrent } ?? false
  }

  /// Removes and returns every entry due at `now`, in (deadline, sequence)
  /// order. `Int64.max` is "never", even for a clock that reads it.
  mutating func popDue(now: Int64) -> [Entry] {
    var due: [Entry] = []
    while let top = entries.first, top.deadline <= now, top.deadline != .max {
      due.append(popFirst())
    }
    return due
  }

  /// Removes every entry, for the caller to end.
  mutating func removeAll() -> [Entry] {
    defer { entries = [] }
    return entries
  }

  /// Removes and returns the entries `shouldRemove` picks. O(n).
  mutating func removeAll(where shouldRemove: (Entry) -> Bool) -> [Entry] {
    let removed = entries.filter(shouldRemove)
    guard !removed.isEmpty else { return [] }
    entries.removeAll(where: shouldRemove)
    heapify()
    return removed
  }

  private mutating func popFirst() -> Entry {
    let first = entries[0]
    let last = entries.removeLast()
    if !entries.isEmpty {
      entries[0] = last
      siftDown(0)
    }
    return first
  }

  private mutating func heapify() {
    for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].precedes(entries[parent]) else { return }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      var smallest = parent
      let left = 2 * parent + 1
      let right = left + 1
      if left < entries.count && entries[left].precedes(entries[smallest]) { smallest = left }
      if right < entries.count && entries[right].precedes(entries[smallest]) { smallest = right }
      guard smallest != parent else { return }
      entries.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
