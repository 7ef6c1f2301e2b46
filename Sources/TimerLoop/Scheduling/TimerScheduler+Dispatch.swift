/// One pass of the loop: what runs, in which order, and how repeating timers
/// move on. Shared by every kind of loop, so the virtual-time loop tests the
/// same code the epoll loop runs.
///
/// A pass, at the time `now` read once at its start (libuv's `uv__run_timers`,
/// SwiftNIO's `tasksCopy`):
/// 1. Under the lock, take every task queued so far and every timer due at
///    `now`. A fixed-rate timer is queued again at its next grid point *before*
///    any callback runs, so its callback can cancel or reschedule it.
/// 2. Run the tasks, then the due timers in `(deadline, scheduling order)`.
///    Each timer is checked just before its call: one cancelled or rescheduled
///    by an earlier callback of the same pass does not run.
/// 3. Work added by those callbacks, even with a zero delay, waits for the next
///    pass, so a callback that schedules itself again cannot starve the loop.
extension TimerScheduler {
  /// A due timer, named by slot and generation.
  struct DueTimer {
    var slot: UInt32
    var generation: UInt32
  }

  /// Runs one pass at `now`; `tasks` and `due` are the caller's scratch buffers,
  /// kept between passes so that a pass does not allocate.
  /// - Returns: the number of closures that ran.
  @discardableResult
  func runPass(
    now: Deadline, tasks: inout [@Sendable () -> Void], due: inout [DueTimer]
  ) -> Int {
    state.withLock { state in
      swap(&tasks, &state.tasks)
      while let slot = state.queue.popFirst(dueAt: now) {
        state.collect(slot, now: now)
        due.append(DueTimer(slot: slot, generation: state.entries[Int(slot)].generation))
      }
    }
    defer {
      tasks.removeAll(keepingCapacity: true)
      due.removeAll(keepingCapacity: true)
    }
    for task in tasks { task() }
    var ran = tasks.count
    for timer in due where fire(timer) { ran += 1 }
    return ran
  }

  /// Runs one collected timer if it is still meant to run. Returns whether it ran.
  private func fire(_ timer: DueTimer) -> Bool {
    let body: TimerBody? = state.withLock { state in
      guard state.isLive(timer.slot, timer.generation),
        state.entries[Int(timer.slot)].firePending
      else { return nil }
      state.entries[Int(timer.slot)].firePending = false
      return state.entries[Int(timer.slot)].body
    }
    switch body {
    case nil:
      return false
    case .once(let closure):
      closure()
    case .repeating(let closure):
      closure(TimerHandle(scheduler: self, slot: timer.slot, generation: timer.generation))
    }
    finish(timer)
    return true
  }

  /// After a call: a one-shot that was not rescheduled ends; a fixed-delay
  /// timer that was not cancelled or rescheduled is queued one interval from now.
  private func finish(_ timer: DueTimer) {
    let released: TimerBody? = state.withLock { state in
      guard state.isLive(timer.slot, timer.generation),
        state.entries[Int(timer.slot)].phase == .unqueued
      else { return nil }
      guard let interval = state.entries[Int(timer.slot)].interval else {
        return state.free(timer.slot)
      }
      let next = now + interval
      state.entries[Int(timer.slot)].deadline = next
      state.entries[Int(timer.slot)].phase = .queued
      state.queue.push(slot: timer.slot, deadline: next)
      return nil
    }
    _ = released  // a finished one-shot's closure is released here, outside the lock
  }
}

extension TimerScheduler.State {
  /// Marks the timer in `slot`, just taken off the queue at `now`, to fire.
  mutating func collect(_ slot: UInt32, now: Deadline) {
    entries[Int(slot)].firePending = true
    let entry = entries[Int(slot)]
    guard let interval = entry.interval, entry.policy == .fixedRate else {
      entries[Int(slot)].phase = .unqueued
      return
    }
    let next = entry.deadline.nextGridPoint(after: now, interval: interval)
    entries[Int(slot)].deadline = next
    queue.push(slot: slot, deadline: next)
  }
}

extension Deadline {
  /// The first point of the grid `self + n × interval` (n ≥ 1) later than `now`:
  /// where a fixed-rate timer goes next, one call for however many periods
  /// were missed (CoreFoundation's `__CFRunLoopDoTimer` does the same).
  /// Saturates at ``distantFuture``.
  func nextGridPoint(after now: Deadline, interval: TimeAmount) -> Deadline {
    let next = self + interval
    guard next <= now, next != .distantFuture else { return next }
    let missed = (now - next).nanoseconds / interval.nanoseconds + 1
    let (skip, overflow) = interval.nanoseconds.multipliedReportingOverflow(by: missed)
    return overflow ? .distantFuture : next + .nanoseconds(skip)
  }
}
