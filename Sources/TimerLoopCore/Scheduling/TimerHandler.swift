/// An object a loop calls when one of its handler timers fires: the
/// allocation-free alternative to closure timers (SwiftNIO's
/// `NIOScheduledCallbackHandler`, libev's and libuv's caller-owned timers).
///
/// One handler can serve any number of timers, told apart by the 64-bit tag
/// given when each was made. The loop keeps a strong reference to the handler
/// while a timer of it is live (until a one-shot fires or is disarmed, or a
/// kept timer is invalidated), and releases it on the loop thread.
///
/// Use a handler timer where timers are many or re-armed often: it costs no
/// heap allocation and no reference counting per arm, re-arm, disarm or
/// firing on the loop thread, and the caller stores an 8-byte ``TimerKey``
/// instead of a ``TimerHandle``. Use the closure API for timers made now and
/// then, where capturing state in a closure is simpler.
public protocol TimerHandler: AnyObject, Sendable {
  /// Called on the loop's thread when a timer of this handler fires, with the
  /// tag it was made with. Inside the call the loop's timer calls
  /// (``TimerEventLoop/arm(_:at:)`` and friends) act at once.
  func timerFired(tag: UInt64)
}

/// Names one handler timer (``TimerHandler``): an 8-byte value, with no
/// reference to the loop, so storing and copying it costs no reference
/// counting. Pass it to the loop that made it: ``TimerEventLoop/arm(_:at:)``,
/// ``TimerEventLoop/disarm(_:)``, ``TimerEventLoop/invalidate(_:)``.
///
/// Once its timer has ended (a one-shot fired or was disarmed, a kept timer
/// was invalidated, or the loop shut down) every call with the key does
/// nothing, even if a later timer has taken over its table slot. A key made on
/// another thread than the loop's names its timer by a ticket, which the loop
/// looks up on every call (in a table sorted by ticket: one probe, or a binary
/// search), so make keys for hot timers on the loop thread.
///
/// Calls with a key take effect in the order they were made, on whichever
/// threads, as ``TimerHandle``'s do: a `disarm` on the loop thread after an
/// `arm` another thread returned from leaves the timer disarmed.
public struct TimerKey: Hashable, Sendable {
  @usableFromInline let id: TimerID

  @usableFromInline
  init(id: TimerID) {
    self.id = id
  }
}

extension TimerEventLoop {
  // The calls that make a handler timer are inlinable for the reason the
  // calls on a key (below) are.

  /// Makes a *kept* handler timer, disarmed: it calls
  /// `handler.timerFired(tag: tag)` on the loop's thread each time it fires,
  /// and stays, disarmed, after it fires or is disarmed, until
  /// ``invalidate(_:)``. The per-connection idle timeout: make it once, then
  /// ``arm(_:after:)`` it on every request.
  ///
  /// Making it allocates only when the loop's table grows (O(1) amortised) and
  /// retains `handler` once. From another thread it is a request, like
  /// `schedule`.
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `handler` is not kept.
  @inlinable
  public func makeTimer(
    handler: some TimerHandler, tag: UInt64 = 0
  ) throws(TimerLoopError) -> TimerKey {
    TimerKey(id: try scheduler.schedule(handler: handler, tag: tag, at: nil))
  }

  /// Calls `handler.timerFired(tag: tag)` once on the loop's thread at
  /// `deadline` (monotonic clock) or later; then the timer ends. The bulk
  /// form: a million one-shots served by one handler, told apart by `tag`,
  /// with no closure each. Deadlines and ordering as ``schedule(at:_:)-(Deadline,_)``.
  ///
  /// Costs no allocation beyond the loop's table growing (O(1) amortised), and
  /// one retain of `handler`, released when the timer ends.
  /// - Returns: a key that moves (``arm(_:at:)``) or cancels (``disarm(_:)``) it.
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown.
  @inlinable @discardableResult
  public func schedule(
    at deadline: Deadline, handler: some TimerHandler, tag: UInt64
  ) throws(TimerLoopError) -> TimerKey {
    TimerKey(id: try scheduler.schedule(handler: handler, tag: tag, at: deadline))
  }

  /// ``schedule(at:handler:tag:)`` `delay` from ``now``, rounded up to a
  /// whole nanosecond; a negative delay counts as zero, a huge one saturates
  /// to never.
  @inlinable @discardableResult
  public func schedule(
    after delay: Duration, handler: some TimerHandler, tag: UInt64
  ) throws(TimerLoopError) -> TimerKey {
    try schedule(at: now.after(delay), handler: handler, tag: tag)
  }

  // The calls on a key are inlinable: specialised for the caller's loop type,
  // they read `scheduler` directly instead of through a protocol witness that
  // returns it retained (a retain and a release per call).

  /// Arms the timer of `key` for `deadline` (monotonic clock), or moves it
  /// there if it is armed. Among timers due at the same deadline it fires
  /// after those already scheduled for it. A firing collected for the current
  /// pass but not yet started is dropped in favour of the new deadline. Does
  /// nothing if the timer has ended.
  ///
  /// On the loop thread: O(1) (see ``TimerHandle``), no allocation, no
  /// reference counting. From another thread: a request, applied before the
  /// loop runs anything else.
  @inlinable
  public func arm(_ key: TimerKey, at deadline: Deadline) {
    scheduler.reschedule(key.id, to: deadline)
  }

  /// Arms the timer of `key` `delay` from ``now`` (read at the call; rounded
  /// up to a whole nanosecond, negative counts as zero, huge saturates to
  /// never); see ``arm(_:at:)``.
  @inlinable
  public func arm(_ key: TimerKey, after delay: Duration) {
    scheduler.reschedule(key.id, to: now.after(delay))
  }

  /// Disarms the timer of `key`: a kept timer stays, to be armed again; a
  /// one-shot ends (its handler is released). Idempotent; does nothing if the
  /// timer has ended.
  ///
  /// After it returns, from any thread, the loop commits to no new call for
  /// this timer, exactly as ``TimerHandle/cancel()``. On the loop thread O(1),
  /// no allocation, no reference counting.
  @inlinable
  public func disarm(_ key: TimerKey) {
    scheduler.cancel(key.id)
  }

  /// Ends the timer of `key`, kept or not, and releases its handler (on the
  /// loop thread at once, from another thread before the loop runs anything
  /// else); the key goes stale. The commitment of ``disarm(_:)`` holds too.
  @inlinable
  public func invalidate(_ key: TimerKey) {
    scheduler.invalidate(key.id)
  }
}

extension TimerEventLoop {
  /// Calls `handler.timerFired(tag: 0)` once at `deadline`, as
  /// ``schedule(at:handler:tag:)`` does, and returns a ``TimerHandle`` to move
  /// or cancel it. `package`: BlockTimers' one-shots, which are their own
  /// handlers and so cost no closure allocation.
  package func scheduleHandle(
    at deadline: Deadline, handler: any TimerHandler
  ) throws(TimerLoopError) -> TimerHandle {
    // Read once: each read of `scheduler` through the protocol retains it.
    let scheduler = scheduler
    let id = try scheduler.schedule(at: deadline, mode: .oneShot, extra: 0, body: .object(handler))
    return TimerHandle(scheduler: scheduler, id: id)
  }

  /// ``scheduleHandle(at:handler:)`` `delay` from ``now`` (negative counts
  /// as zero); returns the deadline too, read from the same clock reading.
  package func scheduleHandle(
    after delay: TimeAmount, handler: any TimerHandler
  ) throws(TimerLoopError) -> (TimerHandle, Deadline) {
    let scheduler = scheduler
    let deadline = scheduler.now + max(delay, .zero)
    let id = try scheduler.schedule(at: deadline, mode: .oneShot, extra: 0, body: .object(handler))
    return (TimerHandle(scheduler: scheduler, id: id), deadline)
  }

  /// Calls `handler.timerFired(tag:)` at `first` and then every `interval`
  /// (raised to at least 0.1 ms) on the fixed-rate grid, skipping missed
  /// ticks, exactly as a ``MissedTickBehavior/skip`` closure timer, until
  /// cancelled; the tag passed is the interval in nanoseconds (the field a
  /// tag takes holds it). `package`: BlockTimers' repeating timers.
  package func scheduleRepeatingHandle(
    firstAt first: Deadline, every interval: TimeAmount, handler: any TimerHandler
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduler.schedule(
      at: first, interval: interval, missedTicks: .skip, body: .object(handler))
  }
}
