import Foundation

/// A timer on the boot-time clock (``TimerEventLoop/schedule(at:_:)-(ContinuousClock.Instant,_)``,
/// ``TimerEventLoop/scheduleRepeating(firstAt:every:missedTicks:_:)-(ContinuousClock.Instant,_,_,_)``)
/// or on the wall clock (``TimerEventLoop/schedule(at:_:)-(Date,_)``,
/// ``TimerEventLoop/scheduleRepeating(firstAt:nextDate:_:)``,
/// ``TimerEventLoop/scheduleRepeating(matching:in:matchingPolicy:repeatedTimePolicy:_:)``,
/// ``TimerEventLoop/scheduleRepeating(wallClockEvery:offset:_:)``), or a callback
/// for steps of the wall clock (``TimerEventLoop/onWallClockSet(_:)``), returned
/// so that it can be cancelled, moved (``reschedule(to:)-(Date)``) and asked
/// when it is due (``fireDate``).
///
/// A handle is a small value (one reference); copies refer to the same timer
/// and compare equal. Safe to use from any thread.
public struct ClockTimerHandle: Sendable, Hashable {
  let timer: ClockTimer

  /// Cancels the timer, from any thread. Idempotent; O(1), or O(log n) for
  /// n timers on its clock when it was the earliest of them.
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
  ///
  /// If it was the earliest timer on its clock, the clock's timerfd is
  /// re-armed for the next one, or disarmed if none is left (and an
  /// embedded host's ``EpollEventLoop/nextDeadline`` follows at its next
  /// ``EpollEventLoop/runOnce()``): at once on the loop thread, from another
  /// thread by a task the loop runs next, which wakes it (and makes an
  /// embedded loop's ``EpollEventLoop/backendDescriptor`` readable).
  public func cancel() {
    timer.cancel()
  }

  /// Moves the timer to `date` on the wall clock, from any thread, as libev's
  /// `ev_periodic_again` after changing a periodic's time, or setting
  /// Foundation's `Timer.fireDate`. Does nothing if the timer has ended.
  ///
  /// Exact, as ``cancel()`` is: once this returns, the timer does not start a
  /// call for its old date; its next call is at `date` or later, never
  /// earlier. A call running now (on the loop thread) finishes, and the
  /// timer then waits for `date` instead of the date it would have taken
  /// next, even a one-shot, which fires again instead of ending (the
  /// behaviour of ``TimerHandle/reschedule(to:)``). A repeating timer goes on
  /// from `date`: a fixed-rate one on the grid `date + n × interval`, a rule
  /// or calendar timer with its rule's first date after `date`. Among timers
  /// due at the same moment, a rescheduled one fires after those already
  /// scheduled for it. A past date fires in the next pass; a date that
  /// never comes (NaN, after 2262, `Date.distantFuture`) leaves the timer
  /// waiting, valid, until it is cancelled or rescheduled again. `date` is
  /// rounded up to whole nanoseconds.
  ///
  /// A boot-time timer is moved to the boot-time instant at which the wall
  /// clock would read `date` if it is not set meanwhile (the difference of
  /// the two clocks read now); a wall-clock timer follows the wall clock
  /// when it is set, as ever, and a rule or calendar timer then takes its
  /// next date from its rule again. A ``MissedTickBehavior/burst`` timer
  /// moved into the past runs once, in the next pass, for the last point of
  /// its new grid not after now: the ticks before the move were not missed. The loop's wake-up for the clock moves
  /// with the earliest timer, as after a ``cancel()``.
  ///
  /// - Complexity: O(log n) for n timers on the timer's clock; the old date
  ///   leaves the heap as a cancelled timer does (see ``cancel()``).
  public func reschedule(to date: Date) {
    reschedule(to: date.wallNanoseconds, on: .wall)
  }

  /// Moves the timer to `instant` on the boot-time clock (`CLOCK_BOOTTIME`,
  /// ``TimerEventLoop/continuousNow``), from any thread; see
  /// ``reschedule(to:)-(Date)``, whose rules this follows with instants for
  /// dates. An instant beyond the clock's range (about 292 years after boot)
  /// never comes. A wall-clock timer is moved to the date the wall clock
  /// will read at `instant` if it is not set meanwhile.
  public func reschedule(to instant: ContinuousClock.Instant) {
    reschedule(to: instant.bootNanoseconds, on: .boot)
  }

  private func reschedule(to nanoseconds: Int64, on source: TimerClock) {
    guard let queue = timer.queue, let host = queue.host else { return }
    queue.reschedule(timer, to: host.nanoseconds(nanoseconds, from: source, to: queue.clock))
  }

  /// The date the timer is due on the wall clock, Foundation's `fireDate`
  /// read from any thread: while it waits, the date of its next call; inside
  /// its own call (on the loop thread), the date that call was due, never
  /// after the time it began: a calendar job reads the occurrence it runs
  /// for, however late the loop was. Once a call returns, the date of the
  /// next (Foundation's `fireDate` already tells the next one inside the
  /// block; TimerLoop tells it after). A ``reschedule(to:)-(Date)`` changes
  /// it at once, also inside the call.
  ///
  /// `nil` once the timer has ended (cancelled, a one-shot that fired, a
  /// rule that returned `nil`, shutdown) and while it waits for a date that
  /// never comes. Exact to the nanosecond the loop keeps, up to `Date`'s
  /// precision, for a wall-clock timer; for a boot-time timer, its instant
  /// as a date on the wall clock read now (which moves with the wall clock
  /// when it is set). O(1): one lock and, for a boot-time timer, two clock
  /// reads.
  public var fireDate: Date? {
    fire(on: .wall).map(Date.init(wallNanoseconds:))
  }

  /// ``fireDate`` as an instant on the boot-time clock (`CLOCK_BOOTTIME`,
  /// ``TimerEventLoop/continuousNow``): exact for a boot-time timer; for a
  /// wall-clock one, the instant at which the wall clock will read its date
  /// if it is not set meanwhile. `nil` when ``fireDate`` is. Any thread; O(1).
  public var fireInstant: ContinuousClock.Instant? {
    fire(on: .boot).map(ContinuousClock.Instant.init(bootNanoseconds:))
  }

  private func fire(on target: TimerClock) -> Int64? {
    guard let queue = timer.queue, let host = queue.host, let deadline = timer.deadline,
      deadline != .max
    else { return nil }
    return host.nanoseconds(deadline, from: queue.clock, to: target)
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
