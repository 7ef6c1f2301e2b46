import Dispatch
import Foundation
import TimerLoop

// `Duration` forms of every initialiser and factory that takes `TimeInterval`
// seconds, so code written with Swift's `Duration` (`.milliseconds(100) * 2`)
// needs no conversion. Each converts to seconds with `Duration.timeInterval`
// and then behaves exactly as the `TimeInterval` form, which it calls: the
// same rounding, clamping and handling of bad input. They are disfavoured, so
// an expression both types can spell (`.zero`) means `TimeInterval`.

extension Duration {
  /// The duration in seconds, as Foundation's `TimeInterval` (to within a
  /// `Double`'s precision: 100 ms is exactly 0.1). `Duration`'s extremes, about
  /// ±1.7e20 s, stay finite and saturate like any huge interval.
  var timeInterval: TimeInterval {
    // Not `components`, which traps beyond Int64.max seconds.
    Double(attoseconds) / 1e18
  }
}

extension BlockTimer {
  /// `Duration` form of ``init(timeInterval:repeats:userInfo:block:)-(TimeInterval,_,_,_)``.
  @_disfavoredOverload
  public convenience init(
    timeInterval interval: Duration, repeats: Bool, userInfo: (any Sendable)? = nil,
    block: @escaping @Sendable (BlockTimer) -> Void
  ) {
    self.init(
      timeInterval: interval.timeInterval, repeats: repeats, userInfo: userInfo, block: block)
  }

  /// `Duration` form of ``init(fire:interval:repeats:userInfo:clock:block:)-(_,TimeInterval,_,_,_,_)``.
  @_disfavoredOverload
  public convenience init(
    fire date: Date, interval: Duration, repeats: Bool, userInfo: (any Sendable)? = nil,
    clock: TimerClock = .monotonic, block: @escaping @Sendable (BlockTimer) -> Void
  ) {
    self.init(
      fire: date, interval: interval.timeInterval, repeats: repeats, userInfo: userInfo,
      clock: clock, block: block)
  }

  /// `Duration` form of
  /// ``scheduledTimer(withTimeInterval:repeats:on:deliveringOn:userInfo:block:)-(TimeInterval,_,_,_,_,_)``.
  @_disfavoredOverload @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: Duration, repeats: Bool, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, userInfo: (any Sendable)? = nil,
    block: @escaping @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, repeats: repeats, on: loop, deliveringOn: queue,
      userInfo: userInfo, block: block)
  }

  /// `Duration` form of the NSTimer+Blocks
  /// ``scheduledTimer(withTimeInterval:block:repeats:)-(TimeInterval,_,_)``.
  @_disfavoredOverload @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: Duration, block: @escaping @Sendable () -> Void, repeats: Bool
  ) -> BlockTimer {
    scheduledTimer(withTimeInterval: interval.timeInterval, block: block, repeats: repeats)
  }

  /// `Duration` form of the NSTimer+Blocks ``timer(withTimeInterval:block:repeats:)-(TimeInterval,_,_)``.
  @_disfavoredOverload
  public static func timer(
    withTimeInterval interval: Duration, block: @escaping @Sendable () -> Void, repeats: Bool
  ) -> BlockTimer {
    timer(withTimeInterval: interval.timeInterval, block: block, repeats: repeats)
  }
}

extension BlockTimer {
  // The delivery forms of BlockTimer+Delivery.swift.

  /// `Duration` form of the NSTimer+Blocks factory that delivers on a queue.
  @_disfavoredOverload @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: Duration, block: @escaping @Sendable () -> Void,
    repeats: Bool, on loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue
  ) -> BlockTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, block: block, repeats: repeats, on: loop,
      deliveringOn: queue)
  }

  /// `Duration` form of the factory whose block is isolated to the main actor.
  @_disfavoredOverload @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: Duration, repeats: Bool, on loop: (any TimerEventLoop)? = nil,
    deliveringOn mainActor: MainActor.Type,
    block: @escaping @MainActor @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, repeats: repeats, on: loop,
      deliveringOn: mainActor, block: block)
  }

  /// `Duration` form of the NSTimer+Blocks factory whose block is isolated to
  /// the main actor.
  @_disfavoredOverload @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: Duration, block: @escaping @MainActor @Sendable () -> Void,
    repeats: Bool, on loop: (any TimerEventLoop)? = nil, deliveringOn mainActor: MainActor.Type
  ) -> BlockTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, block: block, repeats: repeats, on: loop,
      deliveringOn: mainActor)
  }
}

extension CountdownTimer {
  /// `Duration` form of
  /// ``init(duration:tickInterval:on:deliveringOn:clock:onTick:onCompletion:)-(TimeInterval,TimeInterval,_,_,_,_,_)``;
  /// `onTick` still receives the remaining time in seconds.
  ///
  /// - Throws: `SystemError` when no loop is given and the shared loop cannot
  ///   start (a `Duration` cannot be NaN).
  @_disfavoredOverload
  public convenience init(
    duration: Duration, tickInterval: Duration, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, clock: TimerClock = .monotonic,
    onTick: @escaping @Sendable (_ remaining: TimeInterval, _ progress: Double) -> Void,
    onCompletion: @escaping @Sendable () -> Void
  ) throws {
    try self.init(
      duration: duration.timeInterval, tickInterval: tickInterval.timeInterval, on: loop,
      deliveringOn: queue, clock: clock, onTick: onTick, onCompletion: onCompletion)
  }
}

extension Debouncer {
  /// `Duration` form of ``init(delay:on:deliveringOn:action:)-(TimeInterval,_,DispatchQueue?,_)``.
  ///
  /// - Throws: `SystemError` when no loop is given and the shared loop cannot
  ///   start (a `Duration` cannot be NaN).
  @_disfavoredOverload
  public convenience init(
    delay: Duration, on loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    try self.init(delay: delay.timeInterval, on: loop, deliveringOn: queue, action: action)
  }
}

extension Debouncer {
  /// `Duration` form of the initialiser whose action is isolated to the main actor.
  ///
  /// - Throws: `SystemError` when no loop is given and the shared loop cannot
  ///   start (a `Duration` cannot be NaN).
  @_disfavoredOverload
  public convenience init(
    delay: Duration, on loop: (any TimerEventLoop)? = nil, deliveringOn mainActor: MainActor.Type,
    action: @escaping @MainActor @Sendable (Value) -> Void
  ) throws {
    try self.init(delay: delay.timeInterval, on: loop, deliveringOn: mainActor, action: action)
  }
}

extension Throttler {
  /// `Duration` form of ``init(interval:on:deliveringOn:action:)-(TimeInterval,_,_,_)``.
  ///
  /// - Throws: `SystemError` when no loop is given and the shared loop cannot
  ///   start (a `Duration` cannot be NaN).
  @_disfavoredOverload
  public convenience init(
    interval: Duration, on loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    try self.init(
      interval: interval.timeInterval, on: loop, deliveringOn: queue, action: action)
  }
}

extension WeakTargetTimer {
  // One form per `TimeInterval` factory, matched by the type of `action`.

  /// `Duration` form of the factory with a closure action, `{ $0.refresh() }`.
  @_disfavoredOverload
  public static func scheduledTimer(
    withTimeInterval interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, action: @escaping @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, target: target, repeats: repeats,
      userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of the factory with a method reference, `Owner.tick`.
  @_disfavoredOverload
  public static func scheduledTimer(
    withTimeInterval interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable () -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, target: target, repeats: repeats,
      userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of the factory with a method that receives the timer,
  /// `Owner.tick(_:)`.
  @_disfavoredOverload
  public static func scheduledTimer(
    withTimeInterval interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable (BlockTimer) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, target: target, repeats: repeats,
      userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of the factory whose action is isolated to the main
  /// actor, ``WeakTargetTimer/scheduledTimer(withTimeInterval:target:repeats:userInfo:on:deliveringOn:action:)-(TimeInterval,_,_,_,_,MainActor.Type,_)``.
  @_disfavoredOverload
  public static func scheduledTimer(
    withTimeInterval interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn mainActor: MainActor.Type,
    action: @escaping @MainActor @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, target: target, repeats: repeats,
      userInfo: userInfo, on: loop, deliveringOn: mainActor, action: action)
  }

  /// `Duration` form of JCAutoInvalidateTimer's block form, whose action
  /// receives the `userInfo`.
  @_disfavoredOverload
  public static func scheduledTimer(
    withTimeInterval interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)?, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target, _ userInfo: (any Sendable)?) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: interval.timeInterval, target: target, repeats: repeats,
      userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of YVTimer's factory with a closure action.
  @_disfavoredOverload
  public static func scheduledTimer(
    fireTime: Duration, interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, action: @escaping @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      fireTime: fireTime.timeInterval, interval: interval.timeInterval, target: target,
      repeats: repeats, userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of YVTimer's factory with a method reference, `Owner.tick`.
  @_disfavoredOverload
  public static func scheduledTimer(
    fireTime: Duration, interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable () -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      fireTime: fireTime.timeInterval, interval: interval.timeInterval, target: target,
      repeats: repeats, userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }

  /// `Duration` form of YVTimer's factory with a method that receives the
  /// timer, `Owner.tick(_:)`.
  @_disfavoredOverload
  public static func scheduledTimer(
    fireTime: Duration, interval: Duration, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable (BlockTimer) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      fireTime: fireTime.timeInterval, interval: interval.timeInterval, target: target,
      repeats: repeats, userInfo: userInfo, on: loop, deliveringOn: queue, action: action)
  }
}
