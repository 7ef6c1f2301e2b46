extension TimerScheduler {
  /// What a pass did (``runPass(now:buffers:)``).
  struct PassOutcome {
    var tasksRun = 0
    var timersFired = 0
    /// The pass's `now` minus the deadline of the earliest timer due, if any was.
    var lateness: TimeAmount?
  }

  /// Counts a pass that ran from `start` to `end` and reports it to the
  /// metrics delegate, if the loop has one. `wokeUp`: the pass followed a
  /// wait (``EventLoopStats/wakeUps``). Loop thread only.
  func passDidEnd(_ outcome: PassOutcome, start: Deadline, end: Deadline, wokeUp: Bool) {
    counters.record(outcome, wokeUp: wokeUp, liveTimers: liveTimers)
    // The only cost of the delegate to a loop that has none.
    guard let metricsDelegate else { return }
    let asleep = max(start - lastPassEnd, .zero)
    lastPassEnd = end
    metricsDelegate.processedPass(
      info: EventLoopPassInfo(
        start: start, timersFired: outcome.timersFired, tasksRun: outcome.tasksRun,
        lateness: outcome.lateness, asleep: asleep, busy: end - start))
  }
}
