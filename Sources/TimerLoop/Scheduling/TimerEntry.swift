/// What a timer runs: a one-shot closure, or a repeating one that is handed its
/// own handle so it can cancel or reschedule itself.
enum TimerBody {
  case once(@Sendable () -> Void)
  case repeating(@Sendable (TimerHandle) -> Void)
}

/// One row of the scheduler's timer table. A slot is reused after its timer
/// ends; `generation` changes on every reuse (modulo 2^31), so a stale
/// ``TimerHandle`` can never touch the timer that took its slot.
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

  var generation: UInt32 = 0
  var phase = Phase.free
  /// Set when the dispatch pass collects the timer, cleared when its call
  /// starts or when it is cancelled or rescheduled before that.
  var firePending = false
  /// Scheduled from another thread: a ticket maps to this slot until it ends.
  var hasTicket = false
  var policy = RepeatPolicy.fixedRate
  /// For one-shots the queued deadline; for fixed-rate timers the grid point
  /// the timer is queued at, which anchors the next grid point.
  var deadline = Deadline.distantFuture
  /// Repeat interval; `nil` for a one-shot.
  var interval: TimeAmount?
  var body: TimerBody?
}
