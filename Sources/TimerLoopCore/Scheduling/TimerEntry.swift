/// What a timer runs: a one-shot closure, a repeating one that is handed its
/// own handle so it can cancel or reschedule itself, or a ``TimerHandler``.
enum TimerBody {
  case once(@Sendable () -> Void)
  case repeating(@Sendable (TimerHandle) -> Void)
  /// A handler timer made on the loop thread with the handler of the arm
  /// before it: its handler's entry in the table's ``HandlerRegistry``, and
  /// its tag. The value stands for one of the
  /// handler's timers there: whoever drops it unregisters it
  /// (``TimerTable/release(_:)``).
  case handler(HandlerTimer)
  /// A handler held by the timer itself: BlockTimers' timers (one handler
  /// each), a handler timer whose handler is not the previous arm's (see
  /// ``HandlerRegistry``), and handler timers scheduled from another thread,
  /// which cannot reach the registry. The tag is the table's
  /// ``TimerTable/extra(_:)``.
  case object(any TimerHandler)
}

/// A handler timer's body: 12 bytes, so that a ``TimerBody`` holding it is
/// no larger than one holding a closure.
struct HandlerTimer {
  var tag: UInt64
  /// The handler's entry in the ``HandlerRegistry``.
  var index: UInt32
}

/// What the scheduler's table keeps of one timer, in the timer's row of the
/// ``TimerWheel``. A slot is reused after its timer ends; `generation` grows
/// by one on every reuse and never wraps (the slot is retired at
/// ``TimerID/lastGeneration``), so a stale ``TimerHandle`` can never touch the
/// timer that took its slot.
struct TimerEntry {
  enum Phase: UInt8 {
    /// The slot holds no timer.
    case free
    /// The timer waits in the queue for its deadline.
    case queued
    /// The timer is out of the queue: a one-shot, fixed-delay or burst timer
    /// that left it to run (after its callback it is freed or queued again), or a
    /// kept timer that is disarmed.
    case unqueued
  }

  /// What a timer does once its callback has run.
  enum Mode: UInt8 {
    /// It ends (a closure or handler one-shot).
    case oneShot
    /// It was queued again at its next grid point after the time it was
    /// collected at, before the call (``MissedTickBehavior/skip``).
    case fixedRate
    /// It is queued again one interval after the call returns.
    case fixedDelay
    /// It stays, disarmed, until armed again or invalidated (``TimerKey``).
    case kept
    /// It is queued again one interval after the deadline it was due at,
    /// once the call returns: a deadline already passed comes due in the
    /// next pass, so missed ticks are delivered one per pass.
    case burst
  }

  /// Bits of ``flags``.
  static let firePendingBit: UInt8 = 1
  static let hasTicketBit: UInt8 = 2

  // Declared largest-first with the one-byte fields together: Swift lays a
  // struct out in declaration order, and this order packs an entry into 24
  // bytes, so that a wheel row is 48. The body takes 17 bytes, so the three
  // one-byte fields fill the word up to `generation`: a fourth would push the
  // entry to 32. The deadline is the row's; a repeating timer's interval and
  // an object handler's tag are the table's extras, and a free slot's link
  // is its row's `prev`.
  var body: TimerBody?
  var phase = Phase.free
  /// ``firePending`` and ``hasTicket``, in one byte.
  var flags: UInt8 = 0
  var mode = Mode.oneShot
  var generation: UInt32 = 0

  /// Set when the dispatch pass collects the timer, cleared when its call
  /// starts or when it is cancelled or rescheduled before that.
  var firePending: Bool {
    get { flags & Self.firePendingBit != 0 }
    set { flags = newValue ? flags | Self.firePendingBit : flags & ~Self.firePendingBit }
  }

  /// Marks the entry queued, dropping a firing collected but not started.
  /// One access where two assignments were two, each of which recomputed
  /// the row's address after the other's store.
  mutating func markQueued() {
    phase = .queued
    firePending = false
  }

  /// Marks the entry's timer collected to fire, unqueued unless it is a
  /// fixed-rate one, which goes back on the queue at once; returns whether it
  /// is. One access of the row, for the reason of ``markQueued()``.
  mutating func markCollected() -> Bool {
    firePending = true
    guard mode == .fixedRate else {
      phase = .unqueued
      return false
    }
    return true
  }

  /// Whether the timer was scheduled from another thread, under a ticket
  /// the table's ``TicketMap`` records.
  var hasTicket: Bool {
    get { flags & Self.hasTicketBit != 0 }
    set { flags = newValue ? flags | Self.hasTicketBit : flags & ~Self.hasTicketBit }
  }
}
