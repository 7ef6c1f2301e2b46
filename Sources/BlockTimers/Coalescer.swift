import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// The machinery shared by ``Debouncer`` and ``Throttler``: keep the latest
/// value, deliver it when a ``BlockTimer`` armed on the loop fires. The two
/// differ only in whether a new value re-arms the timer.
///
/// Not generic: the value is held as `any Sendable` (the owner's action casts
/// it back). Generic over the value, its lock ran through unspecialised
/// generic code in every program calling from another module (a metadata
/// lookup per call, several hundred nanoseconds a `call(_:)`).
final class Coalescer: Sendable {
  typealias Value = any Sendable

  enum Policy {
    /// Every value cancels the pending timer and arms a new one (Dash's
    /// `cancelPreviousPerformRequests` + `performSelector:afterDelay:`).
    case debounce
    /// The first value arms the timer; later ones only replace the value.
    case throttle
  }

  private struct State {
    var pending: Value?
    var timer: BlockTimer?
    /// `nil` once the loop has shut down: nothing is delivered any more.
    var action: (@Sendable (Value) -> Void)?
  }

  private let policy: Policy
  private let delay: TimeAmount
  /// Weak, so that a debouncer or throttler never keeps its loop object alive.
  private weak let loop: (any TimerEventLoop)?
  private let context: LoopContext
  private let queue: DispatchQueue?
  private let state: Locked<State>
  /// Lets ``cancel()`` and ``flush()`` return only once no delivery they took
  /// the value from is about to start.
  private let gate = AdmissionGate()
  /// When the last delivery of a throttler called its action, on the loop's
  /// clock (monotonic nanoseconds; `Int64.min`: never), read just before the
  /// call. Deliveries run one after another on the loop's thread (or queue),
  /// so the next one reads it after the previous call has begun. Internal,
  /// not private: `Throttler`'s tests read it, being the reading the
  /// interval is counted between.
  let lastDelivery = Atomic<Int64>(.min)

  init(
    policy: Policy, delay: TimeInterval, loop: (any TimerEventLoop)?, queue: DispatchQueue?,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    self.policy = policy
    self.delay = try TimeAmount(seconds: delay)
    let loop = try loop ?? DefaultLoop.resolved()
    self.loop = loop
    context = LoopContext.of(loop)
    self.queue = queue
    state = Locked(State(action: action))
    if !context.register(self) { loopDidShutDown() }
  }

  deinit {
    context.unregister(self)
  }

  func submit(_ value: Value) {
    let replaced: BlockTimer? = state.withLock { state in
      guard state.action != nil, let loop else { return nil }
      state.pending = value
      if policy == .throttle, state.timer != nil { return nil }
      defer { state.timer = arm(at: loop.now + delay, on: loop) }
      return state.timer
    }
    replaced?.invalidate()
  }

  private func arm(at deadline: Deadline, on loop: any TimerEventLoop) -> BlockTimer {
    BlockTimer.scheduled(at: deadline, on: loop, deliveringOn: queue) { [self] timer in
      fired(timer)
    }
  }

  private func fired(_ timer: BlockTimer) {
    let delivery: (Value, @Sendable (Value) -> Void)? = state.withLock { state in
      // A timer replaced or cancelled after its call was admitted is stale.
      guard state.timer === timer, let action = state.action, let loop else { return nil }
      if policy == .throttle {
        // At most one action per window on the loop's clock, counted from
        // when the previous action began, which may have been late.
        let earliest =
          Deadline(uptimeNanoseconds: lastDelivery.load(ordering: .relaxed)) + delay
        if loop.now < earliest {
          state.timer = arm(at: earliest, on: loop)
          return nil
        }
      }
      defer {
        state.pending = nil
        state.timer = nil
      }
      guard let value = state.pending else { return nil }
      gate.admit()
      return (value, action)
    }
    guard let (value, action) = delivery else { return }
    gate.start()
    if policy == .throttle, let loop {
      lastDelivery.store(loop.now.uptimeNanoseconds, ordering: .relaxed)
    }
    action(value)
  }

  /// Delivers the pending value now, on the calling thread. A delivery that
  /// the loop had already begun is not interrupted and may overlap this call.
  func flush() {
    let (timer, value, action) = takeAll()
    timer?.invalidate()
    gate.waitForAdmittedCalls()
    if let value, let action { action(value) }
  }

  func cancel() {
    takeAll().timer?.invalidate()
    gate.waitForAdmittedCalls()
  }

  var isPending: Bool { state.withLock { $0.pending != nil } }

  private func takeAll() -> (
    timer: BlockTimer?, value: Value?, action: (@Sendable (Value) -> Void)?
  ) {
    state.withLock { state in
      defer {
        state.pending = nil
        state.timer = nil
      }
      return (state.timer, state.pending, state.action)
    }
  }
}

extension Coalescer: LoopMember {
  /// Drops the pending value and the action for good, releasing what they
  /// capture outside the lock.
  func loopDidShutDown() {
    let ended = state.withLock { state in
      defer { state = State() }
      return state
    }
    ended.timer?.invalidate()
    gate.waitForAdmittedCalls()
  }
}
