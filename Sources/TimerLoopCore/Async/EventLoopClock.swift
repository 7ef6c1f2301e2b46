/// A `Clock` whose time is an event loop's: ``TimerEventLoop/now`` on the loop's
/// monotonic clock, or a ``VirtualEventLoop``'s virtual clock. Its sleeps are
/// timers on that loop (``TimerEventLoop/sleep(until:)-(Deadline)``), so code written against
/// `any Clock<Duration>` or a generic `Clock` (a debounce, a retry with
/// backoff) runs on the loop's timers in production and on virtual time in
/// tests, with no change: both loops give the same type.
///
/// ```swift
/// func retry<C: Clock<Duration>>(on clock: C, _ attempt: () async throws -> Void) async throws {
///   for backoff in [Duration.milliseconds(100), .milliseconds(200), .milliseconds(400)] {
///     do { return try await attempt() } catch { try await clock.sleep(for: backoff) }
///   }
///   try await attempt()
/// }
/// try await retry(on: loop.clock) { try await connect() }
/// ```
///
/// Plays the role of pointfree's `TestClock` and SwiftNIO's
/// `NIOAsyncTestingEventLoop` for tests, sharing the real loop's timer code.
public struct EventLoopClock: Clock {
  /// Durations are Swift's `Duration`.
  public typealias Duration = Swift.Duration
  /// Instants are ``Deadline``s: monotonic nanoseconds, as the loop's timers use.
  public typealias Instant = Deadline

  /// The loop whose time this clock tells and whose timers it sleeps on.
  public let loop: any TimerEventLoop

  /// A clock on `loop`; the same as ``TimerEventLoop/clock``.
  public init(loop: any TimerEventLoop) {
    self.loop = loop
  }

  /// The loop's current time, ``TimerEventLoop/now``.
  public var now: Deadline { loop.now }

  /// One nanosecond: the unit of ``Deadline``. A real loop fires timers up
  /// to its ``EpollEventLoop/leeway`` late, plus the kernel's wake-up latency.
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends the calling task until `deadline` or later, on a timer of the
  /// loop (``TimerEventLoop/sleep(until:)-(Deadline)``: no thread blocked, never early).
  ///
  /// - Parameters:
  ///   - deadline: when to resume, on the loop's clock.
  ///   - tolerance: how much later than `deadline` the sleep may end, so that
  ///     sleeps due close together share one wake-up: the timer's deadline is
  ///     rounded up to a multiple of the largest power of two nanoseconds not
  ///     above `tolerance` (10 ms: a 8.39 ms grid). It only ever delays, by
  ///     less than `tolerance`; `nil` or under 2 ns leaves the deadline as it
  ///     is. The loop's own leeway comes on top, as for every timer.
  /// - Throws: `CancellationError` if the task is cancelled (the timer is
  ///   cancelled at once), ``TimerLoopError/shutdown`` if the loop shuts down.
  public func sleep(until deadline: Deadline, tolerance: Duration? = nil) async throws {
    let leeway = tolerance.map { TimeAmount($0) } ?? .zero
    try await loop.sleep(until: deadline.delayed(within: leeway))
  }
}

extension TimerEventLoop {
  /// This loop's time as a `Clock` (``EventLoopClock``): instants are
  /// ``Deadline``s, durations `Duration`s, sleeps are this loop's timers.
  public var clock: EventLoopClock { EventLoopClock(loop: self) }
}
