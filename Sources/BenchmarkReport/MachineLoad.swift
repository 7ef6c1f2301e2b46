import Foundation

/// The machine's 1-minute load average read during a run (at its start, before each case and at
/// its end), for the report's last lines: what it was, and a warning when it rose above the
/// number of cores, when other processes were waiting for the cores the cases ran on and their
/// times and lateness are not to be trusted.
public struct MachineLoad: Sendable {
  /// The processors the system has online (what `nproc` prints).
  public var cores: Int
  /// The readings in the order they were taken: the first at the start, the last at the end.
  public private(set) var readings: [Double] = []

  /// No readings yet, on a machine of `cores` cores (1 if given less).
  public init(cores: Int) {
    self.cores = max(cores, 1)
  }

  /// The 1-minute load average in the text of `/proc/loadavg` (its first field, as in
  /// `0.52 0.58 0.59 1/467 12345`); `nil` when the text does not start with a number of 0 or
  /// more.
  public static func oneMinute(procLoadavg text: String) -> Double? {
    guard let field = text.split(whereSeparator: \.isWhitespace).first,
      let value = Double(field), value.isFinite, value >= 0
    else { return nil }
    return value
  }

  /// Adds a reading: the text of `/proc/loadavg`, or `nil` when it could not be read. A
  /// reading that does not parse is left out, so the report says only what was measured.
  public mutating func record(procLoadavg text: String?) {
    if let value = text.flatMap(Self.oneMinute(procLoadavg:)) { readings.append(value) }
  }

  /// The highest reading.
  var peak: Double? { readings.max() }

  /// Whether the load rose above the number of cores at any reading, or nothing was read.
  public var isBusy: Bool { (peak ?? .infinity) > Double(cores) }

  /// For example `Load average (1 min): 0.41 at the start, 1.37 at the end, 1.52 at most, on
  /// 2 cores: quiet.`, or the same ending in `: BUSY.` followed by a warning line.
  var lines: [String] {
    guard let first = readings.first, let last = readings.last, let peak else {
      return [
        "Load average: not read (/proc/loadavg could not be read).",
        "WARNING: nothing says whether other processes competed with the run; treat its times"
          + " and lateness as noisy.",
      ]
    }
    let figures =
      "Load average (1 min): \(Self.format(first)) at the start, \(Self.format(last)) at the"
      + " end, \(Self.format(peak)) at most, on \(cores) core\(cores == 1 ? "" : "s")"
    guard isBusy else { return [figures + ": quiet."] }
    return [
      figures + ": BUSY.",
      "WARNING: the load average rose above the number of cores: other processes were waiting"
        + " for the cores the cases ran on, so times and lateness are noisy and can favour a"
        + " case that ran in a quieter moment. Run again on a quieter machine to trust them.",
    ]
  }

  private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
