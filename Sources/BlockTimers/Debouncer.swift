import Dispatch
import Foundation
import TimerLoop

/// Calls an action once things have been quiet for a delay, with the last
/// value it was given: the Dash pattern (`cancelPreviousPerformRequestsWithTarget:`
/// then `performSelector:withObject:afterDelay:` on every event) without the
/// run loop.
///
/// ```swift
/// let syncURL = try Debouncer<URL>(delay: 0.05) { url in save(url) }
/// syncURL.call(url)   // on every navigation event
/// ```
///
/// Each ``call(_:)`` replaces the pending value and restarts the delay, so a
/// burst of calls closer together than `delay` gives one action, `delay`
/// seconds (loop's monotonic clock) after the last call, with the last value.
/// The action runs on the loop's thread (or the queue given; ``flush()`` runs
/// it on the caller's). All methods are safe from any thread and O(1) amortised in the
/// loop's pending timers.
///
/// A pending value keeps its action alive (and will run it) even if this object
/// is released, as `performSelector:afterDelay:` retains its target; call
/// ``cancel()`` to drop it.
///
/// When the loop shuts down, the pending value and the action (with what they
/// capture) are released at once, on the thread that shut the loop down, and
/// later calls do nothing: ``isPending`` reads `false` for good. The same holds
/// from the start on a loop that has shut down. The loop is held weakly: this
/// object never keeps the loop object alive.
public final class Debouncer<Value: Sendable>: Sendable {
  private let coalescer: Coalescer

  /// - Parameters:
  ///   - delay: seconds of quiet before the action runs; ≤ 0 runs it in the
  ///     loop's next pass; `.infinity` only on ``flush()``.
  ///   - loop: `nil` picks ``DefaultLoop/current`` now.
  ///   - queue: run the action on this queue instead of the loop's thread.
  ///   - action: receives the last value given to ``call(_:)``.
  /// - Throws: `TimerLoopError.invalidInterval` for a NaN delay;
  ///   `SystemError` when no loop is given and the shared loop cannot start.
  public init(
    delay: TimeInterval, on loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    // The coalescer is given only `Value`s, so the cast back cannot fail.
    coalescer = try Coalescer(policy: .debounce, delay: delay, loop: loop, queue: queue) {
      action($0 as! Value)
    }
  }

  /// Records `value` and restarts the delay.
  public func call(_ value: Value) { coalescer.submit(value) }

  /// Runs the action now, on the calling thread, with the pending value, if
  /// there is one; the pending timer is dropped.
  public func flush() { coalescer.flush() }

  /// Drops the pending value; the action does not run for it.
  public func cancel() { coalescer.cancel() }

  /// Whether a value waits for the action.
  public var isPending: Bool { coalescer.isPending }
}

extension Debouncer where Value == Void {
  /// ``call(_:)`` for a debouncer that carries no value.
  public func call() { call(()) }
}
