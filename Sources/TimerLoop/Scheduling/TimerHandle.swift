/// A reference to one scheduled timer, returned by the `schedule` calls of
/// ``EventLoop``; use it to cancel or move the timer.
///
/// A handle is a small value (a slot number, a generation, and the loop's
/// scheduler). Copies refer to the same timer. Once the timer has ended
/// (a one-shot fired, or it was cancelled, or the loop shut down) every call
/// on the handle is a harmless no-op that returns `false` or `nil`, even if a
/// later timer has taken over the slot.
///
/// All methods are safe from any thread. Each takes the loop's lock once:
/// O(log n) in the number of pending timers, no allocation.
public struct TimerHandle: Sendable {
  let scheduler: TimerScheduler
  let slot: UInt32
  let generation: UInt32

  /// Cancels the timer.
  ///
  /// After `cancel()` returns, no new call of the timer's closure starts, and
  /// the closure (with everything it captured) has been released, unless it is
  /// running right now on the loop thread: a call already under way is not
  /// interrupted, and the closure is released when it returns. Calling
  /// `cancel()` from inside the closure itself stops a repeating timer.
  ///
  /// - Returns: `true` if the timer was still scheduled or running; `false` if it
  ///   had already ended (cancelling twice is safe and returns `false`).
  @discardableResult
  public func cancel() -> Bool {
    scheduler.cancel(slot: slot, generation: generation)
  }

  /// Moves the timer to `deadline` (on the loop's monotonic clock). A repeating
  /// timer continues from there: a fixed-rate one on the grid
  /// `deadline + n × interval`. Among timers due at the same deadline, a
  /// rescheduled one fires after those already scheduled for it.
  ///
  /// A one-shot may reschedule itself from inside its closure; it then fires
  /// again at `deadline` instead of ending. A firing collected for the current
  /// pass but not yet started is dropped in favour of the new deadline.
  ///
  /// - Returns: `false` (and does nothing) if the timer has already ended.
  @discardableResult
  public func reschedule(to deadline: Deadline) -> Bool {
    scheduler.reschedule(slot: slot, generation: generation, to: deadline)
  }

  /// Moves the timer to `delay` from now (the loop's monotonic clock, nanoseconds,
  /// saturating to "never"). The idle-timeout pattern: re-arm on every request.
  ///
  /// - Returns: `false` (and does nothing) if the timer has already ended.
  @discardableResult
  public func reschedule(after delay: TimeAmount) -> Bool {
    reschedule(to: scheduler.now + delay)
  }

  /// The deadline the timer waits for, or `nil` if it is not waiting (it has
  /// ended, or a one-shot or fixed-delay timer is running right now).
  public var deadline: Deadline? {
    scheduler.deadline(slot: slot, generation: generation)
  }
}
