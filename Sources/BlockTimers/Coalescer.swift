import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// The machinery shared by ``Debouncer`` and ``Throttler``: keep the latest
/// value, deliver it when a ``BlockTimer`` armed on the loop fires. The two
/// differ only in whether a new value re-arms the timer.
final class Coalescer<Value: Sendable>: Sendable {
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
  }

  private let policy: Policy
  private let delay: TimeAmount
  private let loop: any EventLoop
  private let queue: DispatchQueue?
  private let action: @Sendable (Value) -> Void
  private let state = Locked(State())
  /// Lets ``cancel()`` and ``flush()`` return only once no delivery they took
  /// the value from is about to start.
  private let gate = AdmissionGate()

  init(
    policy: Policy, delay: TimeInterval, loop: (any EventLoop)?, queue: DispatchQueue?,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    self.policy = policy
    self.delay = try TimeAmount(seconds: delay)
    self.loop = try loop ?? DefaultLoop.resolved()
    self.queue = queue
    self.action = action
  }

  func submit(_ value: Value) {
    let replaced: BlockTimer? = state.withLock { state in
      state.pending = value
      if policy == .throttle, state.timer != nil { return nil }
      defer {
        state.timer = BlockTimer.scheduled(at: loop.now + delay, on: loop, deliveringOn: queue) {
          [self] timer in fired(timer)
        }
      }
      return state.timer
    }
    replaced?.invalidate()
  }

  private func fired(_ timer: BlockTimer) {
    let value: Value? = state.withLock { state in
      // A timer replaced or cancelled after its call was admitted is stale.
      guard state.timer === timer else { return nil }
      defer { state = State() }
      if state.pending != nil { gate.admit() }
      return state.pending
    }
    guard let value else { return }
    gate.start()
    action(value)
  }

  /// Delivers the pending value now, on the calling thread. A delivery that
  /// the loop had already begun is not interrupted and may overlap this call.
  func flush() {
    let (timer, value) = takeAll()
    timer?.invalidate()
    gate.waitForAdmittedCalls()
    if let value { action(value) }
  }

  func cancel() {
    takeAll().timer?.invalidate()
    gate.waitForAdmittedCalls()
  }

  var isPending: Bool { state.withLock { $0.pending != nil } }

  private func takeAll() -> (timer: BlockTimer?, value: Value?) {
    state.withLock { state in
      defer { state = State() }
      return (state.timer, state.pending)
    }
  }
}
