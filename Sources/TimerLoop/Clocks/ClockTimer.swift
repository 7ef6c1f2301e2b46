/// One timer on the boot-time or wall clock: its closure, how it repeats,
/// and whether it may still run, behind a lock so that ``cancel()`` is exact
/// from any thread (see ``ClockTimerHandle/cancel()``).
///
/// Its deadline lives in the queue's heap entry, not here: the queue owns
/// when a timer is due, the timer owns whether it may run.
final class ClockTimer: Sendable {
  /// How the timer picks its next deadline (nanoseconds on its clock) after a call.
  enum Repeat {
    case never
    /// On the grid of the previous deadline; missed ticks get one call.
    case fixedRate(interval: Int64)
    /// One interval after the call returns.
    case fixedDelay(interval: Int64)
  }

  enum Body {
    case once(@Sendable () -> Void)
    case repeating(@Sendable (ClockTimerHandle) -> Void)
  }

  private enum Phase {
    /// Waiting for its deadline (or for the loop to take it in).
    case pending
    /// Its closure is running on the loop thread.
    case running
    /// Cancelled, fired for the last time, or ended by shutdown.
    case ended
  }

  private struct State {
    var phase = Phase.pending
    var body: Body?
  }

  let repeats: Repeat
  private let state: Locked<State>

  init(repeats: Repeat, body: Body) {
    self.repeats = repeats
    state = Locked(State(body: body))
  }

  /// Whether the timer may still run: not cancelled, not ended.
  var isValid: Bool { state.withLock { $0.phase != .ended } }

  /// Ends the timer from any thread and releases its closure here, outside
  /// the lock (its captures' `deinit` may call back into the loop). A call
  /// running now keeps its own reference until it returns. Idempotent.
  func end() {
    let released = state.withLock { state -> Body? in
      state.phase = .ended
      defer { state.body = nil }
      return state.body
    }
    withExtendedLifetime(released) {}
  }

  /// Commits to a call: the closure to run, or `nil` if the timer has ended.
  /// Loop thread only; what makes a ``end()`` that returned before it final.
  func begin() -> Body? {
    state.withLock { state in
      guard state.phase == .pending else { return nil }
      state.phase = .running
      return state.body
    }
  }

  /// After a call: back to pending if `again` and nothing ended it meanwhile
  /// (returns `true`), else ended, its closure released here.
  func finish(again: Bool) -> Bool {
    let (pending, released) = state.withLock { state -> (Bool, Body?) in
      guard state.phase == .running, again else {
        state.phase = .ended
        defer { state.body = nil }
        return (false, state.body)
      }
      state.phase = .pending
      return (true, nil)
    }
    withExtendedLifetime(released) {}
    return pending
  }
}
