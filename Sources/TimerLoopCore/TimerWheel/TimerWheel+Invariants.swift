extension TimerWheel {
  /// Verifies the invariants listed on ``TimerWheel``; traps with the values
  /// involved on the first violation. Compiled only in debug builds.
  func checkInvariants() {
    #if TIMERLOOP_CHECK_INVARIANTS
      guard rowCount <= 256 else { return }
      var seen = Set<UInt32>()
      for list in 0..<Self.listCount {
        let level = list / Self.slotsPerLevel
        let index = list % Self.slotsPerLevel
        let head = Link.firstHead + UInt32(list)
        let shift = UInt64(Self.slotBits * level)
        var previous = head
        var row = heads[list].next
        while row != head {
          precondition(Int(row) < rowCount, "list \(list) links to row \(row) of \(rowCount)")
          precondition(seen.insert(row).inserted, "row \(row) is filed twice")
          precondition(rows[Int(row)].prev == previous, "row \(row)'s prev is not \(previous)")
          // A row moved later may lie anywhere beyond its slot; none before it.
          let tick = Self.tick(rows[Int(row)].deadline)
          let block =
            (elapsed >> (shift + UInt64(Self.slotBits))) << (shift + UInt64(Self.slotBits))
          precondition(
            tick >= block | UInt64(index) << shift,
            "row \(row) (tick \(tick)) is filed after it at level \(level) of elapsed \(elapsed)")
          precondition(
            index > Int(elapsed >> shift) & (Self.slotsPerLevel - 1),
            "row \(row) is filed in slot \(index), not after elapsed's")
          precondition(rows[Int(row)].sequence < nextSequence, "sequence never issued")
          previous = row
          row = rows[Int(row)].next
        }
        precondition(heads[list].prev == previous, "list \(list)'s tail is not \(previous)")
        let bit = occupied[level] >> UInt64(index) & 1 == 1
        precondition(bit == (previous != head), "list \(list)'s bitmap bit is \(bit)")
      }
      for slot in near.checkInvariants(rows: rows) {
        precondition(seen.insert(slot).inserted, "row \(slot) is filed twice")
        let row = rows[Int(slot)]
        precondition(row.next == Link.near, "row \(slot) is in the near queue, not marked so")
        precondition(Self.tick(row.deadline) <= elapsed, "row \(slot) is in the near queue early")
      }
      for slot in ahead.checkInvariants(rows: rows) {
        precondition(seen.insert(slot).inserted, "row \(slot) is filed twice")
        precondition(rows[Int(slot)].next == Link.ahead, "row \(slot) is in the ahead run, not marked so")
        precondition(rows[Int(slot)].sequence < nextSequence, "sequence never issued")
      }
      let queued = (0..<rowCount).filter { rows[$0].next != Link.unqueued }
      precondition(queued.count == count, "\(queued.count) queued rows, count \(count)")
      precondition(seen.count == count, "\(seen.count) filed rows, count \(count)")
    #endif
  }
}
