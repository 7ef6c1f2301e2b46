import Glibc

/// Timers in `(deadline, sequence)` order, appended only at the back, taken
/// from the front, or taken from the middle leaving a tombstone that is
/// skipped at the front and swept out when tombstones outnumber live nodes.
/// Each costs O(1) (a sweep or a growth is amortised over the appends before
/// it). Timers arriving in order fill it: the ``NearQueue``'s run, and the
/// ``TimerWheel``'s run of repeating timers queued ahead of their tick.
///
/// A ring: a run that never drains (repeating timers, each appended as
/// another is taken) reuses the room its front leaves, where an array would
/// have to move its nodes down, rewriting each node's row, once per half of
/// its room.
///
/// Each live node's row holds its index in `nodes` in `prev`, or-ed with the
/// run's `positionTag`, so its owner can tell this run's positions from others'.
struct SortedRun: ~Copyable {
  typealias Node = TimerWheel.Node
  typealias Row = TimerWheel.Row

  let positionTag: UInt32
  /// Room for `capacity` nodes, a power of two (or none). Behind a pointer,
  /// not in an array: an append then costs no uniqueness check (figures in
  /// Benchmarks/RESULTS.md).
  private(set) var nodes = UnsafeMutablePointer<Node>(bitPattern: MemoryLayout<Node>.alignment)!
  private(set) var capacity = 0
  /// The run is the nodes from `start` up to `end`, counted from the first
  /// node ever appended since the run last drained; node `n` is at `n & mask`.
  private(set) var start = 0
  private(set) var end = 0
  private var mask = 0
  /// Nodes between `start` and `end` that have left (their slot is
  /// ``TimerWheel/Link/unqueued``).
  private(set) var tombstones = 0

  init(positionTag: UInt32) {
    self.positionTag = positionTag
  }

  deinit {
    if capacity > 0 { free(nodes) }
  }

  /// How many nodes the run holds, tombstones included.
  var count: Int { end - start }

  /// The earliest node, or `nil` when empty. The run never starts with a
  /// tombstone, so it is live.
  var front: Node? {
    start < end ? nodes[start & mask] : nil
  }

  /// Whether `node` may be appended: the run is empty, or its last node (live
  /// or not) does not sort after `node`.
  func admits(_ node: Node) -> Bool {
    start == end || !NearQueue.ordered(node, before: nodes[(end &- 1) & mask])
  }

  /// Appends `node`, which the run ``admits(_:)``, and records its position
  /// in its row.
  @inline(__always)
  mutating func append(_ node: Node, rows: UnsafeMutablePointer<Row>) {
    if start == end {
      start = 0
      end = 0
      tombstones = 0
    }
    if end &- start == capacity { makeRoom(rows: rows) }
    let index = end & mask
    rows[Int(node.slot)].prev = positionTag | UInt32(truncatingIfNeeded: index)
    nodes[index] = node
    end &+= 1
  }

  /// Makes room for one more node in a full ring: sweeps out tombstones when
  /// they fill half of it, else doubles its room with `realloc` and moves the
  /// nodes that had wrapped around to the new room after the others, so that
  /// only their rows are rewritten (none when the run started at index 0, as
  /// one that filled up since it last drained does). Amortised O(1): a sweep
  /// after at least half the room's removals, a doubling after as many
  /// appends as it moves nodes.
  @inline(never)
  private mutating func makeRoom(rows: UnsafeMutablePointer<Row>) {
    if tombstones * 2 >= count && count > 0 { return sweep(rows: rows) }
    let oldCapacity = capacity
    let first = start & mask
    let count = self.count
    UnsafeMutablePointer.growByDoubling(&nodes, capacity: &capacity, of: "queued timer nodes")
    // A position must leave the near queue's run bit clear.
    precondition(capacity <= Int(NearQueue.runBit), "too many queued timer nodes")
    for index in 0..<max(first + count - oldCapacity, 0) {
      let node = nodes[index]
      nodes[oldCapacity + index] = node
      if node.slot != TimerWheel.Link.unqueued {
        rows[Int(node.slot)].prev = positionTag | UInt32(oldCapacity + index)
      }
    }
    // Node `n` is now at `n`, below the new room's size.
    start = first
    end = first + count
    mask = capacity - 1
  }

  /// Takes out the front node.
  /// - Precondition: the run is not empty.
  @inline(__always)
  mutating func dropFront() {
    start &+= 1
    skipTombstones()
  }

  /// Takes out the node at `index` (its row's position without the tag).
  mutating func remove(at index: Int, rows: UnsafeMutablePointer<Row>) {
    nodes[index].slot = TimerWheel.Link.unqueued
    tombstones += 1
    skipTombstones()
    if tombstones > count - tombstones + 64 { sweep(rows: rows) }
  }

  @inline(__always)
  private mutating func skipTombstones() {
    while start < end && nodes[start & mask].slot == TimerWheel.Link.unqueued {
      start &+= 1
      tombstones -= 1
    }
  }

  /// Drops the tombstones, moving the live nodes to the front. O(count).
  private mutating func sweep(rows: UnsafeMutablePointer<Row>) {
    var live = start
    for logical in start..<end where nodes[logical & mask].slot != TimerWheel.Link.unqueued {
      let node = nodes[logical & mask]
      nodes[live & mask] = node
      rows[Int(node.slot)].prev = positionTag | UInt32(live & mask)
      live += 1
    }
    end = live
    tombstones = 0
  }

  /// Verifies the order and tombstone count, and that every live node's row
  /// points back at it with the node's key; returns the live slots. Traps on
  /// the first violation. For ``TimerWheel/checkInvariants()``.
  func checkInvariants(rows: UnsafeMutablePointer<Row>) -> [UInt32] {
    var slots: [UInt32] = []
    var dead = 0
    precondition(count <= capacity, "\(count) nodes in room for \(capacity)")
    for logical in start..<end {
      let index = logical & mask
      let node = nodes[index]
      if logical > start {
        precondition(
          !NearQueue.ordered(node, before: nodes[(logical - 1) & mask]),
          "run node \(logical) is out of order")
      }
      guard node.slot != TimerWheel.Link.unqueued else {
        dead += 1
        continue
      }
      precondition(rows[Int(node.slot)].prev == positionTag | UInt32(index), "run node \(logical)")
      precondition(
        rows[Int(node.slot)].deadline == node.deadline
          && rows[Int(node.slot)].sequence == node.sequence,
        "run node \(logical)'s key is not its row's")
      slots.append(node.slot)
    }
    precondition(dead == tombstones, "\(dead) tombstones, counted \(tombstones)")
    precondition(
      start == end || nodes[start & mask].slot != TimerWheel.Link.unqueued,
      "the run starts with a tombstone")
    return slots
  }
}
