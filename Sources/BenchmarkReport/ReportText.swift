/// The whole report `timerloop-bench` prints after its run, every line at most
/// ``TextLayout/width`` columns: a legend (each implementation in words, the ``TimesBest``
/// ratio and the `!` mark), the ``ComparisonTable``, the ``Verdict``s, and the machine's load
/// with a warning when the run was too noisy to trust.
public enum ReportText {
  /// The report of `results`; `load` is the load average read during the run.
  public static func render(_ results: BenchmarkResults, load: MachineLoad) -> String {
    let ran = results.summaries.filter { summary in
      results.workloads.contains { results.outcome(of: $0.name, on: summary.name) != .notRun }
    }
    let nameWidth = ran.map(\.name.count).max() ?? 0
    let legend =
      ["Implementations:"]
      + ran.flatMap { summary in
        TextLayout.wrap(
          summary.about, first: "  " + TextLayout.left(summary.name, nameWidth) + "  ",
          rest: String(repeating: " ", count: 4 + nameWidth))
      }
      + TextLayout.wrap(TimesBest.explanation, rest: "  ")
      + TextLayout.wrap(
        "!: the figure of a case that failed a check (its checks row says which) or did not"
          + " finish: shown, not ranked.", rest: "  ")
    let verdicts =
      ["Verdicts, by each workload's headline metric (lower is better; ×best as in the table):"]
      + Verdict.all(results).flatMap { TextLayout.wrap($0.text, first: "  ", rest: "    ") }
    let machine = load.lines.flatMap { TextLayout.wrap($0, rest: "  ") }
    return [
      legend.joined(separator: "\n"), ComparisonTable.render(results),
      verdicts.joined(separator: "\n"), machine.joined(separator: "\n"),
    ].joined(separator: "\n\n")
  }
}
