/// A timer on the boot-time clock (``TimerEventLoop/schedule(at:_:)-(ContinuousClock.Instant,_)``,
/// ``TimerEventLoop/scheduleRepeating(firstAt:every:policy:_:)-(ContinuousClock.Instant,Duration,_,_)``)
/// or on the wall clock (``TimerEventLoop/schedule(at:_:)-(Date,_)``,
/// ``TimerEventLoop/scheduleRepeating(firstAt:nextDate:_:)``,
/// ``TimerEventLoop/scheduleRepeating(matching:in:matchingPolicy:_:)``), returned
/// so that it can be cancelled.
///
/// A handle is a small value (one reference); copies refer to the same timer
/// and compare equal. Safe to use from any thread.
public struct ClockTimerHandle: Sendable, Hashable {
  let timer: ClockTimer

  /// Cancels the timer, from any thread. Idempotent; O(1).
  ///
  /// Exact: once `cancel()` returns, the timer's closure does not start
  /// again (the loop takes the timer's lock to start a call; one already
  /// started finishes, and a repeating timer cancelled from inside its own
  /// closure, or while it runs, does not repeat). Its closures (the body,
  /// and a rule's `nextDate`), with what they captured, are released before
  /// `cancel()` returns, on the calling thread; one running at that moment,
  /// when its call returns, on the loop thread. The timer's place in its
  /// queue is freed later, without running anything: when it comes first,
  /// or when the queue, grown to twice what it held after its last sweep
  /// (and at least 64 entries), drops every cancelled timer at once.
  public func cancel() {
    timer.end()
  }

  /// Whether the timer may still fire: `false` once it was cancelled, after
  /// a one-shot fired (from the moment its closure returns), and after the
  /// loop shut down. Any thread; O(1).
  public var isValid: Bool { timer.isValid }

  /// Whether both handles refer to the same timer.
  public static func == (lhs: ClockTimerHandle, rhs: ClockTimerHandle) -> Bool {
    lhs.timer === rhs.timer
  }

  /// Hashes the timer's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(timer))
  }
}
