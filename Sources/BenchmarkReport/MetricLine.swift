/// One metric line, `<impl>.<workload>.<metric>=<value> <unit>`, as `timerloop-bench --raw`
/// and the C peers of `Benchmarks/peers/` print it.
public struct MetricLine: Equatable, Sendable {
  /// The implementation, the part before the first dot (`timerloop`, `libevent-ct`).
  public var implementation: String
  /// The workload, between the first and the second dot.
  public var workload: String
  /// The metric's name, after the second dot (`p99_us`, `churn_reset_ns_c10000`).
  public var metric: String
  /// The value as printed, so a table shows the precision the line had.
  public var value: String
  /// The unit as printed: `ns`, `us`, `s`, `bytes`, `count`, `bool`, ...
  public var unit: String

  /// The value as a number; `nil` when it is not one.
  public var number: Double? { Double(value) }

  /// Splits `line`; `nil` if it is not a metric line (a blank line, a table, a message).
  public init?(parsing line: some StringProtocol) {
    let line = Substring(line)
    guard let equals = line.firstIndex(of: "="),
      let space = line[equals...].firstIndex(of: " ")
    else { return nil }
    let name = line[..<equals].split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
    guard name.count == 3, !name.contains(where: \.isEmpty) else { return nil }
    implementation = String(name[0])
    workload = String(name[1])
    metric = String(name[2])
    value = String(line[line.index(after: equals)..<space])
    unit = String(line[line.index(after: space)...])
  }

  /// Whether the metric is a check: a `bool` whose 1 means the run passed it (`ok`, `kept_up`).
  public var isCheck: Bool { unit == "bool" }

  /// Whether lower is better and ratios mean something: a time (`ns`, `us`, `ms`, `s`) or a
  /// size (`bytes`).
  public var isCost: Bool { ["ns", "us", "ms", "s", "bytes"].contains(unit) }
}
