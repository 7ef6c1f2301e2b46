/// The timers of a ``TimerWheel`` whose tick has come, in exact
/// `(deadline, sequence)` order: the only place timers leave the wheel from.
///
/// Two parts, and the first timer is the earlier of their fronts:
/// - a *run* (``SortedRun``) that takes every timer arriving in order (no
///   earlier than the run's last). Timers come out of a wheel slot mostly in
///   order (a batch of equal timeouts, periodic timers re-queued as they
///   fire), so the run takes most of them, and each costs O(1) in and out.
/// - a 4-ary min-heap (CLRS ch. 6 with four children: half the depth of a
///   binary heap, and a node's children share a cache line) for the rest:
///   O(log k) in and out.
///
/// Each queued row's `prev` holds its position, so a timer can leave from
/// anywhere: a heap index, or a run index with ``runBit`` set.
struct NearQueue: ~Copyable {
  typealias Node = TimerWheel.Node
  typealias Row = TimerWheel.Row

  /// Set in a row's `prev` when its node is in the run.
  static let runBit: UInt32 = 1 << 31
  private static let arity = 4

  private(set) var run = SortedRun(positionTag: runBit)
  private(set) var heap: [Node] = []

  init() {}

  static func ordered(_ a: Node, before b: Node) -> Bool {
    a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
  }

  /// The earliest node, or `nil` when empty.
  var first: Node? {
    let front = run.front
    guard let top = heap.first else { return front }
    guard let front else { return top }
    return Self.ordered(front, before: top) ? front : top
  }

  mutating func insert(_ node: Node, rows: UnsafeMutablePointer<Row>) {
    if run.admits(node) {
      run.append(node, rows: rows)
    } else {
      heap.append(node)
      siftUp(heap.count - 1, rows: rows)
    }
  }

  /// Takes out and returns the earliest node if its deadline is at or before
  /// `deadline`; `nil` when there is none. O(1) from the run, O(log k) from
  /// the heap: the firing path, without the tombstone ``remove(_:rows:)``
  /// leaves for a node taken from the middle.
  @inline(__always)
  mutating func popFirst(dueAt deadline: Int64, rows: UnsafeMutablePointer<Row>) -> Node? {
    let front = run.front
    if let top = heap.first, front.map({ Self.ordered(top, before: $0) }) ?? true {
      guard top.deadline <= deadline else { return nil }
      removeFromHeap(at: 0, rows: rows)
      return top
    }
    guard let front, front.deadline <= deadline else { return nil }
    run.dropFront()
    return front
  }

  /// Takes out the node of `slot`, found through its row's `prev`.
  mutating func remove(_ slot: UInt32, rows: UnsafeMutablePointer<Row>) {
    let position = rows[Int(slot)].prev
    guard position & Self.runBit != 0 else { return removeFromHeap(at: Int(position), rows: rows) }
    run.remove(at: Int(position & ~Self.runBit), rows: rows)
  }

  // MARK: The heap

  private mutating func removeFromHeap(at index: Int, rows: UnsafeMutablePointer<Row>) {
    let last = heap.removeLast()
    guard index < heap.count else { return }
    heap[index] = last
    if index > 0 && Self.ordered(last, before: heap[(index - 1) / Self.arity]) {
      siftUp(index, rows: rows)
    } else {
      siftDown(index, rows: rows)
    }
  }

  // The sifts run on the buffer directly: one uniqueness check per call, not
  // one per element access.
  private mutating func siftUp(_ start: Int, rows: UnsafeMutablePointer<Row>) {
    heap.withUnsafeMutableBufferPointer { heap in
      var index = start
      let node = heap[index]
      while index > 0 {
        let parent = (index - 1) / Self.arity
        guard Self.ordered(node, before: heap[parent]) else { break }
        heap[index] = heap[parent]
        rows[Int(heap[index].slot)].prev = UInt32(index)
        index = parent
      }
      heap[index] = node
      rows[Int(node.slot)].prev = UInt32(index)
    }
  }

  private mutating func siftDown(_ start: Int, rows: UnsafeMutablePointer<Row>) {
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
        rows[Int(heap[index].slot)].prev = UInt32(index)
        index = child
      }
      heap[index] = node
      rows[Int(node.slot)].prev = UInt32(index)
    }
  }
}

extension NearQueue {
  /// Verifies the run's and the heap's order, and that every live node's
  /// row points back at it; returns the live slots. Traps on the first
  /// violation. For ``TimerWheel/checkInvariants()``.
  func checkInvariants(rows: UnsafeMutablePointer<Row>) -> [UInt32] {
    var slots = run.checkInvariants(rows: rows)
    for (index, node) in heap.enumerated() {
      if index > 0 {
        precondition(
          !Self.ordered(node, before: heap[(index - 1) / Self.arity]),
          "heap node \(index) sorts before its parent")
      }
      precondition(rows[Int(node.slot)].prev == UInt32(index), "heap node \(index)")
      precondition(Self.keyMatches(node, rows), "heap node \(index)'s key is not its row's")
      slots.append(node.slot)
    }
    return slots
  }

  private static func keyMatches(_ node: Node, _ rows: UnsafeMutablePointer<Row>) -> Bool {
    rows[Int(node.slot)].deadline == node.deadline && rows[Int(node.slot)].sequence == node.sequence
  }
}
