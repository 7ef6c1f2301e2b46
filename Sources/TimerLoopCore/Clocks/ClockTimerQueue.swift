/// The timers of one clock on one loop, and the passes that run them.
///
/// Made on the first timer on its clock (see ``ClockTimers``); its driver
/// (a timerfd on an ``EpollEventLoop``) when the loop thread first arms it,
/// or, for the wall clock, when another thread schedules the first timer
/// (see ``armEarly(_:on:)``). The heap sits behind a lock, so any thread can
/// add a timer and a shutdown on any thread can end them all; only the loop
/// thread watches the driver, re-arms it and runs passes. No user code runs
/// under the lock.
@_spi(TimerLoopHost)
public final class ClockTimerQueue: Sendable {
  /// The clock of the queue's timers.
  public let clock: TimerClock
  weak let host: (any ClockTimerHost)?
  private let state = Locked(State())

  private struct State {
    var heap = ClockTimerHeap()
    var driver: (any ClockDriver)?
    /// The loop watches the driver (``ClockDriver/watch()``).
    var isWatched = false
    /// The deadline the driver is armed for; `nil` when disarmed or spent.
    var armed: Int64?
    /// A task that arms the driver is on its way to the loop thread.
    var armRequested = false
    var isShutdown = false
    /// Timers that run when the clock is set (``ClockTimer/Repeat/clockSet``),
    /// at no date; ended ones are dropped when the driver is re-armed.
    var observers: [ClockTimer] = []
  }

  init(clock: TimerClock, host: any ClockTimerHost, isShutdown: Bool) {
    self.clock = clock
    self.host = host
    state.withLock { $0.isShutdown = isShutdown }
  }

  /// Queues a new `timer` at its deadline (nanoseconds on the clock) and
  /// makes sure the driver wakes the loop for it: at once on the loop
  /// thread, else through a task (one for a burst of schedules).
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown, or when arming the
  ///   driver failed and shut the loop down; the timer is ended.
  func schedule(_ timer: ClockTimer) throws(TimerLoopError) {
    try enqueue(timer, at: timer.deadline ?? .max, generation: 0)
  }

  /// Moves `timer` to `deadline` (nanoseconds on the clock), from any
  /// thread: its old heap entry goes stale, a new one is queued as
  /// ``schedule(_:)`` queues one, after every timer already due then. A
  /// running timer is queued there when its call returns; an ended one
  /// stays ended.
  func reschedule(_ timer: ClockTimer, to requested: Int64) {
    // A burst timer moved into the past is not owed the ticks of its new
    // grid before now (see MissedTickBehavior.burst).
    let deadline =
      if let interval = timer.burstInterval, let host {
        requested.burstStart(now: host.nanoseconds(on: clock), interval: interval)
      } else {
        requested
      }
    guard let generation = timer.move(to: deadline) else { return }
    // After shutdown the timer was ended, and stays so.
    try? enqueue(timer, at: deadline, generation: generation)
    // Moved later, the earliest timer leaves the driver armed for its old date.
    timerWasCancelled()
  }

  /// Adds `timer` (``ClockTimer/Repeat/clockSet``) to the timers that run
  /// each time the clock is set, and makes sure the driver hears of it, as
  /// ``schedule(_:)`` does for a date.
  ///
  /// - Throws: as ``schedule(_:)``.
  func observe(_ timer: ClockTimer) throws(TimerLoopError) {
    try enqueue(timer, at: nil, generation: 0)
  }

  /// Puts `timer` in the heap at `deadline`, or among the observers for
  /// `nil`, and has the driver armed for it.
  private func enqueue(_ timer: ClockTimer, at deadline: Int64?, generation: UInt64)
    throws(TimerLoopError)
  {
    guard let host else { throw .shutdown }
    let onLoopThread = host.inEventLoop
    let sendsArmTask = try state.withLock { (state) throws(TimerLoopError) -> Bool in
      guard !state.isShutdown else { throw .shutdown }
      if let deadline {
        state.heap.insert(timer, at: deadline, generation: generation)
      } else {
        state.observers.append(timer)
      }
      guard !onLoopThread, !state.armRequested else { return false }
      if state.driver == nil && clock.canBeSet { armEarly(&state, on: host) }
      let unwatched = state.driver != nil && !state.isWatched
      // An observer needs the driver armed at all, for any date.
      let needed = deadline.map { $0 < (state.armed ?? .max) } ?? (state.armed == nil)
      guard unwatched || needed else { return false }
      state.armRequested = true
      return true
    }
    do throws(TimerLoopError) {
      if onLoopThread {
        rearm()
      } else if sendsArmTask {
        try host.execute { [self] in rearm() }
      }
      if !timer.isValid && !timer.hasBegun && host.scheduler.isShutdown { throw .shutdown }
    } catch {
      timer.end()
      // Scheduled from another thread, the timer may already have run (and
      // its body shut the loop down): it was scheduled, so no error.
      guard timer.hasBegun else { throw error }
    }
  }

  /// Makes and arms the wall clock's driver on the thread scheduling its
  /// first timer, before the loop watches it: a `TFD_TIMER_CANCEL_ON_SET`
  /// timerfd hears of the steps made from its first arming on, so a step
  /// made before the loop thread could arm it was lost, and a rule timer
  /// kept a date computed before the step. The kernel keeps the news for
  /// the loop's first read. A failure is left to the loop, which makes the
  /// driver again and stops on it.
  private func armEarly(_ state: inout State, on host: any ClockTimerHost) {
    guard let earliest = Self.target(&state),
      let driver = try? host.makeClockDriver(for: self), (try? driver.arm(earliest)) != nil
    else { return }
    state.driver = driver
    state.armed = earliest
  }

  /// Arms the driver (making it and having the loop watch it first if need
  /// be) for the earliest pending deadline. Loop thread only. A failing
  /// system call stops the loop.
  func rearm() {
    guard let host else { return }
    do throws(SystemError) {
      let wasSet = try state.withLock { (state) throws(SystemError) -> Bool in
        state.armRequested = false
        guard !state.isShutdown else { return false }
        let target = Self.target(&state)
        if state.driver == nil {
          guard target != nil else { return false }
          state.driver = try host.makeClockDriver(for: self)
        }
        if !state.isWatched {
          try state.driver?.watch()
          state.isWatched = true
        }
        guard !Self.serves(target, armed: state.armed, leeway: host.clockTimerLeeway) else {
          return false
        }
        let wasSet = try state.driver?.arm(target) ?? false
        state.armed = target
        return wasSet
      }
      // The news the timerfd's next read would have given (it no longer will).
      if wasSet {
        clockWasSet()
        rearm()
      }
    } catch {
      host.stop(dueTo: error)
    }
  }

  /// Re-arms the driver after a timer was cancelled, if the driver was armed
  /// for that timer (the heap's first): for the next live timer, or disarmed
  /// if none is left, so the loop is not woken, nor an embedded host told a
  /// deadline, for a date no timer waits for. At once on the loop thread,
  /// else through a task, as ``schedule(_:)`` does (whose wake-up also has
  /// an embedded host call `runOnce()`, which then tells it the next deadline).
  /// O(1) unless it re-arms; a cancelled timer that is not the first costs
  /// nothing more.
  func timerWasCancelled() {
    guard let host else { return }
    let onLoopThread = host.inEventLoop
    let rearms = state.withLock { state -> Bool in
      // Not armed: disarmed, spent by a running pass (which re-arms as it
      // ends), or not armed yet (a task to arm it is on its way).
      let lastObserverEnded =
        state.armed == .max && !state.observers.contains { $0.isValid }
      guard !state.isShutdown, state.armed != nil, state.heap.firstIsStale || lastObserverEnded
      else { return false }
      guard !onLoopThread else { return true }
      guard !state.armRequested else { return false }
      state.armRequested = true
      return true
    }
    guard rearms else { return }
    if onLoopThread {
      rearm()
    } else {
      try? host.execute { [self] in rearm() }  // throws only after shutdown, which ends every timer
    }
  }

  /// What the driver must be armed for: the earliest pending deadline;
  /// with none, `Int64.max` while a valid observer waits (a
  /// `TFD_TIMER_CANCEL_ON_SET` timerfd reports a step of the clock only
  /// while armed), else nothing (`Int64.max` alone is no date at all).
  private static func target(_ state: inout State) -> Int64? {
    if let earliest = state.heap.earliestDeadline(), earliest != .max { return earliest }
    state.observers.removeAll { !$0.isValid }
    return state.observers.isEmpty ? nil : .max
  }

  /// Whether a driver armed for `armed` needs no new arming for `target`:
  /// the same, or a wake-up no more than `leeway` after `target` (never
  /// before it), which a pass then shares with every timer due by then, as
  /// the monotonic timerfd does within the loop's leeway. A timer on its
  /// own is armed for its deadline itself and fires on time.
  private static func serves(_ target: Int64?, armed: Int64?, leeway: Int64) -> Bool {
    guard let target, let armed else { return target == armed }
    return armed >= target && armed.subtractingSaturated(target) <= leeway
  }

  /// The earliest pending deadline (nanoseconds on the clock), or `nil`.
  /// A cancelled timer may still count until a pass removes it.
  public var earliestDeadline: Int64? {
    state.withLock { $0.heap.earliestDeadline() }
  }

  /// The clock was set (`ECANCELED` from the timerfd's read or from
  /// `timerfd_settime`), or moved against a virtual loop's monotonic clock:
  /// the next ``rearm()`` arms the driver again, whatever it was armed for.
  /// Timers whose deadline has now passed are due in the next pass; the
  /// others wait. Loop thread only.
  ///
  /// A rule timer (``ClockTimer/Repeat/rule(_:)``) whose date is still ahead
  /// takes its next date from its rule at the current time instead (libev's
  /// `ev_periodic` calls its reschedule callback on a time jump), so no date
  /// the jump skipped is replayed; its rule runs here, outside the lock. One
  /// waiting for no date at all (`Int64.max`: NaN, `distantFuture`) keeps
  /// waiting.
  public func clockWasSet() {
    guard let host else { return }
    let now = host.nanoseconds(on: clock)
    let rescheduled = state.withLock { state in
      state.armed = nil
      // Int64.max is no date at all (NaN, distantFuture): it stays "never".
      return state.heap.removeAll {
        $0.deadline > now && $0.deadline != .max && $0.isCurrent && $0.timer.realignment != nil
      }
    }
    for entry in rescheduled {
      guard let repeats = entry.timer.realignment else { continue }
      if let next = Self.firstDeadline(after: now, repeats) {
        // Unless rescheduled meanwhile, from another thread.
        guard let generation = entry.timer.move(to: next, from: entry.generation) else { continue }
        requeue(entry.timer, at: next, generation: generation, sequence: entry.sequence)
      } else if entry.isCurrent {
        entry.timer.end()
      }
    }
    // In a task, not here: this may run inside a schedule call, on a re-arm
    // that found the clock set; a shutdown drops the task and the calls.
    let observers = state.withLock { $0.observers.filter(\.isValid) }
    guard !observers.isEmpty else { return }
    try? host.execute {
      for observer in observers { observer.runOnClockSet() }
    }
  }

  /// The first deadline a rule or grid timer takes after `now`; `nil` if
  /// the rule ends (or for another kind of timer).
  private static func firstDeadline(after now: Int64, _ repeats: ClockTimer.Repeat) -> Int64? {
    switch repeats {
    case .rule(let rule): date(after: now, by: rule)
    case .grid(let grid): grid.point(after: now)
    case .never, .fixedRate, .fixedDelay, .burst, .clockSet: nil
    }
  }

  /// The first date `rule` gives after `input` (nanoseconds on the wall
  /// clock), at least 0.1 ms after it, the floor of repeat intervals: a
  /// date closer than that (or not after it) is raised to it, so a rule
  /// cannot make a timer fire in every pass. `nil` if the rule ends.
  private static func date(after input: Int64, by rule: (Int64) -> Int64?) -> Int64? {
    guard let next = rule(input) else { return nil }
    // Also after the nearest Date to `input`, which the rule was given: the
    // two differ by far less than the floor.
    return max(next, input.addingSaturated(TimerScheduler.minimumRepeatInterval.nanoseconds))
  }

  /// One pass, when the driver fires (loop thread): collects every timer due
  /// now, in deadline order with ties first-in first-out, then runs them.
  /// A timer cancelled by an earlier callback of the pass does not run;
  /// timers the callbacks add run in a later pass; a shutdown stops the pass.
  public func runPass() {
    guard let host else { return }
    let now = host.nanoseconds(on: clock)
    let due = state.withLock { state in
      state.armed = nil  // the driver's expiry is spent
      return state.heap.popDue(now: now)
    }
    var next = due.startIndex
    while next < due.endIndex && !host.scheduler.isShutdown {
      run(due[next], on: host)
      next += 1
    }
    for entry in due[next...] { entry.timer.end() }
    rearm()
  }

  private func run(_ entry: ClockTimerHeap.Entry, on host: any ClockTimerHost) {
    // Never early: the clock may have been set back since the pass began.
    guard host.nanoseconds(on: clock) >= entry.deadline else {
      return requeue(
        entry.timer, at: entry.deadline, generation: entry.generation, sequence: entry.sequence)
    }
    guard let (body, repeats, deadline) = entry.timer.begin(entry.generation) else { return }
    switch body {
    case .once(let call): call()
    case .repeating(let call): call(ClockTimerHandle(timer: entry.timer))
    }
    // A reschedule made during the call decides instead (and a rule is not asked).
    let next =
      entry.timer.isRescheduled
      ? nil : nextDeadline(after: deadline, repeats, now: host.nanoseconds(on: clock))
    if let (next, generation) = entry.timer.finish(next: next) {
      requeue(entry.timer, at: next, generation: generation, sequence: nil)
    }
  }

  /// The deadline after a call due at `deadline` that ended at `now`, or
  /// `nil` for none.
  private func nextDeadline(after deadline: Int64, _ repeats: ClockTimer.Repeat, now: Int64)
    -> Int64?
  {
    switch repeats {
    case .never:
      return nil
    case .fixedRate(let interval):
      // The first grid point after now: one call for every missed tick. The
      // distance is unsigned: from a deadline long before the clock's epoch
      // it does not fit an Int64, and saturating it lost the grid.
      guard now >= deadline else { return deadline.addingSaturated(interval) }
      let intoPeriod = UInt64(bitPattern: now &- deadline) % UInt64(interval)
      return now.addingSaturated(interval - Int64(intoPeriod))
    case .fixedDelay(let interval):
      return now.addingSaturated(interval)
    case .burst(let interval):
      return deadline.addingSaturated(interval).burstBacklogCapped(now: now, interval: interval)
    case .rule(let rule):
      // From the date it was due, so a grid rule keeps its grid; if that
      // has passed too (the loop was late), from now: one call for every
      // date missed.
      guard let next = Self.date(after: deadline, by: rule) else { return nil }
      return next > now ? next : Self.date(after: now, by: rule)
    case .grid(let grid):
      // Exact in nanoseconds; after now if the loop was late past points.
      return grid.point(after: max(deadline, now))
    case .clockSet:
      return nil  // observers are not in the heap
    }
  }

  /// Puts a pending timer back in the heap as its entry of `generation`
  /// (ends it after shutdown).
  private func requeue(
    _ timer: ClockTimer, at deadline: Int64, generation: UInt64, sequence: UInt64?
  ) {
    let accepted = state.withLock { state in
      guard !state.isShutdown else { return false }
      state.heap.insert(timer, at: deadline, generation: generation, sequence: sequence)
      return true
    }
    if !accepted { timer.end() }
  }

  /// Ends every timer and drops the driver (an ``EpollEventLoop`` closes its
  /// timerfd when it drops its registrations). Any thread; idempotent.
  func shutDown() {
    let (entries, observers) = state.withLock { state in
      state.isShutdown = true
      state.driver = nil
      state.armed = nil
      defer { state.observers = [] }
      return (state.heap.removeAll(), state.observers)
    }
    for entry in entries { entry.timer.end() }
    for observer in observers { observer.end() }
  }
}
