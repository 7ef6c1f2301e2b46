import TimerLoop

/// `soak`: a long churn with a million live timers, to show that memory stays flat.
///
/// C = 1,000,000 timers due in an hour stay pending throughout. Every 10 ms a batch of
/// C / 100 steps runs on the loop thread: two in three re-arm a timer (the idle-timeout
/// reset), one in three cancels a timer and schedules its replacement, so slots, table
/// rows and heap nodes are freed and reused all the time (about a million steps per
/// second). Every second it prints the resident set and the live-timer count
/// (`timerloop.soak.rss_bytes_t<s>`, `timerloop.soak.live_t<s>`); at the end, the
/// resident set after warm-up (the first tenth of the run) and its largest growth
/// beyond that. Runs only when named, for `--seconds` (60 by default), on TimerLoop.
enum SoakWorkload {
  /// C when `--timers` is not given.
  static let defaultCount = 1_000_000
  /// The run's length when `--seconds` is not given.
  static let defaultSeconds = 60.0

  /// The state of a run, touched only on the loop thread.
  private final class Run: @unchecked Sendable {
    // @unchecked: every access happens on the one loop thread (`Shared`'s rule).
    var handles: [TimerHandle] = []
    var cursor = 0
    var second = 0
    var warmRSS = 0
    var peakRSS = 0
  }

  static func run(_ implementation: Implementation, count: Int, seconds: Double, sink: MetricSink)
    throws
  {
    precondition(implementation == .timerloop, "soak measures TimerLoop alone")
    let run = Run()
    let total = max(Int(seconds.rounded()), 2)
    let warmUp = max(total / 10, 1)
    try EpollEventLoop.runOnCurrentThread { loop in
      let far = Duration.seconds(3600)
      run.handles = try (0..<count).map { _ in try loop.schedule(after: far) {} }
      let batch = max(count / 100, 1)
      try loop.scheduleRepeating(after: .milliseconds(10), every: .milliseconds(10)) { _ in
        for _ in 0..<batch {
          let index = (run.cursor &* 7919) % count
          run.cursor &+= 1
          if run.cursor % 3 != 0 {
            run.handles[index].reschedule(after: far)
          } else {
            // Cancel and replace: the slot, row and heap node are freed and reused.
            run.handles[index].cancel()
            if let handle = try? loop.schedule(after: far, {}) { run.handles[index] = handle }
          }
        }
      }
      try loop.scheduleRepeating(after: .seconds(1), every: .seconds(1)) { _ in
        run.second += 1
        let rss = ProcessStats.residentBytes()
        sink.emit("rss_bytes_t\(run.second)", rss, "bytes")
        sink.emit("live_t\(run.second)", loop.liveTimerCount, "timers")
        if run.second == warmUp { run.warmRSS = rss }
        if run.second > warmUp { run.peakRSS = max(run.peakRSS, rss) }
        if run.second == total { loop.shutdown() }
      }
    }
    sink.emit("seconds", total, "s")
    sink.emit("c", count, "timers")
    sink.emit("rss_after_warmup", run.warmRSS, "bytes")
    sink.emit("rss_growth_after_warmup", max(run.peakRSS - run.warmRSS, 0), "bytes")
  }
}
