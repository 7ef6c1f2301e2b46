@testable import BenchmarkReport

/// The metric lines of a real default run (`swift run -c release timerloop-bench`,
/// 2026-12-03 16:12 UTC, Benchmarks/RESULTS.md), with its workloads' rows and its
/// implementations, so that the layout is tested on figures of the widths a run prints.
enum DefaultRunFixture {
  /// Its workloads, with every metric printed as a row.
  static let workloads = [
    WorkloadSummary(
      name: "million", rows: nil, headline: "run_cpu_ns_per_timer",
      plotted: ["run_cpu_ns_per_timer"]),
    WorkloadSummary(name: "churn", rows: nil, headline: "reset_ns", plotted: ["reset_ns"]),
    WorkloadSummary(name: "jitter", rows: nil, headline: "p99_us", plotted: ["cpu_s"]),
    WorkloadSummary(
      name: "memory", rows: nil, headline: "bytes_per_timer", plotted: ["bytes_per_timer"]),
    WorkloadSummary(
      name: "sleep", rows: nil, headline: "cpu_us_per_wakeup",
      plotted: ["cpu_us_per_wakeup", "bytes_per_task"]),
  ]

  static let implementations = [
    "timerloop", "timerloop-handler", "foundation", "dispatch", "continuous",
  ].map { ImplementationSummary(name: $0, about: "what \($0) is, in a few words") }

  /// The run's results.
  static func results() -> BenchmarkResults {
    var results = BenchmarkResults(workloads: workloads, implementations: implementations)
    for line in output.split(separator: "\n") {
      let metric = MetricLine(parsing: line)!
      results.record(
        output: line, workload: metric.workload, implementation: metric.implementation)
    }
    return results
  }

  static let output = """
    timerloop.million.n=1000000 timers
    timerloop-handler.million.n=1000000 timers
    foundation.million.n=1000000 timers
    dispatch.million.n=1000000 timers
    timerloop.million.init_ns_per_timer=339.4 ns
    timerloop-handler.million.init_ns_per_timer=380.0 ns
    foundation.million.init_ns_per_timer=2388.7 ns
    dispatch.million.init_ns_per_timer=2603.4 ns
    timerloop.million.run_cpu_ns_per_timer=153.0 ns
    timerloop-handler.million.run_cpu_ns_per_timer=118.0 ns
    foundation.million.run_cpu_ns_per_timer=21042.1 ns
    dispatch.million.run_cpu_ns_per_timer=742.4 ns
    timerloop.million.run_overhead_adj_ns_per_timer=0.1 ns
    timerloop-handler.million.run_overhead_adj_ns_per_timer=0.1 ns
    foundation.million.run_overhead_adj_ns_per_timer=35290.1 ns
    dispatch.million.run_overhead_adj_ns_per_timer=-5.2 ns
    timerloop.million.total_s=1.0001 s
    timerloop-handler.million.total_s=1.0001 s
    foundation.million.total_s=38.6788 s
    dispatch.million.total_s=3.5982 s
    timerloop.million.allocs_per_timer=1.00 allocs
    timerloop-handler.million.allocs_per_timer=0.00 allocs
    timerloop.million.fired=1000000 timers
    timerloop-handler.million.fired=1000000 timers
    foundation.million.fired=1000000 timers
    dispatch.million.fired=1000000 timers
    timerloop.million.order_violations=0 count
    timerloop-handler.million.order_violations=0 count
    foundation.million.order_violations=136 count
    dispatch.million.order_violations=0 count
    timerloop.million.duplicates=0 count
    timerloop-handler.million.duplicates=0 count
    foundation.million.duplicates=0 count
    dispatch.million.duplicates=0 count
    timerloop.churn.c=100000 timers
    timerloop-handler.churn.c=100000 timers
    foundation.churn.c=100000 timers
    dispatch.churn.c=100000 timers
    timerloop.churn.r=2000000 resets
    timerloop-handler.churn.r=2000000 resets
    foundation.churn.r=20000 resets
    dispatch.churn.r=2000000 resets
    timerloop.churn.arm_ns=70.4 ns
    timerloop-handler.churn.arm_ns=110.5 ns
    foundation.churn.arm_ns=654.3 ns
    dispatch.churn.arm_ns=2344.2 ns
    timerloop.churn.reset_ns=53.7 ns
    timerloop-handler.churn.reset_ns=36.2 ns
    foundation.churn.reset_ns=112220.7 ns
    dispatch.churn.reset_ns=1831.8 ns
    timerloop.churn.cancel_ns=21.4 ns
    timerloop-handler.churn.cancel_ns=11.0 ns
    foundation.churn.cancel_ns=35607.4 ns
    dispatch.churn.cancel_ns=1041.3 ns
    timerloop.churn.allocs_per_timer=0.00 allocs
    timerloop-handler.churn.allocs_per_timer=0.00 allocs
    timerloop.churn.allocs_per_reset=0.00 allocs
    timerloop-handler.churn.allocs_per_reset=0.00 allocs
    timerloop.churn.allocs_per_cancel=0.00 allocs
    timerloop-handler.churn.allocs_per_cancel=0.00 allocs
    timerloop.churn.fired=0 count
    timerloop-handler.churn.fired=0 count
    foundation.churn.fired=0 count
    dispatch.churn.fired=0 count
    timerloop.jitter.k=10000 timers
    foundation.jitter.k=10000 timers
    dispatch.jitter.k=10000 timers
    timerloop.jitter.firings=2998923 count
    foundation.jitter.firings=73795 count
    dispatch.jitter.firings=2246483 count
    timerloop.jitter.expected_firings=3000000 count
    foundation.jitter.expected_firings=3000000 count
    dispatch.jitter.expected_firings=3000000 count
    timerloop.jitter.min_us=0.1 us
    foundation.jitter.min_us=270.1 us
    dispatch.jitter.min_us=6.6 us
    timerloop.jitter.mean_us=678.0 us
    foundation.jitter.mean_us=379219.9 us
    dispatch.jitter.mean_us=9444.4 us
    timerloop.jitter.p50_us=90.8 us
    foundation.jitter.p50_us=359376.8 us
    dispatch.jitter.p50_us=8340.5 us
    timerloop.jitter.p99_us=6950.8 us
    foundation.jitter.p99_us=533121.3 us
    dispatch.jitter.p99_us=28481.0 us
    timerloop.jitter.p999_us=9041.0 us
    foundation.jitter.p999_us=540042.9 us
    dispatch.jitter.p999_us=39035.1 us
    timerloop.jitter.max_us=11139.8 us
    foundation.jitter.max_us=541739.7 us
    dispatch.jitter.max_us=40471.5 us
    timerloop.jitter.cpu_s=0.497 s
    foundation.jitter.cpu_s=1.561 s
    dispatch.jitter.cpu_s=1.659 s
    timerloop.memory.n=1000000 timers
    timerloop-handler.memory.n=1000000 timers
    foundation.memory.n=1000000 timers
    dispatch.memory.n=1000000 timers
    timerloop.memory.bytes_per_timer=104.0 bytes
    timerloop-handler.memory.bytes_per_timer=64.1 bytes
    foundation.memory.bytes_per_timer=384.5 bytes
    dispatch.memory.bytes_per_timer=520.1 bytes
    timerloop.sleep.t=10000 tasks
    continuous.sleep.t=10000 tasks
    timerloop.sleep.wakeups=50000 count
    continuous.sleep.wakeups=50000 count
    timerloop.sleep.bytes_per_task=1735.5 bytes
    continuous.sleep.bytes_per_task=2329.4 bytes
    timerloop.sleep.cpu_us_per_wakeup=10.96 us
    continuous.sleep.cpu_us_per_wakeup=23.05 us
    timerloop.sleep.min_us=2.2 us
    continuous.sleep.min_us=18.8 us
    timerloop.sleep.p50_us=99.2 us
    continuous.sleep.p50_us=113.5 us
    timerloop.sleep.p99_us=8876.0 us
    continuous.sleep.p99_us=7804.4 us
    timerloop.sleep.max_us=22416.3 us
    continuous.sleep.max_us=11658.5 us
    timerloop.sleep.early=0 count
    continuous.sleep.early=0 count
    timerloop.sleep.total_s=4.737 s
    continuous.sleep.total_s=4.747 s
    timerloop.million.ok=1 bool
    timerloop-handler.million.ok=1 bool
    foundation.million.ok=0 bool
    dispatch.million.ok=1 bool
    timerloop.jitter.kept_up=1 bool
    foundation.jitter.kept_up=0 bool
    dispatch.jitter.kept_up=0 bool
    timerloop.sleep.ok=1 bool
    continuous.sleep.ok=1 bool
    """
}
