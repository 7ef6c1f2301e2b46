/// `scaling`: ``ChurnWorkload`` and ``MillionWorkload`` on TimerLoop at four sizes, N/1000,
/// N/100, N/10 and N (10,000 to 10,000,000 by default), so that a reader can see whether the
/// cost per operation stays flat as the number of pending timers grows.
///
/// Every metric of each run is printed, named after its workload and size:
/// `timerloop.scaling.churn_reset_ns_c10000`, `timerloop.scaling.million_init_ns_per_timer_n10000`.
/// The sizes run one after the other in one process, churn's first, from the smallest.
///
/// Bounded by construction: churn keeps its R = 2,000,000 resets at every size (at
/// C = 10,000,000 they touch a fifth of the timers, each once, and each reset there misses the
/// last-level cache about once: cachegrind's counts are in Benchmarks/RESULTS.md), and
/// million's run phase lasts about N/1000 ms, 10 s at the largest size. The whole workload took about 25 s and peaked at 1.6 GB
/// resident on a 2-core machine.
enum ScalingWorkload {
  /// The largest size when `--timers` is not given.
  static let defaultCount = 10_000_000

  /// N/1000, N/100, N/10 and N, leaving out sizes below one timer.
  static func sizes(upTo count: Int) -> [Int] {
    [1000, 100, 10, 1].map { count / $0 }.filter { $0 > 0 }
  }

  /// Runs churn and then million at every size up to `count`.
  static func run(_ implementation: Implementation, count: Int) throws {
    for (workload, tag) in [(Workload.churn, "c"), (.million, "n")] {
      let benchmarkCase = BenchmarkCase(workload: workload, implementation: implementation)
      for size in sizes(upTo: count) {
        printError("scaling: \(benchmarkCase) with \(size) timers ...")
        try benchmarkCase.run(
          timers: size, seconds: nil,
          sink: MetricSink(
            implementation: implementation, workload: workload, within: .scaling,
            tag: "\(tag)\(size)"))
      }
    }
  }
}
