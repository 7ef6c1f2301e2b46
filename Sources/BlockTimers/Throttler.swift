import Dispatch
import Foundation
import TimerLoop

/// Coalesces calls into at most one action per interval, with the latest
/// value: the Dash clipboard pattern (a burst of pasteboard changes gives one
/// update).
///
/// ```swift
/// let clipboard = try Throttler<String>(interval: 0.1) { text in show(text) }
/// clipboard.call(text)   // on every change
/// ```
///
/// The first ``call(_:)`` opens a window of `interval` seconds (loop's monotonic
/// clock); calls inside it only replace the value; when it closes, the action
/// runs once with the last value and the next call opens a new window. On the
/// loop's clock, read just before each call of the action, an action begins at
/// least `interval` after the previous one began, even when that one began late
/// (a busy loop, a slow queue): a window that closes sooner waits until then. ``flush()`` runs at once, outside
/// this rule. Unlike
/// ``Debouncer``, a steady stream of calls still produces an action every
/// `interval`. Trailing edge only: the first call of a window is not run at
/// once. The action runs on the loop's thread (or the queue given). All
/// methods are safe from any thread.
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
public final class Throttler<Value: Sendable>: Sendable {
  /// Internal, not private: tests read the throttler's own clock readings.
  let coalescer: Coalescer

  /// - Parameters:
  ///   - interval: seconds a window stays open; ≤ 0 runs the action in the
  ///     loop's next pass.
  ///   - loop: `nil` picks ``DefaultLoop/current`` now.
  ///   - queue: run the action on this queue instead of the loop's thread.
  ///   - action: receives the last value given to ``call(_:)`` in the window.
  /// - Throws: `TimerLoopError.invalidInterval` for a NaN interval;
  ///   `SystemError` when no loop is given and the shared loop cannot start.
  public init(
    interval: TimeInterval, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil,
    action: @escaping @Sendable (Value) -> Void
  ) throws {
    // The coalescer is given only `Value`s, so the cast back cannot fail.
    coalescer = try Coalescer(policy: .throttle, delay: interval, loop: loop, queue: queue) {
      action($0 as! Value)
    }
  }

  /// Records `value`; opens a window if none is open.
  public func call(_ value: Value) { coalescer.submit(value) }

  /// Runs the action now, on the calling thread, with the pending value, if
  /// there is one, and closes the window.
  public func flush() { coalescer.flush() }

  /// Drops the pending value and closes the window.
  public func cancel() { coalescer.cancel() }

  /// Whether a value waits for the action.
  public var isPending: Bool { coalescer.isPending }
}

extension Throttler where Value == Void {
  /// ``call(_:)`` for a throttler that carries no value.
  public func call() { call(()) }
}
