internal import CClock

/// A point in time on `CLOCK_MONOTONIC`, in nanoseconds since an unspecified
/// start (the machine's boot on Linux).
///
/// The monotonic clock never jumps when the wall clock is set, so a timer's
/// deadline is not moved by NTP or by a user changing the date. `Deadline`
/// arithmetic saturates: adding an amount that would pass `Int64.max` gives
/// ``distantFuture``, which the loop treats as "never" and never arms the
/// kernel timer for; subtracting below zero gives ``distantPast``. Amounts
/// of time are Swift `Duration`s, rounded up to whole nanoseconds (see
/// ``+(_:_:)-(Deadline,_)``).
///
/// Follows SwiftNIO's `NIODeadline` (monotonic nanoseconds, saturating `+`).
public struct Deadline: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Nanoseconds since the monotonic clock's start.
  public let uptimeNanoseconds: Int64

  /// Creates the deadline `uptimeNanoseconds` after the monotonic clock's start.
  @inlinable
  public init(uptimeNanoseconds: Int64) {
    self.uptimeNanoseconds = uptimeNanoseconds
  }

  /// The current `CLOCK_MONOTONIC` time. Costs one vDSO call (about 30 ns).
  public static func now() -> Deadline {
    Deadline(uptimeNanoseconds: CClock_clock_gettime_ns(CLOCK_MONOTONIC))
  }

  /// A deadline that is never reached: timers due then never fire and cost no CPU.
  @inlinable public static var distantFuture: Deadline { Deadline(uptimeNanoseconds: .max) }
  /// The monotonic clock's start: always in the past.
  @inlinable public static var distantPast: Deadline { Deadline(uptimeNanoseconds: 0) }

  /// Whether `lhs` comes first on the monotonic clock.
  @inlinable
  public static func < (lhs: Deadline, rhs: Deadline) -> Bool {
    lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
  }

  /// `lhs` moved by `rhs` nanoseconds, clamped to ``distantPast`` ...
  /// ``distantFuture``: the engine's form of ``+(_:_:)-(Deadline,_)``.
  /// Disfavoured, so that `deadline + .milliseconds(5)` means a `Duration`.
  @inlinable @_disfavoredOverload
  package static func + (lhs: Deadline, rhs: TimeAmount) -> Deadline {
    // Written out rather than through `Int64.addingSaturated` and a clamp:
    // the firing path runs these, and one overflow check is less work than a
    // saturating add followed by a clamp.
    let (sum, overflow) = lhs.uptimeNanoseconds.addingReportingOverflow(rhs.nanoseconds)
    if overflow { return rhs.nanoseconds < 0 ? .distantPast : .distantFuture }
    return sum < 0 ? .distantPast : Deadline(uptimeNanoseconds: sum)
  }

  /// `lhs` moved back by `rhs` nanoseconds, clamped like ``+(_:_:)-(Deadline,TimeAmount)``
  /// (moving back by ``TimeAmount/min`` gives ``distantFuture``).
  @_disfavoredOverload
  package static func - (lhs: Deadline, rhs: TimeAmount) -> Deadline {
    lhs + -rhs
  }

  /// The signed time from `start` to `self` in nanoseconds, saturating at
  /// ``TimeAmount/max`` / ``TimeAmount/min``: the engine's form of
  /// ``-(_:_:)-(Deadline,Deadline)``.
  package func timeAmount(since start: Deadline) -> TimeAmount {
    let (difference, overflow) = uptimeNanoseconds.subtractingReportingOverflow(
      start.uptimeNanoseconds)
    if overflow { return self > start ? .max : .min }
    return TimeAmount(nanoseconds: difference)
  }

  /// The deadline in monotonic nanoseconds, for logs.
  public var description: String {
    self == .distantFuture ? "Deadline.distantFuture" : "Deadline(\(uptimeNanoseconds) ns)"
  }
}
