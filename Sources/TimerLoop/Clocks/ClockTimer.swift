import Foundation

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
    /// The next date the rule gives (`nil` ends the timer); wall clock only.
    case rule(@Sendable (Date) -> Date?)
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

  /// The closures are released when the timer ends: `repeats` may hold one.
  private struct State {
    var phase = Phase.pending
    /// A call has begun: the timer was not ended before its first call.
    var hasBegun = false
    var body: Body?
    var repeats: Repeat
  }

  private let state: Locked<State>

  init(repeats: Repeat, body: Body) {
    state = Locked(State(body: body, repeats: repeats))
  }

  /// A timer that was over before it began (a schedule no date matches).
  static var ended: ClockTimer {
    let timer = ClockTimer(repeats: .never, body: .once {})
    timer.end()
    return timer
  }

  /// Whether the timer may still run: not cancelled, not ended.
  var isValid: Bool { state.withLock { $0.phase != .ended } }

  /// Whether a call of the timer has begun (it may have ended since).
  var hasBegun: Bool { state.withLock { $0.hasBegun } }

  /// Ends the timer from any thread and releases its closure here, outside
  /// the lock (its captures' `deinit` may call back into the loop). A call
  /// running now keeps its own reference until it returns. Idempotent.
  func end() {
    let released = state.withLock { state in Self.release(&state) }
    withExtendedLifetime(released) {}
  }

  /// The rule of a pending rule timer (see ``Repeat/rule(_:)``).
  var rule: (@Sendable (Date) -> Date?)? {
    state.withLock { state in
      guard state.phase == .pending, case .rule(let rule) = state.repeats else { return nil }
      return rule
    }
  }

  /// Commits to a call: the closure to run and how the timer repeats, or
  /// `nil` if the timer has ended. Loop thread only; what makes an
  /// ``end()`` that returned before it final.
  func begin() -> (Body, Repeat)? {
    state.withLock { state in
      guard state.phase == .pending, let body = state.body else { return nil }
      state.phase = .running
      state.hasBegun = true
      return (body, state.repeats)
    }
  }

  /// After a call: back to pending if `again` and nothing ended it meanwhile
  /// (returns `true`), else ended, its closure released here.
  func finish(again: Bool) -> Bool {
    let (pending, released) = state.withLock { state -> (Bool, (Body?, Repeat)) in
      guard state.phase == .running, again else { return (false, Self.release(&state)) }
      state.phase = .pending
      return (true, (nil, .never))
    }
    withExtendedLifetime(released) {}
    return pending
  }

  /// Ends the timer; returns its closures for the caller to release
  /// outside the lock.
  private static func release(_ state: inout State) -> (Body?, Repeat) {
    state.phase = .ended
    defer {
      state.body = nil
      state.repeats = .never
    }
    return (state.body, state.repeats)
  }
}
