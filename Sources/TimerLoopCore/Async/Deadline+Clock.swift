/// `Deadline` is the instant of ``EventLoopClock``: the loop's monotonic time,
/// so generic `Clock` code and the loop's own timers use the same values.
extension Deadline: InstantProtocol {
  /// The deadline `duration` later (earlier if negative): `self + duration`,
  /// rounded up to whole nanoseconds and saturating at ``distantPast`` ...
  /// ``distantFuture`` (see ``+(_:_:)-(Deadline,_)``).
  public func advanced(by duration: Duration) -> Deadline {
    self + duration
  }

  /// The signed time from `self` to `other`, exact: `other - self`.
  public func duration(to other: Deadline) -> Duration {
    other - self
  }
}

extension Deadline {
  /// The same instant as `instant`. On Linux both are `CLOCK_MONOTONIC` time
  /// (the Swift runtime reads `SuspendingClock` from it), so the conversion is
  /// exact for the whole-nanosecond instants the clock reports; finer parts of
  /// an instant moved by sub-nanosecond durations are rounded up, so a
  /// converted deadline is never earlier. Saturates at ``distantPast`` ...
  /// ``distantFuture``.
  public init(_ instant: SuspendingClock.Instant) {
    self = Deadline.distantPast.advanced(by: SuspendingClock().systemEpoch.duration(to: instant))
  }

  /// The same instant on `SuspendingClock` (both are `CLOCK_MONOTONIC` time on
  /// Linux); exact. ``Deadline/init(_:)`` converts it back to `self`.
  public var suspendingClockInstant: SuspendingClock.Instant {
    SuspendingClock().systemEpoch.advanced(by: .nanoseconds(uptimeNanoseconds))
  }
}
