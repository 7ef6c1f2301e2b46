import CAllocationCounter
import Foundation
import Glibc
import Synchronization

/// Prints metric lines in the C peers' format, `<impl>.<workload>.<metric>=<value> <unit>`,
/// so that this program's output and `c/bench_*.c`'s can be compared line by line.
struct MetricSink {
  private let prefix: String
  private let suffix: String

  init(implementation: Implementation, workload: Workload) {
    prefix = "\(implementation.rawValue).\(workload.rawValue)."
    suffix = ""
  }

  /// A sink for the metrics of `workload` run as one step of `parent`: metric `m` is printed
  /// as `<impl>.<parent>.<workload>_<m>_<tag>`, e.g. `timerloop.scaling.churn_reset_ns_c10000`.
  init(implementation: Implementation, workload: Workload, within parent: Workload, tag: String) {
    prefix = "\(implementation.rawValue).\(parent.rawValue).\(workload.rawValue)_"
    suffix = "_\(tag)"
  }

  /// An integer metric (`emit_i` in `common.h`).
  func emit(_ name: String, _ value: Int, _ unit: String) {
    write(name, String(value), unit)
  }

  /// A fractional metric printed with `digits` decimals (`emit_f` in `common.h`).
  func emit(_ name: String, _ value: Double, digits: Int, _ unit: String) {
    write(name, String(format: "%.\(digits)f", value), unit)
  }

  private func write(_ name: String, _ value: String, _ unit: String) {
    print("\(prefix)\(name)\(suffix)=\(value) \(unit)")
    // Flushed line by line, so that a parent reading through a pipe gets every line printed
    // before a crash.
    fflush(nil)
  }
}

/// Process-wide resource readings, taken the way `common.h` takes them.
enum ProcessStats {
  /// User plus system CPU time of the whole process, every thread included, in seconds
  /// (`getrusage(RUSAGE_SELF)`).
  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  /// Voluntary context switches of the whole process so far, every thread included
  /// (`getrusage(RUSAGE_SELF)`'s `ru_nvcsw`): each time a thread blocked, in `epoll_wait` or
  /// on a lock, and gave up its core.
  static func voluntaryContextSwitches() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_nvcsw
  }

  /// Resident set size in bytes: the second field of `/proc/self/statm` times the page size,
  /// or -1 if it cannot be read (as `rss_bytes` reports it).
  static func residentBytes() -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    // A stack buffer and no Foundation: the reading must not add to the heap it measures.
    let pages = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int? in
      let count = read(fd, buffer.baseAddress, buffer.count)
      guard count > 0 else { return nil }
      // The second space-separated field, parsed by hand: `split` and `Int(String)` allocate.
      var field = 0
      var resident = 0
      for byte in buffer[..<count] {
        if byte == UInt8(ascii: " ") {
          field += 1
          if field == 2 { return resident }
        } else if field == 1 {
          resident = resident * 10 + Int(byte &- UInt8(ascii: "0"))
        }
      }
      return nil
    }
    guard let pages else { return -1 }
    return pages * sysconf(Int32(_SC_PAGESIZE))
  }
}

/// Counts heap allocations of the whole process between ``start()`` and ``stop()``:
/// every `malloc`, `calloc`, `realloc` and aligned allocation, whoever makes it (Swift
/// objects, closure contexts, array storage, `UnsafeMutablePointer.allocate`). The
/// counting lives in the `CAllocationCounter` C target, which interposes the allocator
/// for this executable; outside a counted section it costs one relaxed atomic load per
/// allocation, inside one an atomic increment.
enum AllocationCounter {
  /// Starts counting from zero. Always `true`: kept so callers can report "not counted".
  static func start() -> Bool {
    CAllocationCounter_start()
    return true
  }

  /// Allocations since ``start()``.
  static var count: Int { Int(CAllocationCounter_count()) }

  /// Stops counting.
  /// - Returns: the allocations since ``start()``.
  static func stop() -> Int { Int(CAllocationCounter_stop()) }
}

/// Summary of a set of lateness samples, in nanoseconds: the figures `lat_report` in
/// `common.h` prints, with its nearest-rank percentiles.
struct LatencySummary {
  var min: Double
  var mean: Double
  var p50: Double
  var p99: Double
  var p999: Double
  var max: Double

  /// Summarises `samples` (nanoseconds), sorting them in place; `nil` when there are none.
  init?(sorting samples: UnsafeMutableBufferPointer<Int64>) {
    guard !samples.isEmpty else { return nil }
    var samples = samples
    samples.sort()
    // A Double sum, as the C peers use: Int64 could overflow on long runs of large lateness.
    let sum = samples.reduce(0.0) { $0 + Double($1) }
    min = Double(samples[0])
    mean = sum / Double(samples.count)
    p50 = Double(Self.nearestRank(samples, perMille: 500))
    p99 = Double(Self.nearestRank(samples, perMille: 990))
    p999 = Double(Self.nearestRank(samples, perMille: 999))
    max = Double(samples[samples.count - 1])
  }

  /// The nearest-rank percentile `perMille`/1000 of `sorted` (`rank_pm` in `common.h`).
  static func nearestRank(_ sorted: UnsafeMutableBufferPointer<Int64>, perMille: Int) -> Int64 {
    let rank = Swift.max((sorted.count * perMille + 999) / 1000, 1)
    return sorted[rank - 1]
  }

  /// Emits `min_us` ... `max_us`: microseconds with one decimal, as the peers print them.
  func emit(to sink: MetricSink) {
    for (name, nanoseconds) in [
      ("min_us", min), ("mean_us", mean), ("p50_us", p50), ("p99_us", p99), ("p999_us", p999),
      ("max_us", max),
    ] {
      sink.emit(name, nanoseconds / 1e3, digits: 1, "us")
    }
  }
}

/// Writes `message` to standard error: progress and diagnostics, kept out of the metric lines.
func printError(_ message: String) {
  // Metric lines wait in stdout's buffer when it is a file; flushed first, a
  // progress line written to a shared log never lands inside one.
  fflush(nil)  // every output stream; `stdout` itself is a global Swift 6 rejects
  FileHandle.standardError.write(Data((message + "\n").utf8))
}
