import Foundation

/// The table printed after a multi-case run: one row per headline metric, one column per
/// implementation, and the ratios foundation÷timerloop and dispatch÷timerloop for costs
/// (where lower is better and both values are positive), so a ratio above 1 means
/// TimerLoop is cheaper or more precise by that factor.
struct ComparisonTable {
  /// A headline metric, and whether a ratio against TimerLoop means anything for it: it
  /// does for costs, not for sizes, counts, flags, or values that may be zero or negative.
  struct Row {
    var workload: Workload
    var metric: String
    var hasRatio: Bool

    init(_ workload: Workload, _ metric: String, ratio: Bool = false) {
      self.workload = workload
      self.metric = metric
      self.hasRatio = ratio
    }
  }

  /// The rows, in print order; the full set of metrics, `scaling`'s included, is in the lines
  /// above the table.
  static let rows: [Row] = [
    Row(.million, "n"),
    Row(.million, "init_ns_per_timer", ratio: true),
    Row(.million, "run_cpu_ns_per_timer", ratio: true),
    Row(.million, "run_overhead_adj_ns_per_timer"),
    Row(.million, "total_s", ratio: true),
    Row(.million, "allocs_per_timer"),
    Row(.million, "fired"),
    Row(.million, "order_violations"),
    Row(.million, "duplicates"),
    Row(.million, "ok"),
    Row(.churn, "c"),
    Row(.churn, "r"),
    Row(.churn, "arm_ns", ratio: true),
    Row(.churn, "reset_ns", ratio: true),
    Row(.churn, "cancel_ns", ratio: true),
    Row(.churn, "allocs_per_timer"),
    Row(.churn, "allocs_per_reset"),
    Row(.churn, "allocs_per_cancel"),
    Row(.churn, "fired"),
    Row(.jitter, "k"),
    Row(.jitter, "firings"),
    Row(.jitter, "expected_firings"),
    Row(.jitter, "min_us"),
    Row(.jitter, "mean_us", ratio: true),
    Row(.jitter, "p50_us", ratio: true),
    Row(.jitter, "p99_us", ratio: true),
    Row(.jitter, "p999_us", ratio: true),
    Row(.jitter, "max_us", ratio: true),
    Row(.jitter, "cpu_s", ratio: true),
    Row(.memory, "n"),
    Row(.memory, "bytes_per_timer", ratio: true),
  ]

  private let implementations: [Implementation]
  private let workloads: [Workload]
  /// Values by `<impl>.<workload>.<metric>`.
  private var values: [String: MetricLine] = [:]

  init(workloads: [Workload], implementations: [Implementation]) {
    self.workloads = workloads
    self.implementations = implementations
  }

  /// Takes in one line of a case's output; ignores anything that is not a metric line.
  mutating func add(_ line: Substring) {
    guard let metric = MetricLine(parsing: line) else { return }
    values[metric.key] = metric
  }

  /// The table as aligned text, one line per row, after a header.
  func render() -> String {
    let compared = [Implementation.foundation, .dispatch].filter {
      implementations.contains(.timerloop) && implementations.contains($0)
    }
    var lines: [[String]] = [
      ["metric", "unit"] + implementations.map(\.rawValue)
        + compared.map { "\($0.rawValue)÷timerloop" }
    ]
    for row in Self.rows where workloads.contains(row.workload) {
      let cells = implementations.map { value(row, $0) }
      guard let unit = cells.lazy.compactMap({ $0?.unit }).first else { continue }
      let ratios = compared.map { implementation -> String in
        guard row.hasRatio, let base = value(row, .timerloop)?.number,
          let other = value(row, implementation)?.number, base > 0, other > 0
        else { return "" }
        return Self.formatRatio(other / base)
      }
      lines.append(
        ["\(row.workload.rawValue).\(row.metric)", unit] + cells.map { $0?.value ?? "-" } + ratios)
    }
    let widths = lines[0].indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
    return lines.map { cells in
      cells.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        // Names to the left, numbers to the right.
        return column < 2 ? cell + padding : padding + cell
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }

  /// The metric of `row` as `implementation` reported it, if it did.
  private func value(_ row: Row, _ implementation: Implementation) -> MetricLine? {
    values["\(implementation.rawValue).\(row.workload.rawValue).\(row.metric)"]
  }

  /// A ratio with three significant digits or so: `0.67x`, `48.6x`, `333x`.
  private static func formatRatio(_ ratio: Double) -> String {
    let digits = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2
    return String(format: "%.\(digits)fx", ratio)
  }
}

/// One metric line, `<impl>.<workload>.<metric>=<value> <unit>`, split into its parts.
struct MetricLine {
  /// `<impl>.<workload>.<metric>`.
  var key: String
  /// The value as printed, so the table shows the precision the metric line had.
  var value: String
  var unit: String
  /// The value as a number, `nil` for text.
  var number: Double?

  /// Splits `line`; `nil` if it is not a metric line.
  init?(parsing line: Substring) {
    guard let equals = line.firstIndex(of: "="), let space = line[equals...].firstIndex(of: " ")
    else { return nil }
    key = String(line[..<equals])
    value = String(line[line.index(after: equals)..<space])
    unit = String(line[line.index(after: space)...])
    number = Double(value)
  }
}
