import Glibc

/// The timers of a ``TimerWheel`` whose tick has come, in exact
/// `(deadline, sequence)` order: the only place timers leave the wheel from.
///
/// Two parts, and the first timer is the earlier of their fronts:
/// - a *run*, a sorted array that takes every timer arriving in order (no
///   earlier than the run's last). Timers come out of a wheel slot mostly in
///   order (a batch of equal timeouts, periodic timers re-queued as they
///   fire), so the run takes most of them, and each costs O(1) in and out. A
///   timer leaving from the middle leaves a tombstone, skipped at the front
///   and swept out when tombstones outnumber live timers.
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

  /// The run's nodes: `runCount` of them, in room for `runCapacity`. Behind
  /// a pointer, not in an array: an append then costs no uniqueness check,
  /// emptying the run no call to the array's generic `removeAll`, and a
  /// burst grows it with `realloc`, which moves large blocks without copying
  /// (figures in Benchmarks/RESULTS.md).
  private(set) var run = UnsafeMutablePointer<Node>(bitPattern: MemoryLayout<Node>.alignment)!
  private(set) var runCount = 0
  private var runCapacity = 0
  /// Nodes of `run` before this have left.
  private(set) var runStart = 0
  /// Nodes after `runStart` that have left (their slot is ``TimerWheel/Link/unqueued``).
  private(set) var tombstones = 0
  private(set) var heap: [Node] = []

  init() {}

  deinit {
    if runCapacity > 0 { free(run) }
  }

  static func ordered(_ a: Node, before b: Node) -> Bool {
    a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
  }

  /// The earliest node, or `nil` when empty.
  var first: Node? {
    let front = runStart < runCount ? run[runStart] : nil
    guard let top = heap.first else { return front }
    guard let front else { return top }
    return Self.ordered(front, before: top) ? front : top
  }

  mutating func insert(_ node: Node, rows: UnsafeMutablePointer<Row>) {
    if runStart == runCount {
      runCount = 0
      runStart = 0
      tombstones = 0
    }
    if runCount > 0 && Self.ordered(node, before: run[runCount - 1]) {
      heap.append(node)
      siftUp(heap.count - 1, rows: rows)
    } else {
      if runCount == runCapacity { makeRoom(rows: rows) }
      rows[Int(node.slot)].prev = Self.runBit | UInt32(runCount)
      run[runCount] = node
      runCount += 1
    }
  }

  /// Makes room for one more node at the end of the run: sweeps it when
  /// nodes that have left fill half of it, else doubles its room with
  /// `realloc`. Without the sweep, popped nodes stay until an insert finds
  /// the run drained, and a queue that always holds a node then (passes that
  /// reach the next tick before the last tick's timers are popped, timers
  /// re-armed for `now` from their callbacks) keeps every node it ever held.
  /// Amortised O(1): a sweep moves at most half the room, after at least
  /// half the room's appends.
  @inline(never)
  private mutating func makeRoom(rows: UnsafeMutablePointer<Row>) {
    if (runStart + tombstones) * 2 >= runCount && runCount > 0 { return sweepRun(rows: rows) }
    UnsafeMutablePointer.growByDoubling(&run, capacity: &runCapacity, of: "near-queue nodes")
  }

  /// Takes out and returns the earliest node if its deadline is at or before
  /// `deadline`; `nil` when there is none. O(1) from the run, O(log k) from
  /// the heap: the firing path, without the tombstone ``remove(_:rows:)``
  /// leaves for a node taken from the middle.
  mutating func popFirst(dueAt deadline: Int64, rows: UnsafeMutablePointer<Row>) -> Node? {
    let front = runStart < runCount ? run[runStart] : nil
    if let top = heap.first, front.map({ Self.ordered(top, before: $0) }) ?? true {
      guard top.deadline <= deadline else { return nil }
      removeFromHeap(at: 0, rows: rows)
      return top
    }
    guard let front, front.deadline <= deadline else { return nil }
    // The run never starts with a tombstone, so its front is live.
    runStart += 1
    while runStart < runCount && run[runStart].slot == TimerWheel.Link.unqueued {
      runStart += 1
      tombstones -= 1
    }
    return front
  }

  /// Takes out the node of `slot`, found through its row's `prev`.
  mutating func remove(_ slot: UInt32, rows: UnsafeMutablePointer<Row>) {
    let position = rows[Int(slot)].prev
    guard position & Self.runBit != 0 else { return removeFromHeap(at: Int(position), rows: rows) }
    run[Int(position & ~Self.runBit)].slot = TimerWheel.Link.unqueued
    tombstones += 1
    while runStart < runCount && run[runStart].slot == TimerWheel.Link.unqueued {
      runStart += 1
      tombstones -= 1
    }
    if tombstones > runCount - runStart - tombstones + 64 { sweepRun(rows: rows) }
  }

  /// Drops tombstones and the consumed prefix from the run. O(run).
  private mutating func sweepRun(rows: UnsafeMutablePointer<Row>) {
    var live = 0
    for index in runStart..<runCount where run[index].slot != TimerWheel.Link.unqueued {
      run[live] = run[index]
      rows[Int(run[live].slot)].prev = Self.runBit | UInt32(live)
      live += 1
    }
    runCount = live
    runStart = 0
    tombstones = 0
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
  /// Verifies the run's order and tombstone count, the heap's order, and that
  /// every live node's row points back at it; returns the live slots. Traps
  /// on the first violation. For ``TimerWheel/checkInvariants()``.
  func checkInvariants(rows: UnsafeMutablePointer<Row>) -> [UInt32] {
    var slots: [UInt32] = []
    var dead = 0
    for index in runStart..<runCount {
      let node = run[index]
      if index > runStart {
        precondition(
          !Self.ordered(node, before: run[index - 1]), "run node \(index) is out of order")
      }
      guard node.slot != TimerWheel.Link.unqueued else {
        dead += 1
        continue
      }
      precondition(rows[Int(node.slot)].prev == Self.runBit | UInt32(index), "run node \(index)")
      precondition(Self.keyMatches(node, rows), "run node \(index)'s key is not its row's")
      slots.append(node.slot)
    }
    precondition(dead == tombstones, "\(dead) tombstones, counted \(tombstones)")
    precondition(
      runStart == runCount || run[runStart].slot != TimerWheel.Link.unqueued,
      "the run starts with a tombstone")
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
