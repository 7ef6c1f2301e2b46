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

  /// The handle of `timer`.
  package init(timer: ClockTimer) {
    self.timer = timer
  }

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

  /// Moves the timer to `instant` on the boot-time clock (`CLOCK_BOOTTIME`,
  /// ``TimerEventLoop/continuousNow``), from any thread; see
  /// ``reschedule(to:)-(Date)``, whose rules this follows with instants for
  /// dates. An instant beyond the clock's range (about 292 years after boot)
  /// never comes. A wall-clock timer is moved to the date the wall clock
  /// will read at `instant` if it is not set meanwhile.
  public func reschedule(to instant: ContinuousClock.Instant) {
    reschedule(to: instant.bootNanoseconds, on: .boot)
  }

  /// Moves the timer to `nanoseconds` on `source`, converted to its own clock.
  package func reschedule(to nanoseconds: Int64, on source: TimerClock) {
    guard let queue = timer.queue, let host = queue.host else { return }
    queue.reschedule(timer, to: host.nanoseconds(nanoseconds, from: source, to: queue.clock))
  }

  /// ``fireDate`` as an instant on the boot-time clock (`CLOCK_BOOTTIME`,
  /// ``TimerEventLoop/continuousNow``): exact for a boot-time timer; for a
  /// wall-clock one, the instant at which the wall clock will read its date
  /// if it is not set meanwhile. `nil` when ``fireDate`` is. Any thread; O(1).
  public var fireInstant: ContinuousClock.Instant? {
    fire(on: .boot).map(ContinuousClock.Instant.init(bootNanoseconds:))
  }

  /// When the timer is due, in nanoseconds on `target`; `nil` once it has
  /// ended or while it waits for a time that never comes.
  package func fire(on target: TimerClock) -> Int64? {
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
