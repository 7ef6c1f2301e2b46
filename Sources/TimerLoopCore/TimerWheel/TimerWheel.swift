import Glibc

/// The loop's timers and the order they come due in: one row per timer slot
/// (its ``TimerEntry``, its deadline and its place in the structure), a
/// hierarchical timing wheel for timers due after the current tick, and a
/// near queue for those due within it.
///
/// Timers are named by *slot*, a small integer the scheduler's table hands
/// out. Timers due at the same deadline come out in the order they were last
/// scheduled (FIFO): every push and reschedule takes a fresh 64-bit sequence
/// number, and ties are broken by it.
///
/// ## Structure
///
/// A hierarchical timing wheel (Varghese & Lauck, "Hashed and Hierarchical
/// Timing Wheels", SOSP 1987) laid out as in tokio's and the Linux kernel's:
/// 8 levels of 64 slots; a level-0 slot spans one tick of 2^16 ns
/// (65.536 µs), a level-n slot 64^n ticks, so the 8 levels cover every
/// deadline an `Int64` can hold. A timer is filed at the lowest level whose
/// slot can tell its tick apart from the current tick (`elapsed`), in an
/// intrusive doubly linked list through the rows, so filing and unlinking are
/// O(1). A 64-bit bitmap per level finds the earliest occupied slot in O(1).
/// When time reaches a slot, its timers are filed again relative to the new
/// tick: each visit moves a timer down at least one level ("cascading"), so a
/// timer is filed at most 8 times plus once per visit after a move later; for
/// typical timeouts 2 or 3 times.
///
/// The wheel only sorts timers into ticks. Timers whose tick has come move to
/// the ``NearQueue``, ordered by `(deadline, sequence)`: the exact nanosecond
/// order, and FIFO ties. Nothing ever fires before its deadline: a timer
/// leaves only through the near queue or the ahead run (below), and only once
/// its exact deadline is at or before `now`, the earlier of their fronts first.
///
/// Repeating timers skip the wheel when they can. One re-queued for its next
/// period (``requeue(slot:at:)``) fewer than ``aheadSpan`` ticks ahead,
/// and in order after the last timer so re-queued, is appended to the
/// *ahead run*, a ``SortedRun`` it is popped from when due: timers of one
/// period, re-queued in the order they fire, arrive in deadline order, and
/// each then costs an append and a pop where the wheel cost a filing, a
/// cascade to level 0 and a move to the near queue (figures in
/// Benchmarks/RESULTS.md). Any other goes to the wheel.
///
/// Servers re-arm idle timeouts on every request and cancel most timers
/// before they fire. Moving a timer *later* only rewrites the deadline in its
/// row: it stays filed in its earlier slot, and is filed again by its true
/// deadline when time reaches that slot (lazy re-keying). Moving it earlier,
/// or cancelling it, unlinks it.
///
/// Complexity, n pending timers: `push`, `reschedule`, `remove` O(1) for a
/// timer in the wheel, O(1) or O(log k) for one of the k timers in the near
/// queue; `popFirst` O(1) amortised plus the near queue's O(1) or O(log k);
/// `earliestDeadline` O(1) to read the
/// bitmaps, plus, once per slot, a scan of the earliest slot's list (see
/// ``earliestDeadline()``). Memory: one 48-byte row per slot, 4 KB of
/// list heads, and the near queue.
///
/// Invariants, checked after every queue operation by `checkInvariants()` in debug
/// builds while at most 256 rows exist (every unit test; compiled out in
/// release):
/// 1. A queued row is in exactly one place: the list of one wheel slot, or the
///    near queue or the ahead run at the position its `prev` holds.
/// 2. A row filed in wheel slot (level, index) has an index above `elapsed`'s
///    at that level and a deadline no earlier than the slot's start; a
///    level's bitmap bit is set exactly when its list is non-empty.
/// 3. Near-queue rows are due at or before the end of tick `elapsed`; the
///    queue's own invariants hold (``NearQueue/checkInvariants(rows:)``), and
///    the ahead run's (``SortedRun/checkInvariants(rows:)``).
/// 4. `count` is the number of queued rows; every sequence is below
///    `nextSequence`.
struct TimerWheel: ~Copyable {
  /// One timer slot: the table's entry and the wheel's bookkeeping, in one row
  /// so that re-arming or cancelling touches one place in memory.
  struct Row {
    /// The slot's deadline, in nanoseconds of the monotonic clock.
    var deadline: Int64 = 0
    /// Orders equal deadlines: taken from `nextSequence` on every (re)schedule.
    var sequence: UInt64 = 0
    /// In the wheel: the next row of the slot's list, or its head
    /// (``Link/firstHead`` + list number). In the near queue: ``Link/near``;
    /// in the ahead run: ``Link/ahead``. Otherwise ``Link/unqueued``.
    var next = Link.unqueued
    /// In the wheel: the previous row, or the list's head. In the near queue
    /// or the ahead run: its position there.
    var prev: UInt32 = 0
    var entry = TimerEntry()

    mutating func setKey(_ deadline: Int64, _ sequence: UInt64) {
      self.deadline = deadline
      self.sequence = sequence
    }
  }

  /// Values of `Row.next` and `Row.prev` above any row number.
  enum Link {
    static let unqueued = UInt32.max
    static let near = UInt32.max - 1
    static let ahead = UInt32.max - 2
    /// `firstHead + list` names list `list` (`level × 64 + slot`) in a link.
    static let firstHead = ahead - UInt32(TimerWheel.listCount)
  }

  /// The head of one slot's circular list: its first and last rows, or itself
  /// when empty.
  struct Head {
    var next: UInt32
    var prev: UInt32
  }

  /// A near-queue node: a copy of the row's key, so comparisons stay there.
  struct Node {
    var deadline: Int64
    var sequence: UInt64
    var slot: UInt32
  }

  /// A tick is 2^16 ns (65.536 µs): short enough that the near queue stays
  /// small, long enough that a level-0 slot is visited only ~15,000 times a
  /// second. It sets no precision: deadlines are kept to the nanosecond.
  static let tickShift: UInt64 = 16
  static let slotBits = 6
  static let slotsPerLevel = 1 << slotBits
  /// 8 levels × 6 bits cover the 47 bits of tick an `Int64` deadline has.
  static let levelCount = 8
  static let listCount = levelCount * slotsPerLevel
  /// How many rows of the earliest wheel slot above level 0
  /// ``earliestDeadline()`` looks at before it settles for the slot's start (a
  /// lower bound). A far slot may hold millions of timers; a level-0 slot is
  /// scanned whole, once, since its rows all come due within a tick.
  static let scanLimit = 64
  /// How many ticks ahead (268 ms) a repeating timer may be appended to the
  /// ahead run. A timer there turns away every repeating timer due before it
  /// until it comes due itself: one far ahead would send the others back to
  /// the wheel for as long.
  static let aheadSpan: UInt64 = 1 << UInt64(2 * slotBits)

  private(set) var rows: UnsafeMutablePointer<Row>
  private(set) var rowCount = 0
  private var rowCapacity = 0
  /// The list heads, level by level (`listCount` of them). Behind a pointer,
  /// like the rows: a 4 KB inline array is copied whole by some accesses.
  let heads: UnsafeMutablePointer<Head>
  /// Per level, a bit per slot whose list is non-empty (`levelCount` of them).
  let occupied: UnsafeMutablePointer<UInt64>
  private(set) var near = NearQueue()
  /// Repeating timers queued ahead of their tick, in deadline order.
  private(set) var ahead = SortedRun(positionTag: 0)
  /// The wheel's current tick: every wheel slot before it has been visited.
  private(set) var elapsed: UInt64
  private(set) var nextSequence: UInt64 = 1
  /// A lower bound of the deadlines in wheel list `list`, from the last scan
  /// by ``earliestDeadline()``: filing into the list lowers it, and removals
  /// and later moves leave it a valid (if early) bound. Dropped when the list
  /// empties, before the list is reused for a later span.
  private var scanned: (list: Int, earliest: Int64)?
  /// Queued rows, in the wheel, the near queue or the ahead run.
  private(set) var count = 0

  /// - Parameter now: where the wheel's time starts; timers due before it are
  ///   filed straight into the near queue.
  init(now: Deadline) {
    rows = UnsafeMutablePointer(bitPattern: MemoryLayout<Row>.alignment)!
    elapsed = Self.tick(now.uptimeNanoseconds)
    heads = .allocate(capacity: Self.listCount)
    for list in 0..<Self.listCount {
      let head = Link.firstHead + UInt32(list)
      (heads + list).initialize(to: Head(next: head, prev: head))
    }
    occupied = .allocate(capacity: Self.levelCount)
    occupied.initialize(repeating: 0, count: Self.levelCount)
  }

  deinit {
    heads.deallocate()
    occupied.deallocate()
    guard rowCapacity > 0 else { return }
    rows.deinitialize(count: rowCount)
    free(rows)
  }

  static func tick(_ deadline: Int64) -> UInt64 {
    UInt64(max(deadline, 0)) >> tickShift
  }

  // MARK: Rows

  /// Adds a row holding `entry`, not queued; returns its slot. O(1) amortised.
  /// Inlined, like ``push(slot:deadline:)``, into the table's insert and from
  /// there into the scheduler's arm: as four nested calls, register saves and
  /// argument moves were a large share of an arm (figures in Benchmarks/RESULTS.md).
  @inline(__always)
  mutating func appendRow(_ entry: consuming TimerEntry) -> UInt32 {
    let slot = rowCount
    precondition(slot < Int(Link.firstHead), "more than \(Link.firstHead) timer slots")
    if slot == rowCapacity {
      UnsafeMutablePointer.growByDoubling(&rows, capacity: &rowCapacity, of: "timer slots")
    }
    (rows + slot).initialize(to: Row(entry: entry))
    rowCount = slot &+ 1
    return UInt32(truncatingIfNeeded: slot)
  }

  /// The deadline `slot` was last queued for: while it is queued, and right
  /// after ``popFirst(dueAt:)`` returned it, the deadline it is (was) due at.
  func deadline(of slot: UInt32) -> Deadline {
    Deadline(uptimeNanoseconds: rows[Int(slot)].deadline)
  }

  /// The link of an unqueued row in a list its owner keeps through such rows
  /// (the table's free slots): its `prev`, which only a queued row uses.
  func freeLink(of slot: UInt32) -> UInt32 {
    rows[Int(slot)].prev
  }

  /// Sets ``freeLink(of:)``.
  /// - Precondition: `slot` is not queued.
  func setFreeLink(_ link: UInt32, of slot: UInt32) {
    rows[Int(slot)].prev = link
  }

  func contains(slot: UInt32) -> Bool {
    Int(slot) < rowCount && rows[Int(slot)].next != Link.unqueued
  }

  // MARK: Queue operations

  /// Queues `slot` at `deadline`, behind every slot already queued for it.
  /// Adds rows up to `slot` if there are none yet (as tests do).
  /// - Precondition: `slot` is not queued.
  @inline(__always)
  mutating func push(slot: UInt32, deadline: Deadline) {
    if rowCount <= Int(slot) { addRows(through: slot) }
    precondition(rows[Int(slot)].next == Link.unqueued, "slot \(slot) is already queued")
    setKey(slot, deadline)
    file(slot)
    count += 1
    checkInvariants()
  }

  /// Queues `slot`, a repeating timer's, at `deadline`, its next one, behind
  /// every slot already queued for it: in the ahead run if its tick is after
  /// the current one by fewer than ``aheadSpan`` and it is due no earlier
  /// than the run's last, else as
  /// ``push(slot:deadline:)`` does.
  /// - Precondition: `slot` has a row and is not queued.
  @inline(__always)
  mutating func requeue(slot: UInt32, at deadline: Deadline) {
    precondition(rows[Int(slot)].next == Link.unqueued, "slot \(slot) is already queued")
    setKey(slot, deadline)
    count += 1
    let node = Node(
      deadline: deadline.uptimeNanoseconds, sequence: rows[Int(slot)].sequence, slot: slot)
    let ticks = Self.tick(node.deadline) &- elapsed
    if ticks &- 1 < Self.aheadSpan &- 1 && ahead.admits(node) {
      rows[Int(slot)].next = Link.ahead
      ahead.append(node, rows: rows)
    } else {
      file(slot)
    }
    checkInvariants()
  }

  /// Adds empty rows up to and including `slot`, for ``push(slot:deadline:)``.
  @inline(never)
  private mutating func addRows(through slot: UInt32) {
    while rowCount <= Int(slot) { _ = appendRow(TimerEntry()) }
  }

  /// Moves `slot` to `deadline`, behind every slot already queued for it;
  /// queues it if it is not queued (a timer running its callback).
  ///
  /// Inlined, for the idle-timeout pattern: moving a timer in the wheel
  /// later only rewrites its key. Every other case is not inlined.
  @inline(__always)
  mutating func reschedule(slot: UInt32, to deadline: Deadline) {
    precondition(Int(slot) < rowCount, "slot \(slot) has no row")
    let row = Int(slot)
    // In the wheel (not the near queue or the ahead run, not unqueued) and
    // later: the row's slot is visited no later than its new deadline's, and
    // is filed again by the new deadline then.
    if rows[row].next < Link.ahead && deadline.uptimeNanoseconds >= rows[row].deadline {
      setKey(slot, deadline)
      checkInvariants()
      return
    }
    refile(slot, at: deadline)
  }

  /// ``reschedule(slot:to:)`` for a row that is unqueued, in the near queue
  /// or the ahead run, or moves earlier: out of its place, then filed by
  /// `deadline`.
  @inline(never)
  private mutating func refile(_ slot: UInt32, at deadline: Deadline) {
    switch rows[Int(slot)].next {
    case Link.unqueued: count += 1
    case Link.near: near.remove(slot, rows: rows)
    case Link.ahead: ahead.remove(at: Int(rows[Int(slot)].prev), rows: rows)
    default: unlink(slot)
    }
    setKey(slot, deadline)
    file(slot)
    checkInvariants()
  }

  /// Dequeues `slot` if it is queued; returns whether it was. The check is
  /// inlined: a timer that just fired is freed unqueued.
  @inline(__always) @discardableResult
  mutating func remove(slot: UInt32) -> Bool {
    guard contains(slot: slot) else { return false }
    dequeue(slot)
    return true
  }

  /// Takes the queued `slot` out of its wheel list, the near queue or the
  /// ahead run.
  @inline(never)
  private mutating func dequeue(_ slot: UInt32) {
    let next = rows[Int(slot)].next
    if next < Link.ahead {
      unlink(slot)
    } else if next == Link.near {
      near.remove(slot, rows: rows)
    } else {
      ahead.remove(at: Int(rows[Int(slot)].prev), rows: rows)
    }
    rows[Int(slot)].next = Link.unqueued
    count &-= 1
    checkInvariants()
  }

  /// Dequeues and returns the earliest slot if its deadline is at or before
  /// `now`. A timer at ``Deadline/distantFuture`` never comes due. Inlined
  /// into the pass, its one caller, where a call costs the firing path more
  /// than the code it would save.
  @inline(__always)
  mutating func popFirst(dueAt now: Deadline) -> UInt32? {
    // Every wheel slot starts after `elapsed` (invariant 2), so only a later
    // tick has slots to visit: a pass pops many timers at one `now`, and the
    // check skips the call for all but the first.
    let tick = Self.tick(now.uptimeNanoseconds)
    if tick > elapsed { advance(to: tick) }
    checkInvariants()
    // distantFuture never comes due, so the bound stops just short of it.
    let bound = min(now.uptimeNanoseconds, Deadline.distantFuture.uptimeNanoseconds - 1)
    if let front = ahead.front, front.deadline <= bound,
      near.first.map({ !NearQueue.ordered($0, before: front) }) ?? true
    {
      ahead.dropFront()
      rows[Int(front.slot)].next = Link.unqueued
      count -= 1
      checkInvariants()
      return front.slot
    }
    guard let top = near.popFirst(dueAt: bound, rows: rows) else { return nil }
    rows[Int(top.slot)].next = Link.unqueued
    count -= 1
    checkInvariants()
    return top.slot
  }

  /// When the loop must next look at its timers: the earliest deadline, or a
  /// lower bound of it; `nil` when nothing is queued.
  ///
  /// Exact when a timer is in the near queue or the ahead run and due no
  /// later than the earliest wheel slot starts, or when that slot is at
  /// level 0 or holds at most ``scanLimit`` rows, one of them is due
  /// before the slot's span ends, and none was removed or moved later since
  /// the slot was scanned. Otherwise a bound between the slot's start and the
  /// true deadline: a wake-up that fires nothing and files the slot's timers
  /// again, as each slot visit does for a timer moved later.
  mutating func earliestDeadline() -> Deadline? {
    // Near-queue rows are due before any wheel slot starts; the ahead run's
    // may be due anywhere.
    let ahead = self.ahead.front?.deadline ?? .max
    if let top = near.first { return Deadline(uptimeNanoseconds: min(top.deadline, ahead)) }
    guard let wheel = earliestInWheel(before: ahead) else {
      return ahead == .max ? nil : Deadline(uptimeNanoseconds: ahead)
    }
    return Deadline(uptimeNanoseconds: min(wheel, ahead))
  }

  /// ``earliestDeadline()`` of the wheel's slots, in nanoseconds: `nil` when
  /// they are empty or their earliest starts after `bound`, which is then
  /// earlier.
  private mutating func earliestInWheel(before bound: Int64) -> Int64? {
    guard let slot = earliestSlot() else { return nil }
    let start = Int64(clamping: slot.start << Self.tickShift)
    guard start <= bound else { return nil }
    let end = Int64(clamping: (slot.start + 1 << (Self.slotBits * slot.level)) << Self.tickShift)
    if let scanned, scanned.list == slot.list {
      return min(scanned.earliest, end)
    }
    let limit = slot.level == 0 ? Int.max : Self.scanLimit
    let head = Link.firstHead + UInt32(slot.list)
    var earliest = Int64.max
    var row = heads[slot.list].next
    var count = 0
    while row != head {
      guard count < limit else { return start }
      earliest = min(earliest, rows[Int(row)].deadline)
      row = rows[Int(row)].next
      count += 1
    }
    scanned = (slot.list, earliest)
    // Rows moved later may all lie beyond the slot; every other slot starts
    // at or after `end`.
    return min(earliest, end)
  }

  // MARK: The wheel

  private mutating func takeSequence() -> UInt64 {
    defer { nextSequence += 1 }
    return nextSequence
  }

  private mutating func setKey(_ slot: UInt32, _ deadline: Deadline) {
    // The sequence taken first, and the key written in one access of the
    // row: the store to `nextSequence` between two row stores made the
    // second recompute the row's address.
    let sequence = takeSequence()
    rows[Int(slot)].setKey(deadline.uptimeNanoseconds, sequence)
  }

  /// Files a row by its deadline: into the near queue if its tick has come,
  /// else into the wheel at the lowest level that tells its tick from `elapsed`.
  @inline(__always)
  private mutating func file(_ slot: UInt32) {
    let tick = Self.tick(rows[Int(slot)].deadline)
    guard tick > elapsed else { return fileNear(slot) }
    let (level, index) = place(tick)
    link(slot, through: slot, level: level, index: index, earliest: rows[Int(slot)].deadline)
  }

  /// Files a row whose tick has come into the near queue.
  @inline(__always)
  private mutating func fileNear(_ slot: UInt32) {
    rows[Int(slot)].next = Link.near
    let node = Node(
      deadline: rows[Int(slot)].deadline, sequence: rows[Int(slot)].sequence, slot: slot)
    near.insert(node, rows: rows)
  }

  /// The wheel slot of a tick after `elapsed`: the highest bit in which the
  /// tick differs from `elapsed` picks the level.
  @inline(__always)
  private func place(_ tick: UInt64) -> (level: Int, index: Int) {
    let level = (63 - ((elapsed ^ tick) | UInt64(Self.slotsPerLevel - 1)).leadingZeroBitCount) / 6
    return (level, Int(tick >> UInt64(Self.slotBits * level)) & (Self.slotsPerLevel - 1))
  }

  /// Appends the chain of rows from `first` to `last` (linked to each other
  /// already) to the list of wheel slot (`level`, `index`); `earliest` is
  /// their earliest deadline.
  @inline(__always)
  private mutating func link(
    _ first: UInt32, through last: UInt32, level: Int, index: Int, earliest: Int64
  ) {
    let list = level * Self.slotsPerLevel + index
    let head = Link.firstHead + UInt32(list)
    let tail = heads[list].prev
    rows[Int(first)].prev = tail
    rows[Int(last)].next = head
    if tail == head { heads[list].next = first } else { rows[Int(tail)].next = first }
    heads[list].prev = last
    occupied[level] |= 1 << UInt64(index)
    if scanned?.list == list {
      scanned!.earliest = min(scanned!.earliest, earliest)
    }
  }

  /// Takes a row out of its wheel list. O(1). Inlined into `dequeue`, the
  /// cancel path's call. `dequeue` itself stays out of line: inlined into the
  /// table's `free`, it would make a cancel cheaper only by making every
  /// firing, which frees its row through `free` too, dearer (figures in Benchmarks/RESULTS.md).
  @inline(__always)
  private mutating func unlink(_ slot: UInt32) {
    let next = rows[Int(slot)].next
    let prev = rows[Int(slot)].prev
    if prev >= Link.firstHead {
      heads[Int(prev - Link.firstHead)].next = next
    } else {
      rows[Int(prev)].next = next
    }
    if next >= Link.firstHead {
      heads[Int(next - Link.firstHead)].prev = prev
    } else {
      rows[Int(next)].prev = prev
    }
    if prev == next {  // both the head: the list is now empty
      let list = Int(prev - Link.firstHead)
      occupied[list / Self.slotsPerLevel] &= ~(1 << UInt64(list % Self.slotsPerLevel))
      if scanned?.list == list { scanned = nil }
    }
  }

  /// The earliest occupied wheel slot: the lowest level with one (every slot
  /// of a level lies before every slot of the next), its lowest index.
  /// `mutating` only for how it is called: from a mutating method, a
  /// non-mutating call copied the whole wheel (136 bytes, a `memcpy` call)
  /// each time.
  private mutating func earliestSlot() -> (level: Int, list: Int, start: UInt64)? {
    for level in 0..<Self.levelCount where occupied[level] != 0 {
      let index = occupied[level].trailingZeroBitCount
      let shift = UInt64(Self.slotBits * level)
      let start = elapsed & ~((1 << (shift + UInt64(Self.slotBits))) - 1) | UInt64(index) << shift
      return (level, level * Self.slotsPerLevel + index, start)
    }
    return nil
  }

  /// Visits, in time order, every wheel slot that starts at or before tick
  /// `now`, filing its rows again from the slot's start; then moves `elapsed`
  /// to `now`, a later tick.
  private mutating func advance(to now: UInt64) {
    while let slot = earliestSlot(), slot.start <= now {
      elapsed = slot.start
      let head = Link.firstHead + UInt32(slot.list)
      var row = heads[slot.list].next
      heads[slot.list] = Head(next: head, prev: head)
      occupied[slot.level] &= ~(1 << UInt64(slot.list % Self.slotsPerLevel))
      if scanned?.list == slot.list { scanned = nil }
      // None of them can land in this slot again: its index is now elapsed's.
      while row != head {
        let tick = Self.tick(rows[Int(row)].deadline)
        guard tick > elapsed else {
          let next = rows[Int(row)].next
          fileNear(row)
          row = next
          continue
        }
        row = fileRun(from: row, tick: tick, before: head)
      }
    }
    elapsed = now
  }

  /// Files `first`, of tick `tick` after `elapsed`, together with the rows
  /// that follow it in a visited slot's list (up to `end`) and belong in the
  /// same wheel slot, with one splice: a batch of equal timeouts, or periodic
  /// timers queued in firing order, leave a slot in long runs bound for one
  /// slot, and each row of a run then costs a load and a compare instead of
  /// a relink (figures in Benchmarks/RESULTS.md). Returns the row after the run, or `end`.
  private mutating func fileRun(from first: UInt32, tick: UInt64, before end: UInt32) -> UInt32 {
    let (level, index) = place(tick)
    // Every tick of the slot's span has the same place.
    let shift = UInt64(Self.slotBits * level)
    let start = (tick >> shift) << shift
    let span: UInt64 = 1 << shift
    var last = first
    var earliest = rows[Int(first)].deadline
    var next = rows[Int(first)].next
    while next != end {
      let deadline = rows[Int(next)].deadline
      guard Self.tick(deadline) &- start < span else { break }
      earliest = min(earliest, deadline)
      last = next
      next = rows[Int(next)].next
    }
    link(first, through: last, level: level, index: index, earliest: earliest)
    return next
  }
}
