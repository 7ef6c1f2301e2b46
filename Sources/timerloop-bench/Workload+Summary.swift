import BenchmarkReport

extension Workload {
  /// What the report shows of the workload: the comparison table's rows (its checks, the
  /// metrics printed as `bool`, get a row of their own), the headline metric its verdict
  /// ranks the implementations by, and the CPU and memory figures `--plot` draws beside its
  /// lateness percentiles. A new workload only adds its case here.
  var summary: WorkloadSummary {
    switch self {
    case .million:
      WorkloadSummary(
        name: rawValue,
        rows: [
          "n", "init_ns_per_timer", "run_cpu_ns_per_timer", "run_overhead_adj_ns_per_timer",
          "total_s", "allocs_per_timer", "fired", "order_violations", "duplicates",
        ],
        headline: "run_cpu_ns_per_timer", plotted: ["run_cpu_ns_per_timer"])
    case .churn:
      WorkloadSummary(
        name: rawValue,
        rows: [
          "c", "r", "arm_ns", "reset_ns", "cancel_ns", "allocs_per_timer", "allocs_per_reset",
          "allocs_per_cancel", "fired",
        ],
        // Nothing else runs while the loop thread resets: its time is the reset's CPU.
        headline: "reset_ns", plotted: ["reset_ns"])
    case .jitter:
      WorkloadSummary(
        name: rawValue,
        rows: [
          "k", "firings", "expected_firings", "min_us", "mean_us", "p50_us", "p99_us", "p999_us",
          "max_us", "cpu_s",
        ],
        headline: "p99_us", plotted: ["cpu_s"])
    case .memory:
      WorkloadSummary(
        name: rawValue, rows: ["n", "bytes_per_timer"], headline: "bytes_per_timer",
        plotted: ["bytes_per_timer"])
    case .scaling:
      // TimerLoop alone: nothing to rank; every size's metrics are the point.
      WorkloadSummary(name: rawValue, rows: nil, headline: nil)
    case .soak:
      WorkloadSummary(
        name: rawValue, rows: ["c", "seconds", "rss_after_warmup", "rss_growth_after_warmup"],
        headline: nil)
    case .cross:
      WorkloadSummary(
        name: rawValue,
        rows: [
          "n", "schedule_ns", "cancel_ns", "pair_ns", "drain_ms", "bytes_per_pending_timer",
          "bytes_left_per_timer", "fired",
        ],
        headline: "pair_ns", plotted: ["bytes_per_pending_timer"])
    case .sleep, .sleepGroup, .sleepNested:
      WorkloadSummary(
        name: rawValue,
        rows: [
          "t", "wakeups", "bytes_per_task", "cpu_us_per_wakeup", "min_us", "p50_us", "p99_us",
          "max_us", "early", "total_s",
        ],
        headline: "cpu_us_per_wakeup", plotted: ["cpu_us_per_wakeup", "bytes_per_task"])
    }
  }
}
