/// The loop's priority queue of pending timers: which slot is due next.
///
/// The queue orders *slots* (small integers naming a timer in the scheduler's
/// table) by `(deadline, sequence)`, where `sequence` grows with every push, so
/// timers with equal deadlines come out in the order they were pushed (FIFO).
/// It knows nothing of closures or threads; the scheduler owns both. This is
/// the whole interface a replacement (for example a timing wheel) must offer.
///
/// The structure is an array-backed binary min-heap (CLRS ch. 6) whose nodes
/// carry the deadline inline, plus a `positions` table from slot to heap index,
/// so `remove(slot:)` finds its node without a search (as libuv's intrusive
/// heap does). Complexity: `push`, `remove`, `popFirst` O(log n); `first` O(1).
///
/// Invariants (checked after every mutation by `checkInvariants()` in debug
/// builds, compiled out in release):
/// 1. Heap order: no node sorts before its parent by `(deadline, sequence)`.
/// 2. Back-pointers: `positions[heap[i].slot] == i` for every heap index `i`.
/// 3. Membership: a slot whose position is not `notQueued` is in the heap exactly
///    once; `count` equals the number of such slots.
/// 4. Sequences are unique and smaller than `nextSequence`.
struct TimerQueue {
  struct Node {
    var deadline: Int64
    var sequence: UInt64
    var slot: UInt32
  }

  static let notQueued: Int32 = -1

  private var heap: [Node] = []
  /// Heap index of each slot, or `notQueued`.
  private var positions: [Int32] = []
  private var nextSequence: UInt64 = 0

  var count: Int { heap.count }
  var isEmpty: Bool { heap.isEmpty }

  /// The earliest deadline and its slot, or `nil` when nothing is queued. O(1).
  var first: (deadline: Deadline, slot: UInt32)? {
    guard let node = heap.first else { return nil }
    return (Deadline(uptimeNanoseconds: node.deadline), node.slot)
  }

  func contains(slot: UInt32) -> Bool {
    Int(slot) < positions.count && positions[Int(slot)] != Self.notQueued
  }

  /// Queues `slot` at `deadline`, behind every slot already queued at the same deadline.
  /// - Precondition: `slot` is not queued.
  mutating func push(slot: UInt32, deadline: Deadline) {
    if Int(slot) >= positions.count {
      positions.append(contentsOf: repeatElement(Self.notQueued, count: Int(slot) + 1 - positions.count))
    }
    precondition(positions[Int(slot)] == Self.notQueued, "slot \(slot) is already queued")
    heap.append(Node(deadline: deadline.uptimeNanoseconds, sequence: nextSequence, slot: slot))
    nextSequence &+= 1
    siftUp(heap.count - 1)
    checkInvariants()
  }

  /// Removes `slot` if it is queued; returns whether it was.
  @discardableResult
  mutating func remove(slot: UInt32) -> Bool {
    guard contains(slot: slot) else { return false }
    let index = Int(positions[Int(slot)])
    positions[Int(slot)] = Self.notQueued
    let last = heap.removeLast()
    if index < heap.count {
      place(last, at: index)
      siftUp(index)
      siftDown(Int(positions[Int(last.slot)]))
    }
    checkInvariants()
    return true
  }

  /// Removes and returns the earliest slot if its deadline is at or before `now`.
  mutating func popFirst(dueAt now: Deadline) -> UInt32? {
    guard let top = heap.first, top.deadline <= now.uptimeNanoseconds else { return nil }
    remove(slot: top.slot)
    return top.slot
  }

  // MARK: Heap mechanics (CLRS: PARENT, HEAPIFY, HEAP-DECREASE-KEY)

  private static func ordered(_ a: Node, before b: Node) -> Bool {
    a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
  }

  private mutating func place(_ node: Node, at index: Int) {
    heap[index] = node
    positions[Int(node.slot)] = Int32(index)
  }

  private mutating func siftUp(_ start: Int) {
    var index = start
    let node = heap[index]
    while index > 0 {
      let parent = (index - 1) / 2
      guard Self.ordered(node, before: heap[parent]) else { break }
      place(heap[parent], at: index)
      index = parent
    }
    place(node, at: index)
  }

  private mutating func siftDown(_ start: Int) {
    var index = start
    let node = heap[index]
    let count = heap.count
    while true {
      var child = 2 * index + 1
      guard child < count else { break }
      if child + 1 < count && Self.ordered(heap[child + 1], before: heap[child]) { child += 1 }
      guard Self.ordered(heap[child], before: node) else { break }
      place(heap[child], at: index)
      index = child
    }
    place(node, at: index)
  }
}

extension TimerQueue {
  /// Verifies the invariants listed on ``TimerQueue``; traps with the values
  /// involved on the first violation. Compiled only in debug builds.
  func checkInvariants() {
    #if TIMERLOOP_CHECK_INVARIANTS
      var queued = 0
      for (slot, position) in positions.enumerated() where position != Self.notQueued {
        queued += 1
        precondition(
          Int(position) < heap.count && heap[Int(position)].slot == UInt32(slot),
          "slot \(slot) claims heap index \(position), which holds another slot")
      }
      precondition(queued == heap.count, "\(queued) slots claim a place in a heap of \(heap.count)")
      var sequences = Set<UInt64>()
      for (index, node) in heap.enumerated() {
        precondition(node.sequence < nextSequence, "sequence \(node.sequence) was never issued")
        precondition(sequences.insert(node.sequence).inserted, "sequence \(node.sequence) twice")
        if index > 0 {
          let parent = heap[(index - 1) / 2]
          precondition(
            !Self.ordered(node, before: parent),
            "node \(index) (\(node.deadline), \(node.sequence)) sorts before its parent (\(parent.deadline), \(parent.sequence))"
          )
        }
      }
    #endif
  }
}
