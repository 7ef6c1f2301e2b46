/// The loop's priority queue of pending timers: which slot is due next.
///
/// The queue orders *slots* (small integers naming a timer in the scheduler's
/// table) by `(deadline, sequence)`. `sequence` grows with every push and every
/// reschedule, so timers with equal deadlines come out in the order they were
/// last scheduled (FIFO). The queue knows nothing of closures or threads.
///
/// ## Structure: a 4-ary min-heap with lazy re-keying
///
/// Servers re-arm idle timeouts on every request and cancel most timers before
/// they fire; both always move a timer *later* or remove it. The heap therefore
/// holds nodes that may be stale, and each slot's true key lives beside it in
/// `keys`:
/// - Moving a timer later only rewrites its key: O(1). Its node stays where it
///   is, now earlier than the truth, and is re-pushed with the true key when it
///   reaches the top.
/// - Cancelling only clears the key: O(1). The orphaned node is dropped when it
///   reaches the top.
/// - Moving a timer earlier pushes a fresh node, O(log n); the old one becomes
///   an orphan.
/// - When orphans outnumber live nodes the heap is rebuilt in O(n), so memory
///   stays within a constant factor of the live timers (amortised O(1) per
///   operation).
///
/// A node is never *later* than its slot's true key, so the top node's
/// deadline is a lower bound of the earliest deadline and nothing can fire
/// early: ``popFirst(dueAt:)`` and ``earliest()`` first bring the top up to
/// date. This is the lazy-deletion idea of Go's runtime timer heap and of
/// many idle-timeout implementations, applied to re-keying as well. A
/// hierarchical timing wheel (Varghese & Lauck) would also give O(1) resets,
/// but costs three random memory accesses per reset (unlink two neighbours,
/// link a tail) against one here, and needs cascading and bitmap scans to find
/// the exact earliest deadline.
///
/// Complexity: `push` O(log n) worst case, O(1) when deadlines grow (the usual
/// "now + timeout"); `reschedule` later and `remove` O(1) amortised;
/// `popFirst` and `earliest` O(log n) amortised.
///
/// Invariants (checked after every mutation by `checkInvariants()` in debug
/// builds while the heap holds at most 256 nodes, which covers every unit
/// test, so that a debug build of an application with many timers does not
/// turn quadratic; compiled out in release):
/// 1. Heap order: no node sorts before its parent by `(deadline, sequence)`.
/// 2. Each queued slot owns exactly one node, the one whose sequence is its
///    `nodeSequence`, and that node's key is not later than the slot's key.
/// 3. `liveCount` is the number of queued slots; every other node is an orphan.
/// 4. Every sequence is below `nextSequence`.
struct TimerQueue {
  struct Node {
    var deadline: Int64
    var sequence: UInt64
    var slot: UInt32
  }

  /// A slot's true key, and which heap node stands for it (0: not queued).
  struct Key {
    var deadline: Int64 = 0
    var sequence: UInt64 = 0
    var nodeSequence: UInt64 = 0
  }

  private var heap: [Node] = []
  private var keys: [Key] = []
  private(set) var liveCount = 0
  /// Starts at 1 so that 0 can mean "no node".
  private var nextSequence: UInt64 = 1

  var count: Int { liveCount }
  /// Heap nodes, live and orphaned: at most `2 × count + 64`.
  var nodeCount: Int { heap.count }
  var isEmpty: Bool { liveCount == 0 }

  /// The deadline `slot` was last queued for: while it is queued, and right
  /// after ``popFirst(dueAt:)`` returned it, the deadline it is (was) due at.
  func deadline(of slot: UInt32) -> Deadline {
    Deadline(uptimeNanoseconds: keys[Int(slot)].deadline)
  }

  func contains(slot: UInt32) -> Bool {
    Int(slot) < keys.count && keys[Int(slot)].nodeSequence != 0
  }

  /// Queues `slot` at `deadline`, behind every slot already queued for that deadline.
  /// - Precondition: `slot` is not queued.
  mutating func push(slot: UInt32, deadline: Deadline) {
    let sequence = takeSequence()
    let key = Key(deadline: deadline.uptimeNanoseconds, sequence: sequence, nodeSequence: sequence)
    if Int(slot) < keys.count {
      precondition(keys[Int(slot)].nodeSequence == 0, "slot \(slot) is already queued")
      keys[Int(slot)] = key
    } else {
      // Slots are handed out densely, so a new one is almost always the next.
      keys.append(contentsOf: repeatElement(Key(), count: Int(slot) - keys.count))
      keys.append(key)
    }
    liveCount += 1
    pushNode(Node(deadline: deadline.uptimeNanoseconds, sequence: sequence, slot: slot))
    checkInvariants()
  }

  /// Moves a queued `slot` to `deadline`, behind every slot already queued for it.
  mutating func reschedule(slot: UInt32, to deadline: Deadline) {
    precondition(contains(slot: slot), "slot \(slot) is not queued")
    let sequence = takeSequence()
    let key = deadline.uptimeNanoseconds
    let movesEarlier = key < keys[Int(slot)].deadline
    keys[Int(slot)].deadline = key
    keys[Int(slot)].sequence = sequence
    if movesEarlier {
      // Earlier than its node may be: only a fresh node keeps the top a lower
      // bound. (The key is already updated: compaction rebuilds from it.)
      keys[Int(slot)].nodeSequence = sequence
      pushNode(Node(deadline: key, sequence: sequence, slot: slot))
      if heap.count > 2 * liveCount + 64 { compact() }
    }
    checkInvariants()
  }

  /// Dequeues `slot` if it is queued; returns whether it was.
  @discardableResult
  mutating func remove(slot: UInt32) -> Bool {
    guard contains(slot: slot) else { return false }
    keys[Int(slot)].nodeSequence = 0
    liveCount -= 1
    if heap.count > 2 * liveCount + 64 { compact() }
    checkInvariants()
    return true
  }

  /// The earliest deadline and its slot, or `nil` when nothing is queued.
  mutating func first() -> (deadline: Deadline, slot: UInt32)? {
    settleTop()
    return heap.first.map { (Deadline(uptimeNanoseconds: $0.deadline), $0.slot) }
  }

  /// Dequeues and returns the earliest slot if its deadline is at or before `now`.
  mutating func popFirst(dueAt now: Deadline) -> UInt32? {
    settleTop()
    guard let top = heap.first, top.deadline <= now.uptimeNanoseconds else { return nil }
    popNode()
    keys[Int(top.slot)].nodeSequence = 0
    liveCount -= 1
    checkInvariants()
    return top.slot
  }

  // MARK: Lazy maintenance

  private mutating func takeSequence() -> UInt64 {
    defer { nextSequence += 1 }
    return nextSequence
  }

  /// Drops orphans from the top and re-pushes a stale top with its true key,
  /// until the top node is exact (or the heap is empty).
  private mutating func settleTop() {
    while let top = heap.first {
      let key = keys[Int(top.slot)]
      if key.nodeSequence != top.sequence {
        popNode()  // orphan: cancelled, or superseded by an earlier node
      } else if key.deadline != top.deadline || key.sequence != top.sequence {
        popNode()  // moved later: re-push with its true key
        keys[Int(top.slot)].nodeSequence = key.sequence
        pushNode(Node(deadline: key.deadline, sequence: key.sequence, slot: top.slot))
      } else {
        return
      }
    }
  }

  /// Rebuilds the heap from its live nodes, each with its slot's true key
  /// (Floyd's O(n) heapify). Walks the heap, not every slot ever used, so the
  /// repeated compactions of a mass cancel cost O(n) in all.
  private mutating func compact() {
    var live = 0
    for index in heap.indices {
      let slot = Int(heap[index].slot)
      guard keys[slot].nodeSequence == heap[index].sequence else { continue }
      keys[slot].nodeSequence = keys[slot].sequence
      heap[live] = Node(
        deadline: keys[slot].deadline, sequence: keys[slot].sequence, slot: heap[index].slot)
      live += 1
    }
    heap.removeLast(heap.count - live)
    guard heap.count > 1 else { return }
    for index in stride(from: (heap.count - 2) / Self.arity, through: 0, by: -1) { siftDown(index) }
  }

  // MARK: Heap mechanics

  // A 4-ary heap: half the depth of a binary one, and a node's four children
  // share one or two cache lines, which matters once the heap outgrows the
  // cache (a million timers is 24 MB of nodes). Same procedures as CLRS ch. 6.
  private static let arity = 4

  private static func ordered(_ a: Node, before b: Node) -> Bool {
    a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
  }

  private mutating func pushNode(_ node: Node) {
    heap.append(node)
    heap.withUnsafeMutableBufferPointer { heap in
      var index = heap.count - 1
      while index > 0 {
        let parent = (index - 1) / Self.arity
        guard Self.ordered(node, before: heap[parent]) else { break }
        heap[index] = heap[parent]
        index = parent
      }
      heap[index] = node
    }
  }

  private mutating func popNode() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    siftDown(0)
  }

  // The two sifts run on the buffer directly: one uniqueness check per call
  // instead of one per element access, and no bounds checks in the loop
  // (every index is checked against `count` by the loop itself).
  private mutating func siftDown(_ start: Int) {
    heap.withUnsafeMutableBufferPointer { heap in
      var index = start
      let node = heap[index]
      let count = heap.count
      while true {
        let first = Self.arity * index + 1
        guard first < count else { break }
        var child = first
        for candidate in (first + 1)..<min(first + Self.arity, count)
        where Self.ordered(heap[candidate], before: heap[child]) {
          child = candidate
        }
        guard Self.ordered(heap[child], before: node) else { break }
        heap[index] = heap[child]
        index = child
      }
      heap[index] = node
    }
  }
}

extension TimerQueue {
  /// Verifies the invariants listed on ``TimerQueue``; traps with the values
  /// involved on the first violation. Compiled only in debug builds.
  func checkInvariants() {
    #if TIMERLOOP_CHECK_INVARIANTS
      guard heap.count <= 256 else { return }
      var owners = [UInt32: Int]()
      for (index, node) in heap.enumerated() {
        precondition(node.sequence < nextSequence, "sequence \(node.sequence) was never issued")
        if index > 0 {
          let parent = heap[(index - 1) / Self.arity]
          precondition(
            !Self.ordered(node, before: parent),
            "node \(index) (\(node.deadline), \(node.sequence)) sorts before its parent (\(parent.deadline), \(parent.sequence))"
          )
        }
        let key = keys[Int(node.slot)]
        if key.nodeSequence == node.sequence {
          precondition(owners[node.slot] == nil, "slot \(node.slot) owns two nodes")
          owners[node.slot] = index
          precondition(
            (node.deadline, node.sequence) <= (key.deadline, key.sequence),
            "slot \(node.slot)'s node (\(node.deadline), \(node.sequence)) is later than its key (\(key.deadline), \(key.sequence))"
          )
        }
      }
      let queued = keys.indices.filter { keys[$0].nodeSequence != 0 }
      precondition(
        queued.count == liveCount, "\(queued.count) queued slots, liveCount \(liveCount)")
      for slot in queued {
        precondition(owners[UInt32(slot)] != nil, "queued slot \(slot) has no node")
      }
    #endif
  }
}
