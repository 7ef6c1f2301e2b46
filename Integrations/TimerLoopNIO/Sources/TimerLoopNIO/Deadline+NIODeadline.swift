import NIOCore
import TimerLoopCore

extension Deadline {
  /// The same instant as `deadline`. Both count nanoseconds on
  /// `CLOCK_MONOTONIC` on Linux (NIO's `NIODeadline.now()` reads
  /// `DispatchTime`'s uptime clock, which is that clock; a test checks it),
  /// and on NIO's test loops both mean the loop's virtual time. O(1), exact.
  public init(_ deadline: NIODeadline) {
    self.init(uptimeNanoseconds: Int64(clamping: deadline.uptimeNanoseconds))
  }
}

extension NIODeadline {
  /// The same instant as `deadline` (see `Deadline.init(_:)`).
  /// `Deadline.distantFuture` becomes `NIODeadline.distantFuture`;
  /// nothing can be earlier than NIO's zero, which `Deadline.distantPast` is. O(1), exact.
  public init(_ deadline: Deadline) {
    self = .uptimeNanoseconds(UInt64(clamping: deadline.uptimeNanoseconds))
  }
}
