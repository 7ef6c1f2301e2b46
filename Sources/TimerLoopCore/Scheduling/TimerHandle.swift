/// A reference to one scheduled timer, returned by the `schedule` calls of
/// ``TimerEventLoop``; use it to cancel or move the timer.
///
/// A handle is a small value (the loop's scheduler and a 64-bit timer id).
/// Copies refer to the same timer. Once the timer has ended (a one-shot fired,
/// it was cancelled, or the loop shut down) every call on the handle is a
/// harmless no-op, even if a later timer has taken over its table slot.
///
/// All methods are safe from any thread. On the loop thread they act at once:
/// O(1), or O(log k) for a timer among k due within the current 65 µs tick
/// that arrived out of order (the timing wheel's near queue); no lock, no allocation.
/// From another thread they become a request that the loop applies before it
/// runs anything else (one short lock, coalesced wake-ups). Calls on the loop
/// thread first apply the requests of calls that returned before they began,
/// so calls take effect in the order they were made, on whichever threads
/// (see <doc:Semantics>, rows Thread and Order).
public struct TimerHandle: Sendable {
  // Usable from inline code so that `cancel()` and `reschedule` inline into
  // the caller, which then borrows the handle where it is stored (an array
  // element, say) instead of retaining and releasing its scheduler per call.
  @usableFromInline let scheduler: TimerScheduler
  @usableFromInline let id: TimerID

  @usableFromInline
  init(scheduler: TimerScheduler, id: TimerID) {
    self.scheduler = scheduler
    self.id = id
  }

  /// Cancels the timer. Idempotent.
  ///
  /// After `cancel()` returns, from any thread, the loop commits to no new
  /// call of the timer's closure. The loop decides to call a timer just before
  /// calling it; a `cancel()` from another thread is either seen by that
  /// decision or waits (a few instructions) until it is made. A call already
  /// committed to is not interrupted, and `cancel()` does not wait for it to
  /// finish: its first instructions may run just after `cancel()` returns, as
  /// with SwiftNIO's `Scheduled.cancel()`. The closure, with everything it
  /// captured, is released at once when cancelling on the loop thread (from
  /// inside the closure itself: when it returns), and by the loop before its
  /// next callback when cancelling from another thread (a loop-thread call
  /// that applies the cancel does not release it inside the call). Calling
  /// `cancel()` from inside the closure stops a repeating timer.
  @inlinable
  public func cancel() {
    scheduler.cancel(id)
  }

  /// Moves the timer to `deadline` (on the loop's monotonic clock). A repeating
  /// timer continues from there: a ``MissedTickBehavior/skip`` or
  /// ``MissedTickBehavior/burst`` one on the grid `deadline + n × interval`
  /// (moved into the past, a burst timer runs once, in the next pass, for the
  /// last point of that grid not after now: the ticks before the move were
  /// not missed). Among timers due at the same deadline, a
  /// rescheduled one fires after those already scheduled for it. Does nothing
  /// if the timer has ended.
  ///
  /// A one-shot may reschedule itself from inside its closure; it then fires
  /// again at `deadline` instead of ending. A firing collected for the current
  /// pass but not yet started is dropped in favour of the new deadline.
  @inlinable
  public func reschedule(to deadline: Deadline) {
    scheduler.reschedule(id, to: deadline)
  }

  /// Moves the timer to `delay` from now (the loop's monotonic clock, read at
  /// the call; rounded up to a whole nanosecond, negative counts as zero,
  /// huge saturates to "never"). The idle-timeout pattern: re-arm on every
  /// request. Does nothing if the timer has ended.
  public func reschedule(after delay: Duration) {
    scheduler.reschedule(id, to: scheduler.now.after(delay))
  }

  /// The deadline the timer waits for, read on the loop thread: `nil` if the
  /// timer has ended or is running right now (a one-shot, or a repeating
  /// timer with ``MissedTickBehavior/delay`` or ``MissedTickBehavior/burst``,
  /// inside its own callback). A ``MissedTickBehavior/skip`` timer inside its
  /// callback already waits for its next grid point. Off the loop thread, where the loop's
  /// table cannot be read without racing it, always `nil`.
  public var deadline: Deadline? {
    scheduler.deadline(of: id)
  }
}

extension TimerHandle {
  /// The time on the timer's loop clock (``TimerEventLoop/now``). `package`:
  /// BlockTimers reads its timers' loop clock through their handles, which
  /// hold the scheduler strongly where the timer holds no loop.
  package var now: Deadline { scheduler.now }

  /// Whether the caller runs on the timer's loop thread, where calls on the
  /// handle act at once rather than as requests. `package`, for BlockTimers.
  package var isOnLoopThread: Bool { scheduler.inLoopThread }
}
