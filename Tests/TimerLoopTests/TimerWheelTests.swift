import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The wheel against a plain reference: a list sorted by (deadline, push order).
@Suite struct TimerWheelTests {
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

  /// A deadline `now + delta`, with `delta` drawn from one of several scales so
  /// that every level of the wheel is used, ties are common (FIFO), some
  /// deadlines are already past and a few are ``Deadline/distantFuture``.
  static func randomDelta(using rng: inout SplitMix64) -> Int64 {
    if Int.random(in: 0..<50, using: &rng) == 0 { return .max }
    let scale = Int64(1) << (Int.random(in: 0...7, using: &rng) * 6 + 10)
    let delta = Int64.random(in: 0..<8, using: &rng) * scale / 4
    return Int.random(in: 0..<8, using: &rng) == 0 ? -delta : delta
  }

  /// 400 seeds in 8 parallel batches. Odd seeds use 250 slots, so that wheel
  /// slots hold more rows than `earliestDeadline()` scans; half the time steps
  /// go to the bound it reports, as the loop's do.
  @Test(arguments: 0..<8)
  func randomOperationsMatchTheReference(batch: UInt64) {
    for seed in batch * 50..<(batch + 1) * 50 { checkSeed(seed) }
  }

  private func checkSeed(_ seed: UInt64) {
    var rng = SplitMix64(state: seed)
    let start: Int64 = 1 << 40
    var now = start
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: start))
    var reference = Reference()
    let slots = UInt32(seed % 2 == 0 ? 40 : 250)
    for _ in 0..<400 {
      let slot = UInt32.random(in: 0..<slots, using: &rng)
      let deadline =
        (Deadline(uptimeNanoseconds: now) + .nanoseconds(Self.randomDelta(using: &rng)))
        .uptimeNanoseconds
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5 where !wheel.contains(slot: slot):
        // As a new timer, or as a repeating one going back on the queue
        // (into the ahead run when in order and near enough).
        if Int(slot) < wheel.rowCount && Bool.random(using: &rng) {
          wheel.requeue(slot: slot, at: Deadline(uptimeNanoseconds: deadline))
        } else {
          wheel.push(slot: slot, deadline: Deadline(uptimeNanoseconds: deadline))
        }
        reference.push(slot, deadline)
      case 5..<7:
        #expect(wheel.remove(slot: slot) == reference.remove(slot), "seed \(seed)")
      case 7 where Int(slot) < wheel.rowCount:
        // Later (lazy), earlier (unlinked) or the same, in the wheel or the near
        // queue; or queued afresh, as for a timer running its callback.
        wheel.reschedule(slot: slot, to: Deadline(uptimeNanoseconds: deadline))
        _ = reference.remove(slot)
        reference.push(slot, deadline)
      default:
        if Bool.random(using: &rng), let bound = wheel.earliestDeadline(), bound != .distantFuture {
          now = max(now, bound.uptimeNanoseconds)
        } else {
          now += Int64(min(Self.randomDelta(using: &rng).magnitude, 1 << 30))
        }
        while let popped = wheel.popFirst(dueAt: Deadline(uptimeNanoseconds: now)) {
          let expected = reference.items.removeFirst()
          #expect(popped == expected.slot && expected.deadline <= now, "seed \(seed)")
        }
        #expect(reference.items.first.map { $0.deadline > now } ?? true, "seed \(seed)")
        // Later than now after a pass, or the loop would spin.
        #expect(wheel.earliestDeadline().map { $0.uptimeNanoseconds > now } ?? true, "seed \(seed)")
      }
      #expect(wheel.count == reference.items.count, "seed \(seed)")
      // Never later than the earliest deadline, so the loop never wakes late.
      let bound = wheel.earliestDeadline()?.uptimeNanoseconds
      let earliest = reference.items.first?.deadline
      #expect((bound == nil) == (earliest == nil), "seed \(seed)")
      if let bound, let earliest { #expect(bound <= earliest, "seed \(seed)") }
    }
  }

  @Test func equalDeadlinesPopInSchedulingOrderAfterRemovalsAndMoves() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 0))
    // Far enough to be filed two levels up, so the ties meet only after cascading.
    let deadline = Deadline(uptimeNanoseconds: 1 << 30)
    for slot in UInt32(0)..<100 {
      wheel.push(slot: slot, deadline: deadline + .nanoseconds(-Int64(slot % 2) << 20))
    }
    for slot in stride(from: UInt32(0), to: 100, by: 3) { wheel.remove(slot: slot) }
    // Odd slots move later onto the shared deadline: behind the even ones, in move order.
    for slot in stride(from: UInt32(1), to: 100, by: 2) where slot % 3 != 0 {
      wheel.reschedule(slot: slot, to: deadline)
    }
    var popped: [UInt32] = []
    while let slot = wheel.popFirst(dueAt: deadline) { popped.append(slot) }
    let survivors = (UInt32(0)..<100).filter { $0 % 3 != 0 }
    #expect(popped == survivors.filter { $0 % 2 == 0 } + survivors.filter { $0 % 2 == 1 })
  }

  /// A timer scheduled after another for the same deadline, but filed at a
  /// lower level because time has moved on, still fires second.
  @Test func aTieFiledAtALowerLevelStillFiresSecond() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 0))
    let deadline = Deadline(uptimeNanoseconds: 5 << 28)
    wheel.push(slot: 0, deadline: deadline)
    #expect(wheel.popFirst(dueAt: deadline + .nanoseconds(-(1 << 16))) == nil)
    wheel.push(slot: 1, deadline: deadline)
    #expect(wheel.popFirst(dueAt: deadline) == 0)
    #expect(wheel.popFirst(dueAt: deadline) == 1)
  }

  @Test func nothingPopsBeforeItsDeadlineAtAnyLevel() {
    for shift in stride(from: 0, through: 62, by: 2) {
      var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 1_000))
      let deadline = Deadline(uptimeNanoseconds: 1_000 + (Int64(1) << shift) - 1)
      wheel.push(slot: 0, deadline: deadline)
      #expect(wheel.popFirst(dueAt: deadline + .nanoseconds(-1)) == nil, "2^\(shift)")
      #expect(wheel.earliestDeadline()! <= deadline, "2^\(shift)")
      #expect(wheel.popFirst(dueAt: deadline) == 0, "2^\(shift)")
    }
  }

  @Test func theFarthestDeadlinesAreFiledAndDistantFutureNeverComesDue() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 0))
    wheel.push(slot: 0, deadline: .distantFuture)
    wheel.push(slot: 1, deadline: Deadline(uptimeNanoseconds: .max - 1))
    #expect(wheel.popFirst(dueAt: Deadline(uptimeNanoseconds: .max - 2)) == nil)
    #expect(wheel.popFirst(dueAt: .distantFuture) == 1)
    #expect(wheel.popFirst(dueAt: .distantFuture) == nil)
    let stillQueued = wheel.contains(slot: 0)
    #expect(stillQueued)
  }

  /// The loop arms its timerfd for `earliestDeadline()`: for a lone timer it
  /// must be the deadline itself, not the start of the timer's wheel slot.
  @Test func aLoneTimerIsReportedExactlyAtEveryLevel() {
    for shift in stride(from: 10, through: 50, by: 5) {
      var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 7))
      let deadline = Deadline(uptimeNanoseconds: 7 + (Int64(1) << shift) + 12_345)
      wheel.push(slot: 3, deadline: deadline)
      #expect(wheel.earliestDeadline() == deadline, "2^\(shift)")
    }
  }

  /// A slot whose only timers moved far later reports where it ends, a lower
  /// bound, not their deadlines (a slot further on may come first).
  @Test func aSlotOfMovedTimersReportsALowerBound() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 0))
    wheel.push(slot: 0, deadline: Deadline(uptimeNanoseconds: 1 << 17))
    wheel.push(slot: 1, deadline: Deadline(uptimeNanoseconds: 1 << 30))
    wheel.reschedule(slot: 0, to: Deadline(uptimeNanoseconds: 1 << 40))
    let bound = wheel.earliestDeadline()!
    #expect(bound <= Deadline(uptimeNanoseconds: 1 << 30))
    #expect(wheel.popFirst(dueAt: bound) == nil)
    #expect(wheel.popFirst(dueAt: Deadline(uptimeNanoseconds: 1 << 30)) == 1)
    #expect(wheel.earliestDeadline() == Deadline(uptimeNanoseconds: 1 << 40))
  }

  /// Timers due within the current tick go to the near queue's sorted run,
  /// or its heap when they arrive out of order; cancelling most of them from
  /// the middle leaves tombstones that must be skipped and swept.
  @Test func theNearQueueKeepsOrderThroughTombstonesAndOutOfOrderArrivals() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 1 << 20))
    for slot in UInt32(0)..<300 {
      // Mostly ascending; every fifth arrives earlier than the run's last.
      let deadline = Int64(1 << 20) + Int64(slot) * 10 - (slot % 5 == 0 ? 25 : 0)
      wheel.push(slot: slot, deadline: Deadline(uptimeNanoseconds: deadline))
    }
    for slot in UInt32(0)..<300 where slot % 7 != 0 { wheel.remove(slot: slot) }
    var popped: [UInt32] = []
    while let slot = wheel.popFirst(dueAt: Deadline(uptimeNanoseconds: 1 << 21)) {
      popped.append(slot)
    }
    func offset(_ slot: UInt32) -> Int64 { Int64(slot) * 10 - (slot % 5 == 0 ? 25 : 0) }
    let expected = (UInt32(0)..<300).filter { $0 % 7 == 0 }.sorted { offset($0) < offset($1) }
    #expect(popped == expected)
    let count = wheel.count
    #expect(count == 0)
  }

  /// The near queue's run must not keep nodes that have left when it never
  /// drains between arrivals: timers re-armed for `now` while another waits,
  /// and passes that reach the next tick before popping the last one's timers.
  @Test func theNearQueueRunDropsPoppedNodesWhenItNeverDrains() {
    let now = Deadline(uptimeNanoseconds: 1 << 30)
    var wheel = TimerWheel(now: now)
    wheel.push(slot: 0, deadline: now)
    wheel.push(slot: 1, deadline: now)
    for _ in 0..<2_000 {
      let slot = wheel.popFirst(dueAt: now)!
      wheel.push(slot: slot, deadline: now)
    }
    #expect(wheel.near.run.capacity <= 128)

    // 1,000 timers 20 µs apart, re-armed 20 ms on, popped every 100 µs.
    var time: Int64 = 1 << 30
    var spread = TimerWheel(now: Deadline(uptimeNanoseconds: time))
    for slot in UInt32(0)..<1_000 {
      spread.push(
        slot: slot, deadline: Deadline(uptimeNanoseconds: time + Int64(slot) * 20_000 + 1))
    }
    for _ in 0..<2_000 {
      time += 100_000
      while let slot = spread.popFirst(dueAt: Deadline(uptimeNanoseconds: time)) {
        spread.push(slot: slot, deadline: spread.deadline(of: slot) + .nanoseconds(20_000_000))
      }
    }
    #expect(spread.near.run.capacity <= 128)
  }

  /// Repeating timers re-queued in the order they fire skip the wheel for
  /// the ahead run, and still pop in `(deadline, scheduling order)` among
  /// timers filed in the wheel for the same deadlines.
  @Test func repeatingTimersRequeuedInOrderGoAheadAndKeepFIFOOrder() {
    let start: Int64 = 1 << 30
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: start))
    func due(_ k: UInt32) -> Deadline {
      Deadline(uptimeNanoseconds: start + 10_000_000 + Int64(k) * 20_000)
    }
    for _ in 0..<201 { _ = wheel.appendRow(TimerEntry()) }
    for k in UInt32(0)..<100 { wheel.requeue(slot: k, at: due(k)) }
    #expect(wheel.earliestDeadline() == due(0))
    for k in UInt32(0)..<100 { wheel.push(slot: 100 + k, deadline: due(k)) }
    // Before the run's last: to the wheel, and out after slot 150's twin.
    wheel.requeue(slot: 200, at: due(50))
    #expect(wheel.ahead.count == 100)
    #expect(wheel.earliestDeadline().map { $0 <= due(0) } == true)
    var popped: [UInt32] = []
    while let slot = wheel.popFirst(dueAt: due(99)) { popped.append(slot) }
    var expected: [UInt32] = []
    for k in UInt32(0)..<100 {
      expected += [k, 100 + k]
      if k == 50 { expected.append(200) }
    }
    #expect(popped == expected)
    #expect(wheel.count == 0)
  }

  /// Repeating timers re-queued in firing order, as the loop does, keep the
  /// ahead run from draining, so its ring wraps and grows while wrapped (all
  /// of one period: even seeds); cancels leave tombstones and sweeps, moves
  /// take timers out of it, other periods are turned away behind a later
  /// one (odd seeds), and jumps of seconds pass its 268 ms span. Every pop
  /// matches the reference.
  @Test(arguments: 0..<4)
  func aheadRunWrapsAndGrowsWithCancelsMovesAndJumps(seed: UInt64) {
    var rng = SplitMix64(state: seed)
    let start: Int64 = 1 << 40
    var now = start
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: start))
    var reference = Reference()
    let slots = UInt32(200)
    let periods: [Int64] = [5_000_000, 5_000_000, 5_000_000, 37_000_000, 300_000_000]
    let period = (0..<slots).map { _ in seed % 2 == 0 ? periods[0] : periods.randomElement(using: &rng)! }
    // Timers start one per step, so the run fills while it never drains.
    var started = UInt32(0)
    for _ in 0..<3_000 {
      if started < slots {
        let deadline = now + Int64.random(in: 0..<period[Int(started)], using: &rng)
        wheel.push(slot: started, deadline: Deadline(uptimeNanoseconds: deadline))
        reference.push(started, deadline)
        started += 1
      }
      let slot = UInt32.random(in: 0..<started, using: &rng)
      switch Int.random(in: 0..<20, using: &rng) {
      case 0:
        #expect(wheel.remove(slot: slot) == reference.remove(slot), "seed \(seed)")
      case 1:
        let deadline = now + Int64.random(in: -1_000_000..<400_000_000, using: &rng)
        wheel.reschedule(slot: slot, to: Deadline(uptimeNanoseconds: deadline))
        _ = reference.remove(slot)
        reference.push(slot, deadline)
      default:
        now += started == slots && Int.random(in: 0..<50, using: &rng) == 0
          ? Int64.random(in: 0..<3_000_000_000, using: &rng)
          : Int64.random(in: 0..<2_000_000, using: &rng)
        var popped: [UInt32] = []
        while let slot = wheel.popFirst(dueAt: Deadline(uptimeNanoseconds: now)) {
          let expected = reference.items.removeFirst()
          #expect(slot == expected.slot && expected.deadline <= now, "seed \(seed)")
          popped.append(slot)
        }
        // Back on the queue in firing order, each at its next grid point.
        for slot in popped where Int.random(in: 0..<30, using: &rng) != 0 {
          let next = wheel.deadline(of: slot)
            .nextGridPoint(after: Deadline(uptimeNanoseconds: now),
              interval: TimeAmount(nanoseconds: period[Int(slot)]))
          wheel.requeue(slot: slot, at: next)
          reference.push(slot, next.uptimeNanoseconds)
        }
      }
      #expect(wheel.count == reference.items.count, "seed \(seed)")
      let bound = wheel.earliestDeadline()?.uptimeNanoseconds
      if let bound, let earliest = reference.items.first?.deadline {
        #expect(bound <= earliest, "seed \(seed)")
      }
    }
    if seed % 2 == 0 { #expect(wheel.ahead.capacity > 64, "the ahead run never grew") }
  }

  @Test func rowsGrowWithoutLosingEntries() {
    var wheel = TimerWheel(now: Deadline(uptimeNanoseconds: 0))
    for slot in 0..<1_000 {
      _ = wheel.appendRow(TimerEntry(generation: UInt32(slot)))
    }
    #expect((0..<1_000).allSatisfy { wheel.rows[$0].entry.generation == UInt32($0) })
  }
}

@Suite struct MemoryLayoutTests {
  /// Per-timer memory is a target of the performance work; a field added or
  /// reordered carelessly shows up here first.
  @Test func timerRowsStayCompact() {
    #expect(MemoryLayout<TimerEntry>.stride == 24)
    #expect(MemoryLayout<TimerWheel.Row>.stride == 48)
    #expect(MemoryLayout<TimerWheel.Node>.stride == 24)
  }
}
