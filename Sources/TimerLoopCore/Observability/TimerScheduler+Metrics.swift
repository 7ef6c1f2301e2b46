extension TimerScheduler {
  /// What a pass did (``runPass(now:buffers:)``).
  @_spi(TimerLoopHost)
  public struct PassOutcome {
    var tasksRun = 0
    var timersFired = 0
    /// The pass's `now` minus the deadline of the earliest timer due, if any was.
    var lateness: TimeAmount?
  }

  /// Counts a pass that ran from `start` to `end` and reports it to
  /// `delegate`, the loop's ``metricsDelegate`` as its caller read it once
  /// for all the passes of a run. `wokeUp`: the pass followed a wait
  /// (``EventLoopStats/wakeUps``). Loop thread only.
  @_spi(TimerLoopHost)
  public func passDidEnd(
    _ outcome: PassOutcome, start: Deadline, end: Deadline, wokeUp: Bool,
    delegate: (any EventLoopMetricsDelegate)?
  ) {
    counters.record(outcome, wokeUp: wokeUp, liveTimers: liveTimers)
    // The only cost of the delegate to a loop that has none.
    guard let delegate else { return }
    let asleep = max(start - lastPassEnd, .zero)
    lastPassEnd = end
    delegate.processedPass(
      info: EventLoopPassInfo(
        start: start, timersFired: outcome.timersFired, tasksRun: outcome.tasksRun,
        lateness: outcome.lateness?.duration, asleep: asleep, busy: end - start))
  }
}
