/// A view of an event loop for code that already runs on the loop's thread,
/// whose methods take closures that are not `@Sendable`: SwiftNIO's
/// `NIOIsolatedEventLoop`. Get one with ``TimerEventLoop/assumeIsolated()``.
///
/// State that lives on the loop's thread (a connection, a parser, a cache)
/// is captured by its timers as it is, with no `Sendable` conformance, no
/// lock and no `@unchecked`:
///
/// ```swift
/// final class Connection {            // not Sendable
///   var idleTimer: TimerHandle?
///   func start(on loop: EpollEventLoop) throws {   // on the loop's thread
///     idleTimer = try loop.assumeIsolated().schedule(after: .seconds(5)) { [self] in close() }
///   }
///   func close() { idleTimer?.cancel() }
/// }
/// ```
///
/// The view is not `Sendable`, and every method checks that it is called on
/// the loop's thread (a precondition, with a message naming the problem): a
/// closure given to it is stored, called and released on that thread only,
/// one at a time, like every callback of the loop. The timing rules are
/// those of the same methods of ``TimerEventLoop``; the returned
/// ``TimerHandle`` is `Sendable` and works from any thread.
public struct IsolatedEventLoop {
  /// The loop this is a view of, for calls from any thread.
  public let loop: any TimerEventLoop

  init(uncheckedLoop loop: any TimerEventLoop) {
    self.loop = loop
  }

  /// Stops the program unless the caller runs on the loop's thread.
  private func checkIsolated() {
    if let violation = IsolationCheck.violation(of: loop) { preconditionFailure(violation) }
  }

  /// Runs `task` on the loop's thread in its next pass, after the work queued
  /// before it (see ``TimerEventLoop/execute(_:)``).
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `task` is released.
  public func execute(_ task: @escaping () -> Void) throws(TimerLoopError) {
    checkIsolated()
    try loop.scheduler.execute(assumeSendable(task))
  }

  /// Runs `body` once on the loop's thread at `deadline` (monotonic clock)
  /// or later; see ``TimerEventLoop/schedule(at:_:)-(Deadline,_)``.
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `body` is released.
  @discardableResult
  public func schedule(
    at deadline: Deadline, _ body: @escaping () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    checkIsolated()
    return try loop.scheduler.schedule(
      at: deadline, interval: nil, policy: .fixedRate, body: .once(assumeSendable(body)))
  }

  /// Runs `body` once on the loop's thread `delay` from now or later (a
  /// negative delay counts as zero); see ``TimerEventLoop/schedule(after:_:)-(TimeAmount,_)``.
  @discardableResult
  public func schedule(
    after delay: TimeAmount, _ body: @escaping () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try schedule(at: loop.now + max(delay, .zero), body)
  }

  /// `Duration` form of ``schedule(after:_:)-(TimeAmount,_)``, converted by
  /// ``TimeAmount/init(_:)`` (rounded up, saturating).
  @_disfavoredOverload @discardableResult
  public func schedule(
    after delay: Duration, _ body: @escaping () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try schedule(after: TimeAmount(delay), body)
  }

  /// Runs `body` on the loop's thread at `first` and then every `interval`
  /// until cancelled; see ``TimerEventLoop/scheduleRepeating(firstAt:every:policy:_:)-(Deadline,TimeAmount,_,_)``.
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `body` is released.
  @discardableResult
  public func scheduleRepeating(
    firstAt first: Deadline, every interval: TimeAmount, policy: RepeatPolicy = .fixedRate,
    _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    checkIsolated()
    return try loop.scheduler.schedule(
      at: first, interval: interval, policy: policy, body: .repeating(assumeSendable(body)))
  }

  /// Runs `body` on the loop's thread `initialDelay` from now (negative
  /// counts as zero) and then every `interval`; see
  /// ``scheduleRepeating(firstAt:every:policy:_:)-(Deadline,TimeAmount,_,_)``.
  @discardableResult
  public func scheduleRepeating(
    after initialDelay: TimeAmount, every interval: TimeAmount,
    policy: RepeatPolicy = .fixedRate, _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(
      firstAt: loop.now + max(initialDelay, .zero), every: interval, policy: policy, body)
  }

  /// `Duration` form of ``scheduleRepeating(after:every:policy:_:)-(TimeAmount,_,_,_)``;
  /// both durations converted by ``TimeAmount/init(_:)``.
  @_disfavoredOverload @discardableResult
  public func scheduleRepeating(
    after initialDelay: Duration, every interval: Duration,
    policy: RepeatPolicy = .fixedRate, _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(
      after: TimeAmount(initialDelay), every: TimeAmount(interval), policy: policy, body)
  }
}

// Not Sendable: the view, and the closures it takes, belong to the loop's thread.
@available(*, unavailable)
extension IsolatedEventLoop: Sendable {}

extension TimerEventLoop {
  /// A view of this loop whose methods take closures that are not
  /// `@Sendable`, for code that runs on the loop's thread: in one of its
  /// callbacks, or in a task or actor on it. As SwiftNIO's
  /// `TimerEventLoop.assumeIsolated()`.
  ///
  /// Stops the program, with a message saying so, when called from another
  /// thread (on a ``VirtualEventLoop``: from a thread other than the one that
  /// created it or last advanced its time). O(1).
  public func assumeIsolated() -> IsolatedEventLoop {
    if let violation = IsolationCheck.violation(of: self) { preconditionFailure(violation) }
    return IsolatedEventLoop(uncheckedLoop: self)
  }
}
