import CAllocationCounter
import Glibc

/// Nanoseconds on `clock` now.
func nanoseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> Int64 {
  var time = timespec()
  clock_gettime(clock, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// What `body` cost: wall-clock nanoseconds, and heap allocations made by
/// the whole process meanwhile (CAllocationCounter interposes malloc).
func measure(_ body: () throws -> Void) rethrows -> (ns: Int64, allocations: Int) {
  CAllocationCounter_start()
  let start = nanoseconds()
  try body()
  let ns = nanoseconds() - start
  return (ns, Int(CAllocationCounter_stop()))
}

/// A fast deterministic generator (xorshift64*), so both implementations
/// re-arm the same timers in the same order and the draw costs ~1 ns.
struct Random {
  private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

  mutating func next(below bound: Int) -> Int {
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    return Int((state &* 0x2545_F491_4F6C_DD1D) % UInt64(bound))
  }
}

/// Prints one result line, `implementation.workload.metric=value`.
func emit(_ implementation: String, _ workload: String, _ metric: String, _ value: Double) {
  let text = value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : "\((value * 100).rounded() / 100)"
  print("\(implementation).\(workload).\(metric)=\(text)")
}
