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
public final class BlockTimer: @unchecked Sendable {
  // @unchecked: the registry links are guarded by the loop context's lock
  // (see `LoopContext`); everything else is immutable or in `state`.

  /// The interval between firings of a repeating timer, in seconds (below
  /// 0.0001, zero and negative included, it was raised to 0.0001); `0` for a one-shot, as Apple's `timeInterval` returns
  /// "0 ... even if a time interval was set" for non-repeating timers.
  public let timeInterval: TimeInterval

  /// The value given at creation, unchanged. (Apple's `userInfo` is `Any?`;
  /// here it is `Sendable` because the timer crosses threads.) O(1).
  public var userInfo: (any Sendable)? { userInfoBox?.value }

  /// Whether the timer repeats until invalidated.
  public let repeats: Bool

  /// The clock the timer counts on: ``TimerClock/monotonic`` unless it was
  /// made with ``init(fire:interval:repeats:userInfo:clock:block:)-(_,TimeInterval,_,_,_,_)``
  /// and ``TimerClock/wall``.
  public let clock: TimerClock

  /// The repeat interval on the loop's clock; unused for one-shots.
  private let interval: TimeAmount
  /// Boxed, so that the many timers made without one do not carry an
  /// existential's 40 bytes.
  private let userInfoBox: UserInfo?
  private let state: Locked<State>
  /// Makes the calls of the block one at a time.
  private let calls = ExclusiveCalls()

  /// This timer's links in its loop context's list of scheduled timers,
  /// changed only under the context's lock (see ``LoopContext``).
  unowned(unsafe) var registryNext: BlockTimer?
  unowned(unsafe) var registryPrevious: BlockTimer?
  /// Set and cleared under the context's lock; atomic so that `deinit` can
  /// tell without the lock that it need not take it (see ``LoopContext``).
  let isRegistered = Atomic<Bool>(false)

  /// Apple's floor for intervals: "If seconds is less than or equal to 0.0,
  /// this method chooses the nonnegative value of 0.1 milliseconds instead."
  static let minimumInterval: TimeInterval = 0.0001

  /// Coalescing never aligns to a grid coarser than 2^30 ns (≈ 1.07 s), so a
  /// huge tolerance cannot postpone a timer by minutes.
  static let maximumCoalescingGranularity: Int64 = 1 << 30

  typealias Block = @Sendable (BlockTimer) -> Void

  private final class UserInfo: Sendable {
    let value: any Sendable
    init(_ value: any Sendable) { self.value = value }
  }

  /// The loop's timer for a scheduled timer.
  private enum LoopTimer {
    /// On the monotonic clock: the loop's own timer, a one-shot or a
    /// fixed-rate repeating timer, moved in place.
    case monotonic(TimerHandle)
    /// On the wall clock, where a timer cannot be moved: each firing and each
    /// move schedules the next `generation`, so that a firing of one replaced
    /// while it was starting is told apart and dropped.
    case wall(ClockTimerHandle, generation: UInt64)

    func cancel() {
      switch self {
      case .monotonic(let handle): handle.cancel()
      case .wall(let handle, _): handle.cancel()
      }
    }
  }

  private enum Phase: UInt8 {
    /// Created, not yet added to a loop.
    case idle
    case scheduled
    /// Ended.
    case invalid
  }

  /// Everything that changes, under one lock.
  private struct State {
    var phase: Phase
    /// A move made from another thread than the loop's, which the loop
    /// applies as a request: until the timer's next firing it may fire on
    /// the grid it had, so that firing checks the schedule against this
    /// state, the one source of truth.
    var remoteMove = false
    /// A call was handed to `queue` and has not started yet.
    var deliveryPending = false
    /// Released on invalidation, so a block that captures its owner does not
    /// keep it alive through an invalidated timer.
    var block: Block?
    /// Before scheduling: the fire date. After a scheduling that failed: the
    /// date the getter reads back.
    var date: Date
    /// Once scheduled: the next firing on the timer's clock, without the
    /// tolerance shift (the last one, once invalid).
    var nominal = Deadline.distantFuture
    /// How far tolerance moved the loop's deadline past `nominal` (≥ 0, < tolerance).
    var shift = TimeAmount.zero
    var tolerance: TimeInterval = 0
    var timer: LoopTimer?
    /// The loop's context, from scheduling on (also after invalidation, to
    /// convert `nominal` for the getter).
    var context: LoopContext?
    var queue: DispatchQueue?

    /// Makes an idle timer scheduled, on `timer` at `nominal + shift`.
    mutating func begin(
      _ timer: LoopTimer, at nominal: Deadline, shift: TimeAmount, context: LoopContext,
      queue: DispatchQueue?
    ) {
      phase = .scheduled
      self.nominal = nominal
      self.shift = shift
      self.timer = timer
      self.context = context
      self.queue = queue
    }
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

  // `userInfo` borrowed: taken owned, as an initialiser takes its
  // arguments, the existential was copied through generic value witnesses,
  // some hundred instructions per timer made even when it is `nil`.
  init(
    fireDate: Date, interval: TimeInterval, repeats: Bool, userInfo: borrowing (any Sendable)?,
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
    userInfoBox = userInfo == nil ? nil : UserInfo((copy userInfo)!)
    state = Locked(
      State(
        phase: valid ? .idle : .invalid, block: valid ? block : nil,
        date: valid ? fireDate : .distantFuture))
  }

  deinit {
    // Only a timer the loop released while shutting down may still be listed.
    if isRegistered.load(ordering: .acquiring), let context = state.withLock({ $0.context }) {
      context.unregister(self)
    }
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
  /// - Complexity: O(1) amortised, as the loop's own `schedule`; no reading of
  ///   the wall clock.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, repeats: Bool, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, userInfo: (any Sendable)? = nil,
    block: @escaping @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    // The date is only read back if scheduling fails (see `schedule`).
    let timer = BlockTimer(
      fireDate: .distantPast, interval: interval, repeats: repeats, userInfo: userInfo,
      block: block)
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
  /// A repeating timer on the monotonic clock rides one fixed-rate timer of
  /// the loop, which keeps its grid; everything else one one-shot.
  func schedule(on requested: (any TimerEventLoop)?, start: Start, queue: DispatchQueue?) {
    guard let loop = requested ?? DefaultLoop.current else {
      invalidate()
      return
    }
    let context = LoopContext.of(loop)
    let scheduled: Bool? = state.withLock { state in
      guard state.phase == .idle else { return nil }
      // The factories' common case in one call to the loop, with one read of its clock.
      if case .delay(let delay) = start, clock == .monotonic, !repeats, state.tolerance == 0,
        let delay = try? TimeAmount(seconds: delay),
        let (handle, first) = try? loop.scheduleHandle(after: delay, handler: self)
      {
        state.begin(.monotonic(handle), at: first, shift: .zero, context: context, queue: queue)
        return true
      }
      let now = clock.now(on: loop)
      let first: Deadline? =
        switch start {
        case .fireDate:
          clock.deadline(for: state.date, in: context, now: now).map { max($0, now) }
        case .delay(let delay): (try? TimeAmount(seconds: delay)).map { now + $0 }
        case .deadline(let deadline): deadline
        }
      if let first {
        let shift = Self.coalescingShift(for: first, tolerance: state.tolerance)
        // The loop holds the timer strongly until its timer ends, as a run loop does.
        if let timer = try? arm(on: loop, at: first, shift: shift, generation: 0) {
          state.begin(timer, at: first, shift: shift, context: context, queue: queue)
          return true
        }
      }
      if case .delay(let delay) = start {
        // As an invalid timer made with a NaN date reads back.
        state.date = delay.isNaN ? .distantFuture : Date(timeIntervalSinceNow: delay)
      }
      return false
    }
    switch scheduled {
    case nil: return
    case true?:
      // Listed after it is armed: a shutdown from now on finds it; one that
      // came first refuses it, and it ends here. (A one-shot that fired and
      // ended in between is listed until it is released; harmless.)
      if !context.register(self) { invalidate() }
    case false?:
      invalidate()
    }
  }

  /// Schedules the loop's timer for this timer: its first firing at
  /// `first + shift` on its clock.
  private func arm(
    on loop: any TimerEventLoop, at first: Deadline, shift: TimeAmount, generation: UInt64
  ) throws(TimerLoopError) -> LoopTimer {
    switch clock {
    // On the monotonic clock the timer is the loop timer's handler: no
    // closure to allocate, and the loop holds the timer while it runs it.
    case .monotonic where repeats:
      // The loop keeps the grid `first + shift + n × interval` and skips
      // missed ticks, as Apple's timers do; `loopDidFire` reads it back.
      return .monotonic(
        try loop.scheduleRepeatingHandle(firstAt: first + shift, every: interval, handler: self))
    case .monotonic:
      return .monotonic(try loop.scheduleHandle(at: first + shift, handler: self))
    case .wall:
      let handle = try loop.schedule(at: TimerClock.wallAlarmDate(for: first + shift)) { [self] in
        loopDidFire(generation: generation)
      }
      return .wall(handle, generation: generation)
    }
  }

  // MARK: Firing

  /// Called by the loop on its thread when this timer's loop timer fires;
  /// `generation` is a wall-clock timer's.
  /// Brings the schedule up to date, then calls the block (or hands the call
  /// to the queue), unless a ``fire()`` on another thread is calling it: that
  /// call stands for this one, which is skipped rather than made to wait (the
  /// loop's thread is never held up by another thread's call).
  private func loopDidFire(generation: UInt64?) {
    var queue: DispatchQueue?
    let ran = calls.runUnlessBusy {
      // The check, the call and the end of a one-shot are one step for other
      // threads (see `callBlock`). The block comes out through a local, not
      // as the lock's result: a closure returned through the generic lock
      // is reabstracted, an allocation per call.
      var block: Block?
      state.withLock { state in
        guard advance(&state, generation) else { return }
        guard let deliveringOn = state.queue else {
          block = state.block
          return
        }
        if !state.deliveryPending {
          state.deliveryPending = true
          queue = deliveringOn
        }
      }
      // On the loop's thread the loop is ``DefaultLoop/current`` already.
      guard let block else { return }
      block(self)
      if !repeats { invalidate() }
    }
    if !ran { state.withLock { state in _ = advance(&state, generation) } }
    queue?.async { self.deliverOnQueue() }
  }

  /// Moves a firing timer's schedule on to its next firing, before the call,
  /// so that the block can move or invalidate it. Returns whether the firing
  /// stands: `false` for an invalid timer, and for a firing the loop had
  /// committed to before a move from another thread reached it.
  private func advance(_ state: inout State, _ generation: UInt64?) -> Bool {
    guard state.phase == .scheduled else { return false }
    switch state.timer {
    case .monotonic(let own)?:
      if state.remoteMove {
        // The loop may have fired on the grid the move replaced: put its
        // timer where this state says (here on the loop thread, at once), and
        // fire only if that is due.
        state.remoteMove = false
        let now = own.now
        guard state.nominal <= now else {
          own.reschedule(to: state.nominal + state.shift)
          return false
        }
        if repeats {
          move(&state, to: state.nominal.nextGridPoint(after: now, interval: interval))
        }
      } else if repeats, let next = own.deadline {
        // The loop queued its fixed-rate timer at the next grid point before
        // this call (`deadline` is read on the loop thread).
        state.nominal = next - state.shift
        if state.tolerance > 0,
          Self.coalescingShift(for: state.nominal, tolerance: state.tolerance) != state.shift
        {
          move(&state, to: state.nominal)
        }
      }
    case .wall(_, let current)?:
      // A replaced timer that was starting when a move cancelled it. The
      // loop checked the current one's date against the wall clock.
      guard generation == current else { return false }
      if repeats, let loop = state.context?.loop {
        move(
          &state, to: state.nominal.nextGridPoint(after: clock.now(on: loop), interval: interval))
      }
    case nil:
      return false
    }
    return true
  }

  private func deliverOnQueue() {
    state.withLock { $0.deliveryPending = false }
    _ = calls.runUnlessBusy { callBlock() }
  }

  /// Calls the block if the timer is still valid, then ends a one-shot; made
  /// inside ``calls``, so the check, the call and the end are one step for
  /// other threads: after ``invalidate()`` returns, no call that had not
  /// passed the check starts, and a one-shot runs once.
  private func callBlock() {
    var block: Block?
    let context: LoopContext? = state.withLock { state in
      guard state.phase != .invalid else { return nil }
      block = state.block
      return state.context
    }
    guard let block else { return }
    run(block, in: context)
    if !repeats { invalidate() }
  }

  /// Runs the block, off the loop's own firing, with its loop as
  /// ``DefaultLoop/current``, so that a timer scheduled inside lands on the
  /// same loop.
  private func run(_ block: Block, in context: LoopContext?) {
    guard let loop = context?.loop else { return block(self) }
    DefaultLoop.withCurrent(loop) { block(self) }
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
    calls.run { callBlock() }
  }

  // MARK: Invalidation

  /// Stops the timer for good and releases its block (Apple's `invalidate()`).
  ///
  /// Safe to call twice, before scheduling, from inside the block (the timer
  /// stops at once) and from any thread: after it returns no new call is
  /// committed to (one already committed to may begin just after it returns),
  /// also none waiting on the delivery queue. A call already running is not
  /// interrupted. O(1).
  public func invalidate() {
    var block: Block?  // released outside the lock (see `loopDidFire` for the local)
    let (timer, context): (LoopTimer?, LoopContext?) = state.withLock { state in
      guard state.phase != .invalid else { return (nil, nil) }
      state.phase = .invalid
      // Not `swap`: a generic function reabstracts a closure (two allocations).
      block = state.block
      state.block = nil
      defer { state.timer = nil }
      return (state.timer, state.context)
    }
    timer?.cancel()
    context?.unregister(self)
    _ = block
  }

  /// Ends the timer for its loop's shutdown, under the context's lock: the
  /// loop drops its timers itself. Returns the block, to release outside.
  func endForShutdown() -> Any? {
    var block: Block?
    state.withLock { state in
      guard state.phase != .invalid else { return }
      state.phase = .invalid
      // Not `swap`: a generic function reabstracts a closure (two allocations).
      block = state.block
      state.block = nil
      state.timer = nil
    }
    return block
  }

  /// Whether the timer can still fire (Apple's `isValid`). `false` after
  /// ``invalidate()``, after a one-shot's block has returned, once its loop
  /// has shut down, and from the start for a timer made with a NaN interval or
  /// date or scheduled on a loop that had shut down.
  public var isValid: Bool {
    state.withLock { $0.phase != .invalid }
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
  /// Both O(1).
  public var fireDate: Date {
    get {
      state.withLock { state in
        guard let context = state.context else { return state.date }
        return clock.date(for: state.nominal, in: context, now: now(state))
      }
    }
    set {
      let invalidates: Bool = state.withLock { state in
        switch state.phase {
        case .invalid:
          return false
        case .idle:
          if newValue.timeIntervalSinceReferenceDate.isNaN { return true }
          state.date = newValue
          return false
        case .scheduled:
          let now = now(state)
          guard let context = state.context,
            let requested = clock.deadline(for: newValue, in: context, now: now)
          else { return true }
          move(&state, to: now.map { max(requested, $0) } ?? requested)
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
        guard state.phase == .scheduled,
          Self.coalescingShift(for: state.nominal, tolerance: tolerance) != state.shift
        else { return }
        move(&state, to: state.nominal)
      }
    }
  }

  /// The time on the clock of a scheduled timer's loop; `nil` once the loop
  /// is gone (a wall-clock timer's loop is held weakly).
  private func now(_ state: State) -> Deadline? {
    switch state.timer {
    case .monotonic(let handle)?: handle.now
    case .wall?, nil: state.context?.loop.map(clock.now(on:))
    }
  }

  /// Moves a scheduled timer's next firing to `nominal` plus its tolerance shift.
  private func move(_ state: inout State, to nominal: Deadline) {
    let shift = Self.coalescingShift(for: nominal, tolerance: state.tolerance)
    // A one-shot already running is invalidated after its block whatever its
    // date, so moving it then has no lasting effect (Apple documents the same).
    switch state.timer {
    case .monotonic(let handle)?:
      // From another thread this is a request the loop applies in order;
      // until then a firing it had committed to is checked (`advance`).
      handle.reschedule(to: nominal + shift)
      if !handle.isOnLoopThread { state.remoteMove = true }
    case .wall(let handle, let generation)?:
      handle.cancel()
      // Only a loop shutting down refuses the new timer; its shutdown then
      // invalidates this one (it is listed), as it does every timer.
      if let loop = state.context?.loop,
        let timer = try? arm(on: loop, at: nominal, shift: shift, generation: generation &+ 1)
      {
        state.timer = timer
      }
    case nil:
      break
    }
    state.nominal = nominal
    state.shift = shift
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

extension BlockTimer: TimerHandler {
  /// Called by the loop, on its thread, when the timer's loop timer fires (a
  /// timer on the monotonic clock is its loop timer's handler). Not for
  /// calling: ``fire()`` runs the block; a call from elsewhere than the
  /// loop's firing is taken for a firing, as one the loop committed to. O(1).
  public func timerFired(tag: UInt64) {
    loopDidFire(generation: nil)
  }
}

extension BlockTimer {
  /// A one-shot on `loop` at `deadline` on `clock`, for the types built on
  /// ``BlockTimer`` that count in loop time rather than in dates. Invalid at
  /// once if the loop has shut down.
  static func scheduled(
    at deadline: Deadline, on loop: any TimerEventLoop, clock: TimerClock = .monotonic,
    deliveringOn queue: DispatchQueue?, block: @escaping @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    // The date is only read back if scheduling fails, and then it does not matter.
    let timer = BlockTimer(
      fireDate: .distantPast, interval: 0, repeats: false, userInfo: nil, clock: clock,
      block: block)
    timer.schedule(on: loop, start: .deadline(deadline), queue: queue)
    return timer
  }
}
