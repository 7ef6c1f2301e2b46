import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// A timer with the API and documented semantics of Foundation's `Timer` block
/// API, running on a TimerLoop `TimerEventLoop` instead of a `RunLoop`, so ported code runs
/// on Linux with nothing to spin.
///
/// ```swift
/// BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
///   print("tick", timer.fireDate)
/// }
/// ```
///
/// Semantics, each from Apple's `Timer` documentation unless noted:
/// - **First fire.** One interval after the timer is created, not at creation.
/// - **Intervals.** Seconds. An interval ≤ 0 becomes 0.0001 s (0.1 ms).
/// - **Repeating.** Fixed rate on the grid `first + n × interval`; when the loop
///   was busy past several ticks the timer fires once, late, and skips the
///   missed ones ("fires only once ... for missed periods").
/// - **Clock.** The schedule follows the loop's monotonic clock. Dates are
///   mapped to it through one anchor per loop, a `Date()` and the loop's `now`
///   read together: `deadline = anchor.now + (date - anchor.date)`, so equal
///   dates give equal deadlines and timers given the same ``fireDate`` fire in
///   the order they were scheduled. The anchor is read again when the loop's
///   clock has moved since it was taken and the wall clock has moved more than
///   1 ms more or less than it (a clock step, a suspended machine, a
///   `VirtualEventLoop` whose time was advanced), so dates keep counting from
///   the present; a virtual clock that stands still keeps its anchor. Changing the wall
///   clock does not move a timer already scheduled (on Apple's platforms it
///   does not either: run loop timers use mach absolute time). A timer made
///   with ``init(fire:interval:repeats:userInfo:clock:block:)-(_,TimeInterval,_,_,_,_)``
///   and ``TimerClock/wall`` counts on the loop's wall clock instead, and
///   follows it when it is set, as GCD's `dispatch_walltime` timers do.
/// - **Thread.** The block runs on the loop's thread, or on the
///   `DispatchQueue` given at scheduling, one call at a time: ``fire()`` from
///   another thread waits for a running call to return, and a firing that
///   finds a ``fire()`` call running on another thread is skipped, as a tick
///   the loop was too busy for. ``fire()`` from inside the block runs it
///   again, nested, as Apple's does. The block receives the very object the
///   factory returned.
/// - **Validity.** A one-shot is valid inside its own block and invalid after it.
///   ``invalidate()`` from inside the block stops the timer at once; from any
///   other thread it is safe, and after it returns no new call is committed to (a call
///   already under way is not interrupted). An invalid timer never fires again:
///   setting ``fireDate``, ``add(to:deliveringOn:)`` and ``fire()`` do nothing.
/// - **Shutdown.** When its loop shuts down, a scheduled timer is invalidated
///   at once, on the thread that shut the loop down: ``isValid`` reads `false`
///   and the block is released before the `shutdown()` call that shut the
///   loop down returns (a call running then keeps it until the call returns;
///   a concurrent second `shutdown()` may return first).
/// - **Lifetime.** A scheduled timer is retained by its loop until it is
///   invalidated or its one-shot has fired (Apple: "run loops maintain strong
///   references to their timers"). Invalidation releases the block at once.
///   The timer holds its loop weakly: it never keeps the loop object alive.
/// - **Bad input.** A NaN interval or fire date gives a timer that is invalid
///   from the start and never fires (``isValid`` is `false`); nothing traps.
///   An infinite interval or `Date.distantFuture` never fires and costs no CPU.
///
/// Differences from `Timer`: there are no run loop modes; `userInfo` must be
/// `Sendable`; a timer scheduled with no loop on a thread that runs none goes
/// to the ``DefaultLoop/shared()`` loop instead of never firing. Where
/// swift-corelibs-foundation's `Timer` differs from Apple's documentation
/// (it needs a spinning `RunLoop`), this type follows Apple.
public final class BlockTimer: Sendable {
  /// The interval between firings of a repeating timer, in seconds (below
  /// 0.0001, zero and negative included, it was raised to 0.0001); `0` for a one-shot, as Apple's `timeInterval` returns
  /// "0 ... even if a time interval was set" for non-repeating timers.
  public let timeInterval: TimeInterval

  /// The value given at creation, unchanged. (Apple's `userInfo` is `Any?`;
  /// here it is `Sendable` because the timer crosses threads.)
  public let userInfo: (any Sendable)?

  /// Whether the timer repeats until invalidated.
  public let repeats: Bool

  /// The clock the timer counts on: ``TimerClock/monotonic`` unless it was
  /// made with ``init(fire:interval:repeats:userInfo:clock:block:)-(_,TimeInterval,_,_,_,_)``
  /// and ``TimerClock/wall``.
  public let clock: TimerClock

  /// The repeat interval on the loop's clock; unused for one-shots.
  private let interval: TimeAmount
  private let state: Locked<State>
  /// Makes the calls of the block one at a time.
  private let calls = ExclusiveCalls()

  /// Apple's floor for intervals: "If seconds is less than or equal to 0.0,
  /// this method chooses the nonnegative value of 0.1 milliseconds instead."
  static let minimumInterval: TimeInterval = 0.0001

  /// Coalescing never aligns to a grid coarser than 2^30 ns (≈ 1.07 s), so a
  /// huge tolerance cannot postpone a timer by minutes.
  static let maximumCoalescingGranularity: Int64 = 1 << 30

  typealias Block = @Sendable (BlockTimer) -> Void

  /// The loop's one-shot timer for a scheduled timer.
  private enum LoopTimer {
    /// On the monotonic clock: moved in place.
    case monotonic(TimerHandle)
    /// On the wall clock, where a timer cannot be moved: each move cancels it
    /// and schedules the next `generation`, so that a firing of one replaced
    /// while it was starting is told apart and dropped.
    case wall(ClockTimerHandle, generation: UInt64)

    func cancel() {
      switch self {
      case .monotonic(let handle): handle.cancel()
      case .wall(let handle, _): handle.cancel()
      }
    }
  }

  /// A timer on a loop. The loop runs a one-shot at `nominal + shift`; the
  /// timer moves it on after each firing, so the schedule has one source of
  /// truth, here, changed only under the lock.
  private struct Scheduled {
    /// Weak, so that a timer never keeps its loop object alive. The loop is
    /// alive while it runs the timer.
    weak var loop: (any TimerEventLoop)?
    let context: LoopContext
    var timer: LoopTimer
    let queue: DispatchQueue?
    /// The next firing on the timer's clock, without the tolerance shift. On
    /// the monotonic clock, a firing before it is one that the loop had
    /// committed to before a move made on another thread reached it, and is
    /// not a firing.
    var nominal: Deadline
    /// How far tolerance moved the loop's deadline past `nominal` (≥ 0, < tolerance).
    var shift: TimeAmount
    /// A call was handed to `queue` and has not started yet.
    var deliveryPending = false
  }

  private enum Phase {
    /// Created, not yet added to a loop.
    case idle(fireDate: Date)
    case scheduled(Scheduled)
    /// Ended; keeps the last fire date for the getter.
    case invalid(fireDate: Date)
  }

  private struct State {
    var phase: Phase
    /// Released on invalidation, so a block that captures its owner does not
    /// keep it alive through an invalidated timer.
    var block: Block?
    var tolerance: TimeInterval = 0
  }

  /// Where the first firing goes when the timer is added to a loop.
  enum Start {
    /// At ``fireDate`` on the loop's clock (now, if it has passed).
    case fireDate
    /// This many seconds after the loop's `now` (≤ 0: the loop's next pass).
    case delay(TimeInterval)
    /// At this deadline on the timer's clock.
    case deadline(Deadline)
  }

  init(
    fireDate: Date, interval: TimeInterval, repeats: Bool, userInfo: (any Sendable)?,
    clock: TimerClock = .monotonic, block: @escaping Block
  ) {
    // Apple ignores the interval of a one-shot, so only a repeating timer can
    // be made invalid by a NaN interval.
    let clamped = interval.isNaN ? interval : max(interval, Self.minimumInterval)
    let valid = !(repeats && clamped.isNaN) && !fireDate.timeIntervalSinceReferenceDate.isNaN
    self.repeats = repeats
    self.clock = clock
    self.timeInterval = repeats && valid ? clamped : 0
    self.interval = (try? TimeAmount(seconds: clamped)) ?? .max
    self.userInfo = userInfo
    let phase: Phase = valid ? .idle(fireDate: fireDate) : .invalid(fireDate: .distantFuture)
    state = Locked(State(phase: phase, block: valid ? block : nil))
  }

  /// Creates a timer that first fires `interval` seconds from now (≤ 0 becomes
  /// 0.0001) once added to a loop with ``add(to:deliveringOn:)``; it does not
  /// run before that. Apple's `init(timeInterval:repeats:block:)`: the fire
  /// date is fixed at creation, so a timer added late fires at once.
  ///
  /// A NaN `interval` gives an invalid timer that never fires.
  public convenience init(
    timeInterval interval: TimeInterval, repeats: Bool, userInfo: (any Sendable)? = nil,
    block: @escaping @Sendable (BlockTimer) -> Void
  ) {
    let delay = interval <= 0 ? Self.minimumInterval : interval
    self.init(
      fireDate: Date(timeIntervalSinceNow: delay), interval: interval, repeats: repeats,
      userInfo: userInfo, block: block)
  }

  /// Creates a timer that first fires at `date` and then, if it repeats, every
  /// `interval` seconds (below 0.0001 becomes 0.0001), once added to a loop with
  /// ``add(to:deliveringOn:)``. Apple's `init(fire:interval:repeats:block:)`,
  /// with a choice of clock.
  ///
  /// A date in the past fires in the loop's next pass. A NaN `date`, or a NaN
  /// `interval` on a repeating timer, gives an invalid timer that never fires
  /// (a one-shot ignores its interval, as Apple's does); `Date.distantFuture`
  /// never fires.
  ///
  /// - Parameters:
  ///   - date: the first firing.
  ///   - interval: seconds between firings of a repeating timer.
  ///   - repeats: `false` for a one-shot, invalidated after it fires.
  ///   - userInfo: returned by ``userInfo``.
  ///   - clock: ``TimerClock/monotonic`` (the default: Apple's run-loop
  ///     timers, which setting the wall clock does not move) or
  ///     ``TimerClock/wall`` (`dispatch_walltime`'s: fires when the wall clock
  ///     reaches `date`, follows the wall clock when it is set). A repeating
  ///     wall-clock timer stays on the grid `date + n × interval` of the wall
  ///     clock, and fires once for the periods a step forward jumps over.
  ///   - block: receives the timer, on the loop's thread or the queue given
  ///     to ``add(to:deliveringOn:)``.
  public convenience init(
    fire date: Date, interval: TimeInterval, repeats: Bool, userInfo: (any Sendable)? = nil,
    clock: TimerClock = .monotonic, block: @escaping @Sendable (BlockTimer) -> Void
  ) {
    self.init(
      fireDate: date, interval: interval, repeats: repeats, userInfo: userInfo, clock: clock,
      block: block)
  }

  /// Creates a timer and schedules it: Apple's
  /// `scheduledTimer(withTimeInterval:repeats:block:)`. It first fires
  /// `interval` seconds (≤ 0 becomes 0.0001) after this call, on the loop's
  /// monotonic clock.
  ///
  /// - Parameters:
  ///   - interval: seconds between fires, and before the first; ≤ 0 becomes
  ///     0.0001, NaN gives an invalid timer.
  ///   - repeats: `false` for a one-shot, invalidated after it fires.
  ///   - loop: the loop to run on; `nil` (the default) picks
  ///     ``DefaultLoop/current``: the loop of the calling thread, else the
  ///     shared background loop.
  ///   - queue: if given, each call of `block` is dispatched to this queue (for
  ///     example `.main`) instead of running on the loop's thread. A repeating
  ///     timer whose previous call is still waiting on the queue skips the tick,
  ///     as a busy run loop would.
  ///   - userInfo: returned by ``userInfo``.
  ///   - block: receives the returned timer.
  /// - Returns: the timer; it stays scheduled even if the result is discarded.
  ///   A NaN interval, or a loop that has shut down, gives an invalid timer
  ///   that never fires.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, repeats: Bool, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, userInfo: (any Sendable)? = nil,
    block: @escaping @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    let timer = BlockTimer(
      timeInterval: interval, repeats: repeats, userInfo: userInfo, block: block)
    // Counted from the loop's clock rather than the wall-clock fire date, so
    // a virtual loop sees exactly `interval`.
    timer.schedule(
      on: loop, start: .delay(interval <= 0 ? minimumInterval : interval), queue: queue)
    return timer
  }

  /// Adds a timer made by an `init` to a loop: the stand-in for
  /// `RunLoop.add(_:forMode:)`. It fires at its ``fireDate`` (at once if that
  /// has passed).
  ///
  /// A timer runs on one loop only: adding a timer that is already scheduled,
  /// or invalid, does nothing (as CoreFoundation ignores adding a timer to a
  /// second run loop). If the loop has shut down, the timer becomes invalid.
  ///
  /// - Parameters:
  ///   - loop: `nil` (the default) picks ``DefaultLoop/current``.
  ///   - queue: deliver each call of the block on this queue; see
  ///     ``scheduledTimer(withTimeInterval:repeats:on:deliveringOn:userInfo:block:)-(TimeInterval,_,_,_,_,_)``.
  public func add(to loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue? = nil) {
    schedule(on: loop, start: .fireDate, queue: queue)
  }

  /// Schedules an idle timer; the single path every factory goes through.
  func schedule(on requested: (any TimerEventLoop)?, start: Start, queue: DispatchQueue?) {
    guard isIdle else { return }
    guard let loop = requested ?? DefaultLoop.current else {
      invalidate()
      return
    }
    let context = LoopContext.of(loop)
    let released: Block? = state.withLock { state in
      guard case .idle(let fireDate) = state.phase else { return nil }
      let now = clock.now(on: loop)
      let first: Deadline? =
        switch start {
        case .fireDate: clock.deadline(for: fireDate, in: context, on: loop).map { max($0, now) }
        case .delay(let delay): (try? TimeAmount(seconds: delay)).map { now + $0 }
        case .deadline(let deadline): deadline
        }
      // Registered first, so a shutdown from now on finds the timer; a loop
      // already shut down refuses it.
      if let first, context.register(self) {
        let shift = Self.coalescingShift(for: first, tolerance: state.tolerance)
        // The loop holds the timer strongly until the handle is cancelled or
        // the one-shot ends without being moved on, as a run loop does.
        if let timer = try? arm(on: loop, at: first + shift, generation: 0) {
          state.phase = .scheduled(
            Scheduled(
              loop: loop, context: context, timer: timer, queue: queue, nominal: first,
              shift: shift))
          return nil
        }
        context.unregister(self)
      }
      state.phase = .invalid(fireDate: fireDate)
      defer { state.block = nil }
      return state.block
    }
    _ = released  // released outside the lock
  }

  /// Schedules the loop's one-shot for this timer at `deadline` on its clock.
  private func arm(on loop: any TimerEventLoop, at deadline: Deadline, generation: UInt64)
    throws(TimerLoopError) -> LoopTimer
  {
    switch clock {
    case .monotonic:
      return .monotonic(try loop.schedule(at: deadline) { [self] in loopDidFire(generation: nil) })
    case .wall:
      let handle = try loop.schedule(at: TimerClock.wallAlarmDate(for: deadline)) { [self] in
        loopDidFire(generation: generation)
      }
      return .wall(handle, generation: generation)
    }
  }

  private var isIdle: Bool {
    state.withLock { state in
      if case .idle = state.phase { return true }
      return false
    }
  }

  // MARK: Firing

  /// Called by the loop when its one-shot for this timer comes due, on its
  /// thread; `generation` is the wall-clock timer's, `nil` on the monotonic
  /// clock. Moves a repeating timer on to its next grid point before the
  /// call, so the block can move or invalidate it.
  private func loopDidFire(generation: UInt64?) {
    enum Next {
      case skip
      case call(any TimerEventLoop)
      case dispatch(DispatchQueue)
    }
    let next: Next = state.withLock { state in
      guard case .scheduled(var scheduled) = state.phase, let loop = scheduled.loop else {
        return .skip
      }
      let now = clock.now(on: loop)
      switch scheduled.timer {
      case .monotonic(let handle):
        guard now >= scheduled.nominal else {
          // Committed to before a move from another thread reached the loop:
          // wait for the date set since (the move's own request does the same).
          handle.reschedule(to: scheduled.nominal + scheduled.shift)
          return .skip
        }
      case .wall(_, let current):
        // A replaced timer that was starting when a move cancelled it. The
        // loop checked the current one's date against the wall clock.
        guard generation == current else { return .skip }
      }
      if repeats {
        let next = scheduled.nominal.nextGridPoint(after: now, interval: interval)
        move(&scheduled, to: next, tolerance: state.tolerance)
      }
      defer { state.phase = .scheduled(scheduled) }
      guard let queue = scheduled.queue else { return .call(loop) }
      guard !scheduled.deliveryPending else { return .skip }
      scheduled.deliveryPending = true
      return .dispatch(queue)
    }
    switch next {
    case .skip: return
    case .call(let loop): deliver(on: loop)
    case .dispatch(let queue): queue.async { self.deliverOnQueue() }
    }
  }

  private func deliverOnQueue() {
    let loop: (any TimerEventLoop)? = state.withLock { state in
      guard case .scheduled(var scheduled) = state.phase else { return nil }
      scheduled.deliveryPending = false
      state.phase = .scheduled(scheduled)
      return scheduled.loop
    }
    guard let loop else { return }
    deliver(on: loop)
  }

  /// A call from the schedule. A ``fire()`` running on another thread stands
  /// for it, so it is skipped rather than made to wait (the loop's thread is
  /// never held up by another thread's call).
  private func deliver(on loop: any TimerEventLoop) {
    _ = calls.runUnlessBusy { callBlock(on: loop) }
  }

  /// Calls the block if the timer is still valid, then ends a one-shot; made
  /// inside ``calls``, so the check, the call and the end are one step for
  /// other threads: after ``invalidate()`` returns, no call that had not
  /// passed the check starts, and a one-shot runs once.
  private func callBlock(on loop: (any TimerEventLoop)?) {
    let block: Block? = state.withLock { state in
      if case .invalid = state.phase { return nil }
      return state.block
    }
    guard let block else { return }
    if let loop {
      DefaultLoop.withCurrent(loop) { block(self) }
    } else {
      block(self)
    }
    if !repeats { invalidate() }
  }

  /// Runs the block now, on the calling thread, without moving the schedule of
  /// a repeating timer; a one-shot is invalidated after it, "even if its
  /// scheduled fire date has not arrived" (Apple's `fire()`). Does nothing on
  /// an invalid timer.
  ///
  /// Calls are one at a time: if the block is running on another thread, this
  /// waits for it to return first (and does nothing if that call ended a
  /// one-shot). From inside the block it runs the block again at once, nested,
  /// as Apple's `fire()` does.
  public func fire() {
    calls.run { callBlock(on: nil) }
  }

  // MARK: Invalidation

  /// Stops the timer for good and releases its block (Apple's `invalidate()`).
  ///
  /// Safe to call twice, before scheduling, from inside the block (the timer
  /// stops at once) and from any thread: after it returns no new call is
  /// committed to (one already committed to may begin just after it returns),
  /// also none waiting on the delivery queue. A call already running is not
  /// interrupted.
  public func invalidate() {
    let (scheduled, block): (Scheduled?, Block?) = state.withLock { state in
      let scheduled: Scheduled?
      switch state.phase {
      case .invalid:
        return (nil, nil)
      case .idle(let fireDate):
        state.phase = .invalid(fireDate: fireDate)
        scheduled = nil
      case .scheduled(let current):
        state.phase = .invalid(fireDate: fireDate(of: current))
        scheduled = current
      }
      defer { state.block = nil }
      return (scheduled, state.block)
    }
    scheduled?.timer.cancel()
    scheduled?.context.unregister(self)
    _ = block  // released outside the lock
  }

  /// Whether the timer can still fire (Apple's `isValid`). `false` after
  /// ``invalidate()``, after a one-shot's block has returned, once its loop
  /// has shut down, and from the start for a timer made with a NaN interval or
  /// date or scheduled on a loop that had shut down.
  public var isValid: Bool {
    state.withLock { state in
      if case .invalid = state.phase { return false }
      return true
    }
  }

  // MARK: Fire date and tolerance

  /// The date at which the timer fires next (Apple's `fireDate`), without the
  /// ``tolerance`` delay.
  ///
  /// Setting it moves the timer, from any thread or from inside its block: a
  /// repeating timer continues on the grid `date + n × timeInterval`. The
  /// date is mapped to the loop's monotonic clock through the loop's anchor
  /// (see Clock above). A date in the past counts as the moment of the set,
  /// as CoreFoundation's `CFRunLoopTimerSetNextFireDate` does: the timer fires
  /// once in the loop's next pass (never a burst), and a repeating one goes
  /// on every interval from there; the getter reads back that moment.
  /// `Date.distantFuture` parks the timer (it never fires until the date
  /// is set again). Setting a NaN date invalidates the timer. No effect on an
  /// invalid timer, or on a one-shot that has already fired (Apple: "You
  /// should not change the fire date of a timer that has been invalidated,
  /// which includes non-repeating timers that have already fired").
  public var fireDate: Date {
    get {
      state.withLock { state in
        switch state.phase {
        case .idle(let fireDate), .invalid(let fireDate): fireDate
        case .scheduled(let scheduled): fireDate(of: scheduled)
        }
      }
    }
    set {
      let invalidates: Bool = state.withLock { state in
        switch state.phase {
        case .invalid:
          return false
        case .idle:
          if newValue.timeIntervalSinceReferenceDate.isNaN { return true }
          state.phase = .idle(fireDate: newValue)
          return false
        case .scheduled(var scheduled):
          guard
            let requested = clock.deadline(
              for: newValue, in: scheduled.context, on: scheduled.loop)
          else { return true }
          let now = scheduled.loop.map(clock.now(on:)) ?? requested
          move(&scheduled, to: max(requested, now), tolerance: state.tolerance)
          state.phase = .scheduled(scheduled)
          return false
        }
      }
      if invalidates { invalidate() }
    }
  }

  /// How late the timer may fire, in seconds (Apple's `tolerance`; default 0).
  /// Negative and NaN values are stored as 0. On a repeating timer the value
  /// stored is at most half of ``timeInterval``, as CoreFoundation's
  /// `CFRunLoopTimerSetTolerance` caps it, so the getter reads back the capped
  /// value.
  ///
  /// Tolerance only ever delays a firing, never advances it. The timer uses it
  /// to coalesce wake-ups: the deadline is rounded up to the grid of the
  /// largest power-of-two nanoseconds not above the tolerance (at most 2^30
  /// ns), so timers with overlapping windows tend to fire in one wake-up. The
  /// delay is always less than the tolerance, and ``fireDate`` keeps
  /// reporting the undelayed date. Setting it on a scheduled timer re-aligns
  /// the pending firing.
  public var tolerance: TimeInterval {
    get { state.withLock { $0.tolerance } }
    set {
      let tolerance = min(newValue > 0 ? newValue : 0, repeats ? timeInterval / 2 : .infinity)
      state.withLock { state in
        state.tolerance = tolerance
        guard case .scheduled(var scheduled) = state.phase else { return }
        let nominal = scheduled.nominal
        guard Self.coalescingShift(for: nominal, tolerance: tolerance) != scheduled.shift else {
          return
        }
        move(&scheduled, to: nominal, tolerance: tolerance)
        state.phase = .scheduled(scheduled)
      }
    }
  }

  /// Moves a scheduled timer's next firing to `nominal` plus its tolerance shift.
  private func move(_ scheduled: inout Scheduled, to nominal: Deadline, tolerance: TimeInterval) {
    let shift = Self.coalescingShift(for: nominal, tolerance: tolerance)
    // A one-shot already running is invalidated after its block whatever its
    // date, so moving it then has no lasting effect (Apple documents the same).
    switch scheduled.timer {
    case .monotonic(let handle):
      // From another thread this is a request the loop applies in order; until
      // then a firing it had committed to is recognised as stale (loopDidFire).
      handle.reschedule(to: nominal + shift)
    case .wall(let handle, let generation):
      handle.cancel()
      // Only a loop shutting down refuses the new timer; its shutdown then
      // invalidates this one (it is registered), as it does every timer.
      if let loop = scheduled.loop,
        let timer = try? arm(on: loop, at: nominal + shift, generation: generation &+ 1)
      {
        scheduled.timer = timer
      }
    }
    scheduled.nominal = nominal
    scheduled.shift = shift
  }

  private func fireDate(of scheduled: Scheduled) -> Date {
    clock.date(for: scheduled.nominal, in: scheduled.context, on: scheduled.loop)
  }

  /// How far to delay `deadline` so that it lands on the grid of the largest
  /// power of two nanoseconds not above `tolerance`: always less than the
  /// tolerance, zero when there is none.
  static func coalescingShift(for deadline: Deadline, tolerance: TimeInterval) -> TimeAmount {
    guard tolerance > 0, deadline != .distantFuture,
      let window = try? TimeAmount(seconds: tolerance)
    else { return .zero }
    // `window` is rounded up, so the granularity is at most ⌈tolerance⌉ ns and
    // a shift below it is an integer below ⌈tolerance⌉: below the tolerance.
    let limit = min(window.nanoseconds, maximumCoalescingGranularity)
    guard limit > 1 else { return .zero }
    let granularity = Int64(1) << (63 - limit.leadingZeroBitCount)
    let remainder = deadline.uptimeNanoseconds % granularity
    guard remainder != 0 else { return .zero }
    let shift = granularity - remainder
    guard deadline.uptimeNanoseconds < Int64.max - shift else { return .zero }
    return .nanoseconds(shift)
  }
}

/// Identity, as for `Timer` (an `NSObject`): two references are equal when they
/// name the same timer, so timers can be kept in a `Set` or dictionary keys.
extension BlockTimer: Hashable {
  /// Whether both references name the same timer. O(1).
  public static func == (lhs: BlockTimer, rhs: BlockTimer) -> Bool { lhs === rhs }
  /// Hashes the timer's identity. O(1).
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension BlockTimer: LoopMember {
  func loopDidShutDown() { invalidate() }
}

extension BlockTimer {
  /// A one-shot on `loop` at `deadline` on `clock`, for the types built on
  /// ``BlockTimer`` that count in loop time rather than in dates. Invalid at
  /// once if the loop has shut down.
  static func scheduled(
    at deadline: Deadline, on loop: any TimerEventLoop, clock: TimerClock = .monotonic,
    deliveringOn queue: DispatchQueue?, block: @escaping @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    let timer = BlockTimer(
      fireDate: clock.date(for: deadline, in: LoopContext.of(loop), on: loop), interval: 0,
      repeats: false, userInfo: nil, clock: clock, block: block)
    timer.schedule(on: loop, start: .deadline(deadline), queue: queue)
    return timer
  }
}
