/// One timer on the boot-time or wall clock: its closure, how it repeats,
/// when it is due and whether it may still run, behind a lock so that
/// ``ClockTimerHandle/cancel()`` and ``ClockTimerHandle/reschedule(to:)-(Date)``
/// are exact from any thread.
///
/// The queue's heap holds entries that point here; the timer's generation
/// says which entry is its current one. A reschedule bumps it and adds a new
/// entry, so the old one is skipped like a cancelled timer's, with no search
/// of the heap (as ``ClockTimerHandle/cancel()`` is O(1)).
package final class ClockTimer: Sendable {
  /// How the timer picks its next deadline (nanoseconds on its clock) after a call.
  package enum Repeat {
    case never
    /// On the grid of the previous deadline; missed ticks get one call.
    case fixedRate(interval: Int64)
    /// One interval after the call returns.
    case fixedDelay(interval: Int64)
    /// One interval after the deadline of the call: missed ticks each get a
    /// call, one per pass.
    case burst(interval: Int64)
    /// The next date the rule gives (`nil` ends the timer), in nanoseconds
    /// since 1970 after the ones given; wall clock only.
    case rule(@Sendable (Int64) -> Int64?)
    /// The grid's next point after the deadline, or after now if that has
    /// passed; wall clock only.
    case grid(WallClockGrid)
    /// At no date: each time the clock is set (``ClockTimerQueue/observe(_:)``).
    case clockSet
  }

  package enum Body {
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
    /// When the timer is due, nanoseconds on its clock: while pending, its
    /// next call's; while running, the running call's, until a reschedule.
    var deadline: Int64
    /// Which heap entry is the timer's own: the others are stale.
    var generation: UInt64 = 0
    /// A reschedule came while the timer was running: `deadline` is its next.
    var isRescheduled = false
  }

  private let state: Locked<State>
  /// The queue the timer is in; `nil` for ``ended``.
  weak let queue: ClockTimerQueue?

  init(repeats: Repeat, body: Body, deadline: Int64 = 0, queue: ClockTimerQueue? = nil) {
    state = Locked(State(body: body, repeats: repeats, deadline: deadline))
    self.queue = queue
  }

  /// A timer that was over before it began (a schedule no date matches).
  package static var ended: ClockTimer {
    let timer = ClockTimer(repeats: .never, body: .once {})
    timer.end()
    return timer
  }

  /// Ends the timer for its handle (``ClockTimerHandle/cancel()``), then has
  /// its queue stop waking the loop for it (``ClockTimerQueue/timerWasCancelled()``).
  func cancel() {
    end()
    queue?.timerWasCancelled()
  }

  /// Whether the heap entry of `generation` is the timer's own and the
  /// timer may still run: a stale or ended entry is dropped.
  func isCurrent(_ generation: UInt64) -> Bool {
    state.withLock { $0.phase == .pending && $0.generation == generation }
  }

  /// When the timer is due (see ``State/deadline``), or `nil` once ended.
  var deadline: Int64? {
    state.withLock { $0.phase == .ended ? nil : $0.deadline }
  }

  /// Moves the timer to `deadline`. Returns the generation of the heap
  /// entry to add for a pending timer; `nil` if there is none to add: the
  /// timer ended, or it is running and ``finish(next:)`` will queue it, or
  /// (given `generation`) its heap entry is no longer that one.
  func move(to deadline: Int64, from generation: UInt64? = nil) -> UInt64? {
    state.withLock { state in
      if let generation, state.generation != generation { return nil }
      if case .clockSet = state.repeats { return nil }
      switch state.phase {
      case .ended:
        return nil
      case .running:
        state.deadline = deadline
        state.isRescheduled = true
        return nil
      case .pending:
        state.deadline = deadline
        state.generation &+= 1
        return state.generation
      }
    }
  }

  /// The period of a ``Repeat/burst(interval:)`` timer, `nil` for any other.
  var burstInterval: Int64? {
    state.withLock { state in
      guard case .burst(let interval) = state.repeats else { return nil }
      return interval
    }
  }

  /// Whether a reschedule came during the running call, so that the call's
  /// own next deadline need not be computed (``finish(next:)`` decides).
  var isRescheduled: Bool { state.withLock { $0.isRescheduled } }

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

  /// How a pending rule or grid timer repeats: such a timer takes a new
  /// date when its clock is set (see ``ClockTimerQueue/clockWasSet()``).
  var realignment: Repeat? {
    state.withLock { state in
      guard state.phase == .pending else { return nil }
      switch state.repeats {
      case .rule, .grid: return state.repeats
      case .never, .fixedRate, .fixedDelay, .burst, .clockSet: return nil
      }
    }
  }

  /// Commits to the call of heap entry `generation`: the closure to run,
  /// how the timer repeats and the deadline the call was due, or `nil` if
  /// the timer has ended or the entry is stale. Loop thread only; what
  /// makes an ``end()`` or a ``move(to:)`` that returned before it final.
  func begin(_ generation: UInt64) -> (Body, Repeat, deadline: Int64)? {
    state.withLock { state in
      guard state.phase == .pending, state.generation == generation, let body = state.body
      else { return nil }
      state.phase = .running
      state.hasBegun = true
      return (body, state.repeats, state.deadline)
    }
  }

  /// After a call: pending again at the deadline a reschedule during the
  /// call gave, else at `next`, and returns that deadline with the
  /// generation of its heap entry; else (`next` is `nil`, or the timer
  /// was ended meanwhile) ended, its closure released here.
  func finish(next: Int64?) -> (deadline: Int64, generation: UInt64)? {
    let (placed, released) = state.withLock {
      state -> ((deadline: Int64, generation: UInt64)?, (Body?, Repeat)) in
      guard state.phase == .running else { return (nil, Self.release(&state)) }
      if !state.isRescheduled {
        guard let next else { return (nil, Self.release(&state)) }
        state.deadline = next
      }
      state.isRescheduled = false
      state.phase = .pending
      state.generation &+= 1
      return ((state.deadline, state.generation), (nil, .never))
    }
    withExtendedLifetime(released) {}
    return placed
  }

  /// Runs a ``Repeat/clockSet`` timer's body once unless it has ended, as
  /// a call of a dated timer runs (exact against ``cancel()``). Loop thread.
  func runOnClockSet() {
    guard let (body, _, _) = begin(state.withLock { $0.generation }) else { return }
    if case .repeating(let call) = body { call(ClockTimerHandle(timer: self)) }
    _ = finish(next: .max)
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
