/// `Duration` forms of the loop APIs that take a ``TimeAmount``, so that code
/// written with Swift's `Duration` needs no conversion. Each converts with
/// ``TimeAmount/init(_:)`` (rounded up to a whole nanosecond, saturating) and
/// then behaves exactly as the ``TimeAmount`` form. They are disfavoured, so an
/// expression both types can spell (`.milliseconds(100) * 2`, `.zero`) means a
/// ``TimeAmount``.
extension TimerEventLoop {
  /// `Duration` form of ``scheduleRepeating(firstAt:every:policy:_:)-(Deadline,TimeAmount,_,_)``: runs
  /// `body` at `first` and then every `interval` (raised to at least 0.1 ms).
  @_disfavoredOverload @discardableResult
  public func scheduleRepeating(
    firstAt first: Deadline, every interval: Duration, policy: RepeatPolicy = .fixedRate,
    _ body: @escaping @Sendable (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(firstAt: first, every: TimeAmount(interval), policy: policy, body)
  }

  /// `Duration` form of ``schedule(after:handler:tag:)-(TimeAmount,_,_)``.
  @_disfavoredOverload @discardableResult
  public func schedule(
    after delay: Duration, handler: some TimerHandler, tag: UInt64
  ) throws(TimerLoopError) -> TimerKey {
    try schedule(after: TimeAmount(delay), handler: handler, tag: tag)
  }
}

extension IsolatedEventLoop {
  /// `Duration` form of ``scheduleRepeating(firstAt:every:policy:_:)-(Deadline,TimeAmount,_,_)``.
  @_disfavoredOverload @discardableResult
  public func scheduleRepeating(
    firstAt first: Deadline, every interval: Duration, policy: RepeatPolicy = .fixedRate,
    _ body: @escaping (TimerHandle) -> Void
  ) throws(TimerLoopError) -> TimerHandle {
    try scheduleRepeating(firstAt: first, every: TimeAmount(interval), policy: policy, body)
  }
}

extension EpollEventLoop {
  /// `Duration` form of ``init(leeway:metricsDelegate:)-(TimeAmount,_)``: `leeway` clamped
  /// to 0 ... 1 s.
  ///
  /// - Throws: ``SystemError`` as ``init(leeway:metricsDelegate:)-(TimeAmount,_)`` does.
  @_disfavoredOverload
  public convenience init(
    leeway: Duration, metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) {
    try self.init(leeway: TimeAmount(leeway), metricsDelegate: metricsDelegate)
  }

  /// `Duration` form of ``startOnNewThread(name:leeway:metricsDelegate:)-(_,TimeAmount,_)``.
  ///
  /// - Throws: ``SystemError`` as ``startOnNewThread(name:leeway:metricsDelegate:)-(_,TimeAmount,_)`` does.
  @_disfavoredOverload
  public static func startOnNewThread(
    name: String = "TimerLoop", leeway: Duration,
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) -> EpollEventLoop {
    try startOnNewThread(name: name, leeway: TimeAmount(leeway), metricsDelegate: metricsDelegate)
  }
}

extension EpollEventLoopGroup {
  /// `Duration` form of ``init(count:leeway:metricsDelegate:)-(_,TimeAmount,_)``.
  ///
  /// - Throws: ``SystemError`` as ``init(count:leeway:metricsDelegate:)-(_,TimeAmount,_)`` does.
  @_disfavoredOverload
  public convenience init(
    count: Int = EpollEventLoopGroup.coreCount, leeway: Duration,
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) {
    try self.init(count: count, leeway: TimeAmount(leeway), metricsDelegate: metricsDelegate)
  }
}

extension VirtualEventLoop {
  /// `Duration` form of ``advanceTime(by:)-(TimeAmount)``.
  @_disfavoredOverload
  public func advanceTime(by amount: Duration) {
    advanceTime(by: TimeAmount(amount))
  }

  /// `Duration` form of ``stall(for:)-(TimeAmount)``.
  @_disfavoredOverload
  public func stall(for amount: Duration) {
    stall(for: TimeAmount(amount))
  }

  /// `Duration` form of ``suspend(for:)-(TimeAmount)``.
  @_disfavoredOverload
  public func suspend(for amount: Duration) {
    suspend(for: TimeAmount(amount))
  }
}
