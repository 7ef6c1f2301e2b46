import Glibc

/// The timers of one loop: their rows in the wheel that orders them, the free
/// slots, and the tasks waiting for the next pass. Touched only by the loop's
/// thread, so it needs no lock; other threads reach it through the
/// scheduler's inbox.
struct TimerTable: ~Copyable {
  var queue: TimerWheel
  /// The handlers of the timers whose body is ``TimerBody/handler(_:)``.
  var handlers = HandlerRegistry()
  /// The most recently freed slot, the head of a list through the free
  /// rows (``TimerWheel/freeLink(of:)``), reused first; ``noFreeSlot`` when
  /// none is free. A list through the rows, not an array: freeing and reusing
  /// a slot touch only its row and cost no uniqueness check or capacity test.
  var firstFree = noFreeSlot
  /// Beyond every slot.
  static let noFreeSlot = UInt32.max
  /// Per slot, a repeating timer's interval in nanoseconds (at least 0.1 ms)
  /// or a ``TimerBody/object(_:)`` timer's tag; `extraCapacity` of them. Apart
  /// from the rows, which then hold no field that closure one-shots and
  /// registered handler timers leave unused; allocated at the first timer
  /// that has one, and grown to the rows' capacity.
  private var extras = UnsafeMutablePointer<Int64>(bitPattern: MemoryLayout<Int64>.alignment)!
  private var extraCapacity = 0
  /// How many slots the free list holds.
  var freeCount = 0
  /// Slots that reached ``TimerID/lastGeneration`` and are never reused (see ``free(_:)``).
  var retiredSlotCount = 0
  /// Closures of `execute` and jobs, in one FIFO queue.
  var tasks: [Work] = []
  /// Timers scheduled from other threads, by ticket. Only those have a ticket,
  /// so the map stays as small as the cross-thread traffic.
  var tickets = TicketMap()
  /// Requests a call on the loop thread applied, and the closures they
  /// cancelled, kept for the pass to release (see
  /// ``TimerScheduler/applyRequestsFirst()``).
  var unreleased: TimerScheduler.AppliedRequests?
  /// The latest deadline by which the host will run a pass without being
  /// told (see ``TimerHost``): work due earlier that the loop thread adds
  /// outside a pass calls the host's `passNeeded`. Stays ``Deadline/distantPast``
  /// for hosts that run code on their thread only inside passes (the epoll
  /// and virtual loops), so the check never calls.
  var hostWakeBy = Deadline.distantPast
  /// How many tables the scheduler released before this one
  /// (``TimerScheduler/releaseTable()``): a callback can release the table
  /// whose timer it runs, and the pass must not then put that timer's body
  /// into the new table.
  var release = 0

  init(now: Deadline) {
    queue = TimerWheel(now: now)
  }

  deinit {
    if extraCapacity > 0 { Glibc.free(extras) }
  }

  /// The interval or tag of the timer in `slot` (see `extras`).
  /// - Precondition: the timer has one.
  func extra(_ slot: UInt32) -> Int64 {
    extras[Int(slot)]
  }

  /// Sets ``extra(_:)``, making room for it if need be.
  mutating func setExtra(_ value: Int64, of slot: UInt32) {
    if Int(slot) >= extraCapacity { growExtras(through: slot) }
    extras[Int(slot)] = value
  }

  @inline(never)
  private mutating func growExtras(through slot: UInt32) {
    while Int(slot) >= extraCapacity {
      UnsafeMutablePointer.growByDoubling(&extras, capacity: &extraCapacity, of: "timer intervals")
    }
  }

  /// The entry of `slot`, read and changed in place in the wheel's row.
  /// - Precondition: `slot` is below `queue.rowCount`.
  subscript(entry slot: UInt32) -> TimerEntry {
    _read { yield queue.rows[Int(slot)].entry }
    nonmutating _modify { yield &queue.rows[Int(slot)].entry }
  }

  /// Adds a timer and queues it at `deadline`; a `nil` deadline adds it
  /// unqueued (a kept timer created disarmed). `extra` is the timer's
  /// ``extra(_:)``: a repeating timer's interval, or an object handler's tag.
  /// O(1) amortised (see ``TimerWheel``).
  /// Inlined into the scheduler's arm with the wheel's row and push code: one
  /// call where there were four (see ``TimerWheel/appendRow(_:)``).
  @inline(__always)
  mutating func insert(
    deadline: Deadline?, mode: TimerEntry.Mode, extra: Int64?, body: consuming TimerBody
  ) -> TimerID {
    // Built in place, not in a local: a local copy costs a retain and a
    // release of the closure per timer.
    let phase: TimerEntry.Phase = deadline == nil ? .unqueued : .queued
    let slot: UInt32
    let generation: UInt32
    if firstFree != Self.noFreeSlot {
      slot = firstFree
      generation = self[entry: slot].generation
      firstFree = queue.freeLink(of: slot)
      freeCount &-= 1
      self[entry: slot] = TimerEntry(
        body: consume body, phase: phase, mode: mode, generation: generation)
    } else {
      generation = 0
      slot = queue.appendRow(
        TimerEntry(body: consume body, phase: phase, mode: mode, generation: 0))
    }
    if let extra { setExtra(extra, of: slot) }
    if let deadline { queue.push(slot: slot, deadline: deadline) }
    return .local(slot: slot, generation: generation)
  }

  /// Adds a timer requested from another thread under `ticket`.
  mutating func insert(
    ticket: UInt64, deadline: Deadline?, mode: TimerEntry.Mode, extra: Int64?,
    body: consuming TimerBody
  ) {
    let id = insert(deadline: deadline, mode: mode, extra: extra, body: consume body)
    self[entry: id.slot].hasTicket = true
    tickets.add(ticket: ticket, slot: id.slot, generation: id.generation)
  }

  // The lookups below are `mutating` only for how they are called: through the
  // scheduler's pointer, a non-mutating call copies the whole table (retaining
  // every array in it), while a mutating one borrows it in place.

  /// The slot of a live timer, or `nil` if `id` names one that has ended.
  /// Inlined into every call on a timer (re-arm, cancel): the check of a
  /// local id is a few instructions, the ticket lookup is not inlined.
  @inline(__always)
  mutating func slot(of id: TimerID) -> UInt32? {
    if let ticket = id.ticket { return slot(ofTicket: ticket) }
    let slot = id.slot
    guard Int(slot) < queue.rowCount, self[entry: slot].phase != .free,
      self[entry: slot].generation == id.generation
    else { return nil }
    return slot
  }

  @inline(never)
  private mutating func slot(ofTicket ticket: UInt64) -> UInt32? {
    guard let entry = tickets.entry(for: ticket), isLive(entry.slot, generation: entry.generation)
    else { return nil }
    return entry.slot
  }

  mutating func isLive(_ slot: UInt32, generation: UInt32) -> Bool {
    Int(slot) < queue.rowCount && self[entry: slot].generation == generation
      && self[entry: slot].phase != .free
  }

  /// Ends the timer in `slot` and returns what of its body the caller is to
  /// release once it has stopped touching the table (a `deinit` may call
  /// back in): a closure or object handler, or a registered handler whose
  /// last timer this was (see ``release(_:)``).
  ///
  /// The slot's next timer gets the next generation. A slot whose timer had
  /// the last one an id can hold is retired instead: a wrapped generation
  /// would let a handle from 2^31 timers ago act on a new timer. Retiring
  /// costs one 48-byte row per 2^31 timers ended in one slot (at a million
  /// schedule/cancel pairs a second, one row every 36 minutes), where a wider
  /// id would cost bytes in every handle and every row.
  mutating func free(_ slot: UInt32) -> TimerBody? {
    queue.remove(slot: slot)
    // Moved out and the fields set one by one: a new entry assigned whole
    // destroys the old one through an outlined call. `insert` sets every
    // field again, so the mode and flags of a free entry are left as they were.
    let body = release(self[entry: slot].body.take())
    retire(slot)
    return body
  }

  /// Ends the timer in `slot` once it is out of the queue and its body out
  /// of the row: the end of ``free(_:)``, and all that is left to do for a
  /// one-shot after its call (which took the body) when the callback neither
  /// queued it again nor ended it. The slot goes to the free list, or is
  /// retired. Inlined into the end of a firing.
  @inline(__always)
  mutating func retire(_ slot: UInt32) {
    let generation = self[entry: slot].generation
    self[entry: slot].phase = .free
    self[entry: slot].generation = generation &+ 1
    if self[entry: slot].hasTicket && tickets.timerEnded() { sweepTickets() }
    if generation < TimerID.lastGeneration {
      queue.setFreeLink(firstFree, of: slot)
      firstFree = slot
      freeCount &+= 1
    } else {
      retiredSlotCount &+= 1
    }
  }

  /// What of a body taken from the table is to be released: the body itself,
  /// or for a registered handler timer (which stands for one of its
  /// handler's timers) the handler if that was its last timer, else nothing.
  /// Every body the table hands out that does not go back into a row passes
  /// through here.
  @inline(__always)
  mutating func release(_ body: consuming TimerBody?) -> TimerBody? {
    guard case .handler(let timer) = body else { return body }
    return handlers.unregister(timer.index).map { .object($0) }
  }

  /// Drops the ticket entries of timers that have ended (see ``TicketMap``).
  @inline(never)
  private mutating func sweepTickets() {
    let rows = queue.rows
    let rowCount = queue.rowCount
    tickets.sweep { ticket in
      let row = Int(ticket.slot)
      return row < rowCount && rows[row].entry.phase != .free
        && rows[row].entry.generation == ticket.generation
    }
  }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// Sets the generation of the free `slot`, so a test can reach the last one
  /// without ending 2^31 timers there.
  mutating func testsOnly_setGeneration(_ generation: UInt32, ofFreeSlot slot: UInt32) {
    precondition(self[entry: slot].phase == .free)
    self[entry: slot].generation = generation
  }

  /// Cancels the timer in `slot`: a kept timer is disarmed and stays (returns
  /// `nil`); any other ends, and its body is returned as by ``free(_:)``.
  /// Inlined into the scheduler's cancel, the idle-timeout pattern's hot
  /// path, where a call's register saves and argument moves cost more than
  /// this short body (figures in Benchmarks/RESULTS.md).
  @inline(__always)
  mutating func cancel(_ slot: UInt32) -> TimerBody? {
    guard self[entry: slot].mode == .kept else { return free(slot) }
    queue.remove(slot: slot)
    self[entry: slot].phase = .unqueued
    self[entry: slot].firePending = false
    return nil
  }

  /// Moves the timer in `slot` to `deadline`, dropping a firing collected but not started.
  @inline(__always)
  mutating func reschedule(_ slot: UInt32, to deadline: Deadline) {
    queue.reschedule(slot: slot, to: deadline)
    self[entry: slot].markQueued()
  }

  /// Queues the repeating timer in `slot`, unqueued after its call, at
  /// `deadline`, its next one (see ``TimerWheel/requeue(slot:at:)``).
  @inline(__always)
  mutating func requeue(_ slot: UInt32, at deadline: Deadline) {
    queue.requeue(slot: slot, at: deadline)
    self[entry: slot].markQueued()
  }

  /// Marks the timer in `slot`, just taken off the queue at `now`, to fire. A
  /// fixed-rate timer goes straight back on the queue at its next grid point,
  /// before its callback runs, so the callback can cancel or move it.
  @inline(__always)
  mutating func collect(_ slot: UInt32, now: Deadline) {
    guard self[entry: slot].markCollected() else { return }
    requeueAtNextGridPoint(slot, now: now)
  }

  /// Queues the fixed-rate timer in `slot` at its next grid point after
  /// `now`. Not inlined: with the wheel's push inlined into it, `collect`
  /// would grow too large to inline into the pass, and every one-shot
  /// firing, which never comes here, would pay for a call (figures in Benchmarks/RESULTS.md).
  @inline(never)
  private mutating func requeueAtNextGridPoint(_ slot: UInt32, now: Deadline) {
    let interval = TimeAmount(nanoseconds: extra(slot))
    // The grid is anchored at the deadline the timer was just popped at.
    let next = queue.deadline(of: slot).nextGridPoint(after: now, interval: interval)
    queue.requeue(slot: slot, at: next)
  }
}

extension Deadline {
  /// The first point of the grid `self + n × interval` (n ≥ 1) later than `now`:
  /// where a fixed-rate timer goes next, one call for however many periods
  /// were missed (CoreFoundation's `__CFRunLoopDoTimer` does the same).
  /// Saturates at ``distantFuture``. `package`: BlockTimers keeps its own grid.
  /// Inlined into the fixed-rate re-queue, on the firing path: in the common
  /// case the grid point is one addition and one comparison, less than a
  /// call costs (figures in Benchmarks/RESULTS.md).
  @inline(__always)
  package func nextGridPoint(after now: Deadline, interval: TimeAmount) -> Deadline {
    let next = self + interval
    guard next <= now, next != .distantFuture else { return next }
    let missed = now.timeAmount(since: next).nanoseconds / interval.nanoseconds + 1
    let (skip, overflow) = interval.nanoseconds.multipliedReportingOverflow(by: missed)
    return overflow ? .distantFuture : next + TimeAmount(nanoseconds: skip)
  }
}
