/// A `Clock` on an event loop's boot time, the sibling of ``EventLoopClock``
/// for waits that must count time the machine spent suspended: a lease, a
/// token expiry, a "retry in 10 minutes" on a laptop or a paused VM.
///
/// Its time is ``TimerEventLoop/continuousNow``: `CLOCK_BOOTTIME`, the clock Swift's
/// `ContinuousClock` reads on Linux, which keeps counting while the machine is
/// suspended (``EventLoopClock``'s `CLOCK_MONOTONIC` stops), or a
/// ``VirtualEventLoop``'s virtual boot time, which
/// ``VirtualEventLoop/suspend(for:)`` moves without moving its monotonic
/// time. Instants are `ContinuousClock.Instant`s, so on a real loop they
/// compare with `ContinuousClock.now`. Its sleeps are the loop's boot-time
/// timers (``TimerEventLoop/sleep(until:)-(ContinuousClock.Instant)``), so generic
/// `Clock` code runs on them in production and on virtual time in tests.
///
/// ```swift
/// let clock = loop.continuousClock
/// let expiry = clock.now.advanced(by: .seconds(600))
/// try await clock.sleep(until: expiry)  // 10 minutes, time suspended included
/// ```
public struct EventLoopContinuousClock: Clock {
  /// Durations are Swift's `Duration`.
  public typealias Duration = Swift.Duration
  /// Instants are `ContinuousClock`'s: boot time, in nanoseconds.
  public typealias Instant = ContinuousClock.Instant

  /// The loop whose boot time this clock tells and whose timers it sleeps on.
  public let loop: any TimerEventLoop

  /// A clock on `loop`; the same as ``TimerEventLoop/continuousClock``.
  public init(loop: any TimerEventLoop) {
    self.loop = loop
  }

  /// The loop's boot time, ``TimerEventLoop/continuousNow``.
  public var now: ContinuousClock.Instant { loop.continuousNow }

  /// One nanosecond: the unit of boot-time deadlines. A real loop fires them
  /// late by the kernel's wake-up latency.
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends the calling task until `deadline` on the loop's boot time, or
  /// later, on a boot-time timer of the loop
  /// (``TimerEventLoop/sleep(until:)-(ContinuousClock.Instant)``: no thread
  /// blocked, never early, time suspended counted).
  ///
  /// - Parameters:
  ///   - deadline: when to resume, on the loop's boot time.
  ///   - tolerance: how much later than `deadline` the sleep may end, so that
  ///     sleeps due close together share one wake-up, as on
  ///     ``EventLoopClock/sleep(until:tolerance:)``: the instant, in
  ///     nanoseconds after boot, is rounded up to a multiple of the largest
  ///     power of two nanoseconds not above `tolerance` (10 ms: a 8.39 ms
  ///     grid). It only ever delays, by less than `tolerance`; `nil` or under
  ///     2 ns leaves the instant as it is. The loop's own leeway comes on top.
  /// - Throws: `CancellationError` if the task is cancelled (the timer is
  ///   cancelled at once), ``TimerLoopError/shutdown`` if the loop shuts down,
  ///   ``TimerLoopError/unsupportedClock`` at once on a loop that has no
  ///   boot-time timers (TimerLoopNIO's `NIOTimerLoop`).
  public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration? = nil)
    async throws
  {
    let leeway = tolerance.map { TimeAmount($0).nanoseconds } ?? 0
    let instant = deadline.bootNanoseconds.delayed(within: leeway)
    try await loop.sleep(until: ContinuousClock.Instant(bootNanoseconds: instant))
  }
}

extension TimerEventLoop {
  /// This loop's boot time as a `Clock` (``EventLoopContinuousClock``):
  /// instants are `ContinuousClock.Instant`s, sleeps are this loop's
  /// boot-time timers and count time the machine spent suspended.
  public var continuousClock: EventLoopContinuousClock { EventLoopContinuousClock(loop: self) }
}
