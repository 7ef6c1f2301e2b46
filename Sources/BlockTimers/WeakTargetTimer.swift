import Dispatch
import Foundation
import TimerLoop

/// A timer that holds its target weakly and calls an action with it: the
/// pattern of weak-target timer helpers such as EasyTimer,
/// JCAutoInvalidateTimer and YVTimer+YVProxy (an `NSProxy` forwarding to a
/// weak target), which exist because a `Timer`
/// retains its target and an owner that keeps its timer in a property then
/// never deallocates.
///
/// ```swift
/// import BlockTimers
/// import Synchronization
///
/// final class Clock: Sendable {
///   // The owner keeps its timer; the timer does not keep the owner.
///   private let timer = Mutex<WeakTargetTimer<Clock>?>(nil)
///   func start() {
///     let ticking = WeakTargetTimer.scheduledTimer(
///       withTimeInterval: 1, target: self, action: Clock.tick)
///     timer.withLock { $0 = ticking }
///   }
///   func tick() { print("tick") }
/// }
/// ```
///
/// Guarantees:
/// - The action is never called with a deallocated target: each call takes a
///   strong reference first, for the duration of the call only.
/// - The timer invalidates itself once the target is gone: at once when this
///   object is released after its target (the usual case, an owner keeping it
///   in a property: no `deinit` dance needed), and otherwise at the next tick
///   that finds the target gone.
/// - Releasing this object while the target lives does not stop the timer;
///   like any scheduled ``BlockTimer`` it runs until invalidated.
///
/// Timing, threads, shutdown and bad input are those of ``BlockTimer`` (which
/// see): seconds on the loop's monotonic clock, first fire one interval after
/// creation, fixed rate, ≤ 0 becomes 0.0001 s, NaN gives an invalid timer, and
/// the timer is invalidated at once when its loop shuts down.
///
/// `Target` must be `Sendable` because the action runs on the loop's thread.
/// Isolation is kept: a closure action is nonisolated (the compiler rejects
/// one that calls a `@MainActor` method), a method reference runs on the
/// actor its method is isolated to (`action: Owner.tick` on a `@MainActor`
/// class runs on the main actor), and
/// ``scheduledTimer(withTimeInterval:target:repeats:userInfo:on:deliveringOn:action:)-(TimeInterval,_,_,_,_,MainActor.Type,_)``
/// takes a `@MainActor` closure.
public final class WeakTargetTimer<Target: AnyObject & Sendable>: Sendable {
  /// The underlying timer: ``BlockTimer/fireDate``, ``BlockTimer/tolerance``,
  /// ``BlockTimer/userInfo`` and the rest are there.
  public let timer: BlockTimer
  private weak let weakTarget: Target?

  private init(timer: BlockTimer, target: Target) {
    self.timer = timer
    self.weakTarget = target
  }

  deinit {
    // Weak references read nil once the target's deinit has begun, so an owner
    // holding this object in a property ends the timer as it deallocates.
    if weakTarget == nil { timer.invalidate() }
  }

  /// The target, or `nil` once it has been deallocated.
  public var target: Target? { weakTarget }

  /// Whether the timer can still fire; see ``BlockTimer/isValid``.
  public var isValid: Bool { timer.isValid }

  /// Whether the timer repeats; see ``BlockTimer/repeats``.
  public var repeats: Bool { timer.repeats }

  /// The repeat interval in seconds, 0 for a one-shot; see ``BlockTimer/timeInterval``.
  public var timeInterval: TimeInterval { timer.timeInterval }

  /// The date at which the timer fires next; setting it moves the timer, from
  /// any thread. See ``BlockTimer/fireDate``.
  public var fireDate: Date {
    get { timer.fireDate }
    set { timer.fireDate = newValue }
  }

  /// How late the timer may fire, in seconds; see ``BlockTimer/tolerance``
  /// (negative and NaN read back 0; a repeating timer's is capped at half its interval).
  public var tolerance: TimeInterval {
    get { timer.tolerance }
    set { timer.tolerance = newValue }
  }

  /// The value given at scheduling; see ``BlockTimer/userInfo``.
  public var userInfo: (any Sendable)? { timer.userInfo }

  /// Stops the timer; see ``BlockTimer/invalidate()``.
  public func invalidate() { timer.invalidate() }

  /// Calls the action now on the calling thread if the target lives (and
  /// invalidates the timer if it does not); see ``BlockTimer/fire()``.
  public func fire() { timer.fire() }

  /// The single path every factory takes.
  private static func make(
    target: Target, fireDate: Date, start: BlockTimer.Start, interval: TimeInterval, repeats: Bool,
    userInfo: (any Sendable)?, loop: (any TimerEventLoop)?, queue: DispatchQueue?,
    action: @escaping @Sendable (Target, BlockTimer) -> Void
  ) -> WeakTargetTimer {
    let timer = BlockTimer(
      fireDate: fireDate, interval: interval, repeats: repeats, userInfo: userInfo
    ) {
      [weak target] timer in
      guard let target else { return timer.invalidate() }
      action(target, timer)
    }
    timer.schedule(on: loop, start: start, queue: queue)
    return WeakTargetTimer(timer: timer, target: target)
  }

  private static func make(
    target: Target, interval: TimeInterval, repeats: Bool, userInfo: (any Sendable)?,
    loop: (any TimerEventLoop)?, queue: DispatchQueue?,
    action: @escaping @Sendable (Target, BlockTimer) -> Void
  ) -> WeakTargetTimer {
    let delay = interval <= 0 ? BlockTimer.minimumInterval : interval
    return make(
      target: target, fireDate: .distantPast, start: .delay(delay),
      interval: interval, repeats: repeats, userInfo: userInfo, loop: loop, queue: queue,
      action: action)
  }

  /// Schedules a timer that calls `action(target)` every `interval` seconds
  /// (once if `repeats` is `false`), first `interval` after this call, while
  /// the target lives. EasyTimer's and JCAutoInvalidateTimer's
  /// `scheduledTimer(timeInterval:target:selector:...)`.
  ///
  /// - Parameters:
  ///   - interval: seconds between calls, and before the first; ≤ 0 becomes
  ///     0.0001, NaN gives an invalid timer.
  ///   - target: held weakly; passed to `action` while it lives.
  ///   - repeats: `false` for a single call.
  ///   - userInfo: returned by the timer's ``BlockTimer/userInfo``.
  ///   - loop: `nil` picks ``DefaultLoop/current``.
  ///   - queue: deliver calls on this queue instead of the loop's thread.
  ///   - action: for example `{ $0.refresh() }`.
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, action: @escaping @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, interval: interval, repeats: repeats, userInfo: userInfo, loop: loop,
      queue: queue
    ) { target, _ in action(target) }
  }

  /// The same, with a method reference, the Swift spelling of a target/selector pair:
  /// `action: Owner.tick`.
  ///
  /// The method runs where it is isolated: a nonisolated method on the
  /// loop's thread (or `queue`), during the timer's callback; a method
  /// isolated to an actor, such as one of a `@MainActor` class, on that
  /// actor, as a task the callback starts (`Task.immediate`) and does not
  /// wait for, so a call still waiting for its actor when the next tick
  /// comes is followed by another. The method's isolation is read from the
  /// reference itself (`@isolated(any)`): Swift converts a reference to an
  /// isolated method into a nonisolated function type without an error, and
  /// the method then ran off its actor.
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable () -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, interval: interval, repeats: repeats, userInfo: userInfo, loop: loop,
      queue: queue
    ) { target, _ in call(action(target)) }
  }

  /// The same, with an action that also receives the timer, as a selector
  /// `-tick:(NSTimer *)timer` does: `action: Owner.tick(_:)` for a method
  /// `func tick(_ timer: BlockTimer)`. The timer is the underlying
  /// ``BlockTimer`` (the object ``timer`` returns), so the action can read its
  /// ``BlockTimer/userInfo`` or ``BlockTimer/fireDate``, or invalidate it.
  /// The method runs where it is isolated, as for `action: Owner.tick`.
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable (BlockTimer) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, interval: interval, repeats: repeats, userInfo: userInfo, loop: loop,
      queue: queue
    ) { target, timer in call(action(target), with: timer) }
  }

  /// Apple's `scheduledTimer(withTimeInterval:repeats:block:)` shape for a
  /// `@MainActor` owner: `action` is isolated to the main actor, so it calls
  /// the owner's methods with no `@unchecked Sendable`. Each call is
  /// delivered through `DispatchQueue.main`, as
  /// ``BlockTimer/scheduledTimer(withTimeInterval:repeats:on:deliveringOn:block:)-(TimeInterval,_,_,_,_)``
  /// delivers, with the same requirement that the main thread service the
  /// main queue; a repeating timer whose previous call still waits there
  /// skips the tick.
  ///
  /// ```swift
  /// @MainActor final class Dashboard {
  ///   var refresh: WeakTargetTimer<Dashboard>?
  ///   func start() {
  ///     refresh = WeakTargetTimer.scheduledTimer(
  ///       withTimeInterval: 5, target: self, deliveringOn: MainActor.self
  ///     ) { dashboard in dashboard.reload() }
  ///   }
  ///   func reload() {}
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: seconds between calls, and before the first; ≤ 0 becomes
  ///     0.0001, NaN gives an invalid timer.
  ///   - target: held weakly; passed to `action` while it lives.
  ///   - repeats: `false` for a single call.
  ///   - userInfo: returned by the timer's ``BlockTimer/userInfo``.
  ///   - loop: `nil` picks ``DefaultLoop/current``.
  ///   - mainActor: `MainActor.self`.
  ///   - action: receives the target, on the main actor.
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn mainActor: MainActor.Type,
    action: @escaping @MainActor @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, interval: interval, repeats: repeats, userInfo: userInfo, loop: loop,
      queue: .main
    ) { target, _ in MainActor.assumeIsolated { action(target) } }
  }

  /// JCAutoInvalidateTimer's block form: the action also receives the
  /// `userInfo` given here (the same value as ``BlockTimer/userInfo``).
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)?, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target, _ userInfo: (any Sendable)?) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, interval: interval, repeats: repeats, userInfo: userInfo, loop: loop,
      queue: queue
    ) { target, timer in action(target, timer.userInfo) }
  }

  /// YVTimer's `timerWithFireTime:interval:target:selector:userInfo:repeats:`:
  /// first fires `fireTime` seconds from now (≤ 0: in the loop's next pass),
  /// then every `interval` seconds (≤ 0 becomes 0.0001) if `repeats`. A NaN
  /// `fireTime` or `interval` gives an invalid timer that never fires.
  public static func scheduledTimer(
    fireTime: TimeInterval, interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, action: @escaping @Sendable (Target) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, fireDate: .distantPast, start: .delay(fireTime),
      interval: interval, repeats: repeats, userInfo: userInfo, loop: loop, queue: queue
    ) { target, _ in action(target) }
  }

  /// YVTimer's form with a method reference (`action: Owner.tick`), which
  /// runs where it is isolated, as for the interval form's method reference.
  public static func scheduledTimer(
    fireTime: TimeInterval, interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable () -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, fireDate: .distantPast, start: .delay(fireTime),
      interval: interval, repeats: repeats, userInfo: userInfo, loop: loop, queue: queue
    ) { target, _ in call(action(target)) }
  }

  /// YVTimer's form with a method that receives the timer, as YVProxy forwards
  /// `-tick:(NSTimer *)timer`: `action: Owner.tick(_:)` for a method
  /// `func tick(_ timer: BlockTimer)`, called with the underlying ``BlockTimer``
  /// where it is isolated, as for the interval form's method reference.
  public static func scheduledTimer(
    fireTime: TimeInterval, interval: TimeInterval, target: Target, repeats: Bool = true,
    userInfo: (any Sendable)? = nil, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Target) -> @isolated(any) @Sendable (BlockTimer) -> Void
  ) -> WeakTargetTimer {
    make(
      target: target, fireDate: Date(timeIntervalSinceNow: fireTime), start: .delay(fireTime),
      interval: interval, repeats: repeats, userInfo: userInfo, loop: loop, queue: queue
    ) { target, timer in call(action(target), with: timer) }
  }

  /// Calls a method where it is isolated: an immediate task runs a
  /// nonisolated one on this thread before returning, and enqueues an
  /// isolated one on its actor.
  private static func call(_ method: @escaping @isolated(any) @Sendable () -> Void) {
    Task.immediate { await method() }
  }

  private static func call(
    _ method: @escaping @isolated(any) @Sendable (BlockTimer) -> Void, with timer: BlockTimer
  ) {
    Task.immediate { await method(timer) }
  }
}
