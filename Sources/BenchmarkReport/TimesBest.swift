import Foundation

/// The report's one ratio convention, ×best: a figure divided by the best ranked figure of its
/// row, so `1.00×` marks the best and higher is worse. The table and the verdicts both use it.
///
/// A row gets ratios only when its metric is a cost (a time or a size, lower being better),
/// at least two cases passed their checks (a failed case does not measure the same work), and
/// every ranked figure is above 0 (a ratio to 0, or to a negative time such as a corrected
/// overhead, means nothing).
public enum TimesBest {
  /// The convention in words, for the report's header.
  public static let explanation =
    "×best: a figure ÷ the best (lowest) figure of its row among the cases that passed their"
    + " checks; 1.00× is the best, lower is better. Times and sizes only."

  /// Each ranked implementation's figure of `metric` in `workload` ÷ the lowest of them, by
  /// implementation; empty when the row gets no ratios (see ``TimesBest``).
  static func ratios(_ results: BenchmarkResults, _ workload: String, _ metric: String)
    -> [String: Double]
  {
    let figures = results.implementations.compactMap { implementation -> (String, Double)? in
      guard results.outcome(of: workload, on: implementation).isRanked,
        let line = results.line(workload, implementation, metric), line.isCost,
        let number = line.number
      else { return nil }
      return (implementation, number)
    }
    guard figures.count >= 2, let best = figures.map(\.1).min(), best > 0 else { return [:] }
    return Dictionary(uniqueKeysWithValues: figures.map { ($0.0, $0.1 / best) })
  }

  /// A ratio with about three significant digits: `1.00×`, `48.6×`, `333×`, `2090×`.
  static func format(_ ratio: Double) -> String {
    let digits = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2
    return TextLayout.grouped(String(format: "%.\(digits)f", ratio)) + "×"
  }
}
