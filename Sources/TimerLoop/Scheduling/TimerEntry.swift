/// What a timer runs: a one-shot closure, or a repeating one that is handed its
/// own handle so it can cancel or reschedule itself.
enum TimerBody {
  case once(@Sendable () -> Void)
  case repeating(@Sendable (TimerHandle) -> Void)
}

/// What the scheduler's table keeps of one timer, in the timer's row of the
/// ``TimerWheel``. A slot is reused after its timer ends; `generation` changes
/// on every reuse (modulo 2^31), so a stale ``TimerHandle`` can never touch
/// the timer that took its slot.
struct TimerEntry {
  enum Phase: UInt8 {
    /// The slot holds no timer.
    case free
    /// The timer waits in the queue for its deadline.
    case queued
    /// A one-shot or fixed-delay timer has left the queue to run; after its
    /// callback it is freed or queued again.
    case unqueued
  }

  // Declared largest-first with the one-byte fields together: Swift lays a
  // struct out in declaration order, and this order packs an entry into 32
  // bytes, so that a wheel row is 56. The deadline is the row's.
  var body: TimerBody?
  var phase = Phase.free
  /// Set when the dispatch pass collects the timer, cleared when its call
  /// starts or when it is cancelled or rescheduled before that.
  var firePending = false
  var policy = RepeatPolicy.fixedRate
  var generation: UInt32 = 0
  /// Repeat interval in nanoseconds (at least 0.1 ms); 0 for a one-shot.
  var intervalNanoseconds: Int64 = 0

  var interval: TimeAmount? {
    intervalNanoseconds == 0 ? nil : .nanoseconds(intervalNanoseconds)
  }
}
