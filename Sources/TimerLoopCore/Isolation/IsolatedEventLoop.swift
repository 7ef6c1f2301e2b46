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
    let id = try loop.scheduler.schedule(at: deadline, once: assumeSendable(body))
    return TimerHandle(scheduler: loop.scheduler, id: id)
  }

  /// Runs `body` once on the loop's thread `delay` from now or later (rounded
  /// up; a negative delay counts as zero); see
  /// ``TimerEventLoop/schedule(after:_:)``.
  @discardableResult
  public func schedule(
    after delay: Duration, _ body: @escaping () -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try schedule(at: loop.now.after(delay), body)
  }

  /// Runs `body` on the loop's thread at `first` and then every `interval`
  /// until cancelled; see ``TimerEventLoop/scheduleRepeating(firstAt:every:missedTicks:_:)-(Deadline,_,_,_)``.
  ///
  /// - Throws: ``TimerLoopError/shutdown`` after shutdown; `body` is released.
  @discardableResult
  public func scheduleRepeating(
    firstAt first: Deadline, every interval: Duration, missedTicks: MissedTickBehavior = .skip,
    _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    checkIsolated()
    return try loop.scheduler.schedule(
      at: first, interval: TimeAmount(interval), missedTicks: missedTicks,
      body: .repeating(assumeSendable(body)))
  }

  /// Runs `body` on the loop's thread `initialDelay` from now (rounded up;
  /// negative counts as zero) and then every `interval`; see
  /// ``scheduleRepeating(firstAt:every:missedTicks:_:)``.
  @discardableResult
  public func scheduleRepeating(
    after initialDelay: Duration, every interval: Duration,
    missedTicks: MissedTickBehavior = .skip, _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(
      firstAt: loop.now.after(initialDelay), every: interval, missedTicks: missedTicks, body)
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
  /// holds it). O(1).
  public func assumeIsolated() -> IsolatedEventLoop {
    if let violation = IsolationCheck.violation(of: self) { preconditionFailure(violation) }
    return IsolatedEventLoop(uncheckedLoop: self)
  }
}
