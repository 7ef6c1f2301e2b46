import Foundation
import TimerLoop

extension Debouncer {
  /// A debouncer whose action runs on the main actor, for UI-style code: a
  /// `@MainActor` class can capture itself in the action and call its
  /// methods, with no `@unchecked Sendable`.
  ///
  /// ```swift
  /// @MainActor final class SearchField {
  ///   lazy var search = try? Debouncer<String>(delay: 0.3, deliveringOn: MainActor.self) {
  ///     [weak self] text in self?.run(query: text)
  ///   }
  ///   func textDidChange(_ text: String) { search?.call(text) }
  ///   func run(query: String) {}
  /// }
  /// ```
  ///
  /// Timing as ``init(delay:on:deliveringOn:action:)``; the action is
  /// delivered through `DispatchQueue.main`, which the main thread must
  /// service (`dispatchMain()`, the main `RunLoop`, or an `async` main that
  /// is suspended), and runs on the main actor. ``flush()`` still runs it on
  /// the caller's thread, so call it from the main actor.
  ///
  /// - Parameters:
  ///   - delay: seconds of quiet before the action runs; ≤ 0 runs it in the
  ///     loop's next pass; `.infinity` only on ``flush()``.
  ///   - loop: `nil` picks ``DefaultLoop/current`` now.
  ///   - mainActor: `MainActor.self`.
  ///   - action: receives the last value, on the main actor.
  /// - Throws: `TimerLoopError.invalidInterval` for a NaN delay;
  ///   `SystemError` when no loop is given and the shared loop cannot start.
  public convenience init(
    delay: TimeInterval, on loop: (any TimerEventLoop)? = nil, deliveringOn mainActor: MainActor.Type,
    action: @escaping @MainActor @Sendable (Value) -> Void
  ) throws {
    try self.init(delay: delay, on: loop, deliveringOn: .main) { value in
      MainActor.assumeIsolated { action(value) }
    }
  }
}
