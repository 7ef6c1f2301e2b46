/// The slots of the timers scheduled from other threads, by ticket: how the
/// loop finds the timer a ticket-named ``TimerHandle`` or ``TimerKey`` means.
///
/// Tickets are handed out in increasing order under the inbox lock, and the
/// loop applies the requests in that order, so the map is an array sorted by
/// ticket that only ever grows at its end: adding is an append, finding is
/// one probe where no entry has been swept out before the one looked for, and
/// a binary search otherwise. An entry names its timer by slot *and*
/// generation, so one whose timer has ended (its slot freed, perhaps reused)
/// is recognised as dead without being removed. Dead entries are swept out
/// when they outnumber the live ones, into an array sized for those, so the
/// map holds O(live) entries and keeps no peak capacity after a burst.
///
/// Complexity: add O(1) amortised; find O(1) or O(log n); the sweeps O(1)
/// amortised per ended timer. 16 bytes per entry.
struct TicketMap {
  struct Entry {
    var ticket: UInt64
    var slot: UInt32
    var generation: UInt32
  }

  private(set) var entries: [Entry] = []
  /// Timers with a ticket that have not ended.
  private(set) var live = 0

  /// Records that the request under `ticket` made the timer `slot`, `generation`.
  /// - Precondition: `ticket` is above every ticket already recorded.
  mutating func add(ticket: UInt64, slot: UInt32, generation: UInt32) {
    precondition(entries.last.map { $0.ticket < ticket } ?? true, "tickets out of order")
    entries.append(Entry(ticket: ticket, slot: slot, generation: generation))
    live += 1
  }

  /// The entry recorded for `ticket`, dead or alive, or `nil` if there is
  /// none (not applied yet, or swept out).
  func entry(for ticket: UInt64) -> Entry? {
    guard let first = entries.first, ticket >= first.ticket else { return nil }
    // Exact while no entry before this one has been swept out.
    let guess = ticket - first.ticket
    if guess < entries.count, entries[Int(guess)].ticket == ticket { return entries[Int(guess)] }
    var low = 0
    var high = min(entries.count, Int(clamping: guess))
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].ticket < ticket { low = middle + 1 } else { high = middle }
    }
    return low < entries.count && entries[low].ticket == ticket ? entries[low] : nil
  }

  /// Notes that a timer with a ticket ended; returns whether dead entries now
  /// outnumber live ones enough to sweep (``sweep(keeping:)``).
  mutating func timerEnded() -> Bool {
    live -= 1
    return entries.count > 2 * live + 64
  }

  /// Keeps only the entries `isLive` accepts, in a new array sized for them.
  mutating func sweep(keeping isLive: (Entry) -> Bool) {
    var kept: [Entry] = []
    kept.reserveCapacity(live)
    for entry in entries where isLive(entry) { kept.append(entry) }
    entries = kept
  }
}
