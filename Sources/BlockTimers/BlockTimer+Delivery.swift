import Dispatch
import Foundation
import TimerLoop

/// Delivery forms: the NSTimer+Blocks factory with a delivery queue, and the
/// main-actor forms for UI-style code, whose blocks touch `@MainActor` state.
///
/// A `@MainActor` block is delivered through `DispatchQueue.main`, which is
/// how Swift runs the main actor's jobs on Linux too. Nothing runs there
/// unless the main thread services the main queue: the program calls
/// `dispatchMain()`, runs the main `RunLoop`, or is itself an `async` program
/// or a test on the main actor that is suspended in an `await`. A program
/// whose main thread blocks (in a semaphore, a `sleep`, a `readLine()`)
/// never sees its main-actor timers fire.
extension BlockTimer {
  /// NSTimer+Blocks' `scheduledTimerWithTimeInterval:block:repeats:` with a
  /// delivery queue: each call of `block` is dispatched to `queue`, as
  /// ``scheduledTimer(withTimeInterval:repeats:on:deliveringOn:userInfo:block:)-(TimeInterval,_,_,_,_,_)``
  /// does (a repeating timer whose previous call still waits on the queue
  /// skips the tick). First fires `interval` seconds from now (≤ 0 becomes
  /// 0.0001); a NaN interval gives an invalid timer that never fires.
  ///
  /// - Parameters:
  ///   - interval: seconds until the first call and, if `repeats`, between calls.
  ///   - block: the code to run, on `queue`.
  ///   - repeats: whether the timer repeats until invalidated.
  ///   - loop: the loop to time it on; `nil` picks ``DefaultLoop/current``.
  ///   - queue: where each call runs.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, block: @escaping @Sendable () -> Void,
    repeats: Bool, on loop: (any TimerEventLoop)? = nil, deliveringOn queue: DispatchQueue
  ) -> BlockTimer {
    scheduledTimer(withTimeInterval: interval, repeats: repeats, on: loop, deliveringOn: queue) {
      _ in block()
    }
  }

  /// Apple's `scheduledTimer(withTimeInterval:repeats:block:)` for a block
  /// isolated to the main actor: a `@MainActor` class can capture itself and
  /// call its methods, with no `@unchecked Sendable`. Timed on `loop` like
  /// every ``BlockTimer``; each call is delivered through `DispatchQueue.main`
  /// (see the requirement on the main thread above) and runs on the main actor.
  ///
  /// ```swift
  /// @MainActor final class SearchField {
  ///   var timer: BlockTimer?
  ///   func textDidChange() {
  ///     timer?.invalidate()
  ///     timer = BlockTimer.scheduledTimer(
  ///       withTimeInterval: 0.3, repeats: false, deliveringOn: MainActor.self
  ///     ) { [weak self] _ in self?.search() }
  ///   }
  ///   func search() {}
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: seconds until the first call (≤ 0 becomes 0.0001) and,
  ///     if `repeats`, between calls; NaN gives an invalid timer.
  ///   - repeats: whether the timer repeats until invalidated.
  ///   - loop: the loop to time it on; `nil` picks ``DefaultLoop/current``.
  ///   - mainActor: `MainActor.self`.
  ///   - block: receives the returned timer, on the main actor.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, repeats: Bool, on loop: (any TimerEventLoop)? = nil,
    deliveringOn mainActor: MainActor.Type,
    block: @escaping @MainActor @Sendable (BlockTimer) -> Void
  ) -> BlockTimer {
    scheduledTimer(withTimeInterval: interval, repeats: repeats, on: loop, deliveringOn: .main) {
      timer in MainActor.assumeIsolated { block(timer) }
    }
  }

  /// NSTimer+Blocks' `scheduledTimerWithTimeInterval:block:repeats:` for a
  /// block isolated to the main actor; see
  /// ``scheduledTimer(withTimeInterval:repeats:on:deliveringOn:block:)-(TimeInterval,_,_,_,_)``.
  ///
  /// - Parameters:
  ///   - interval: seconds until the first call (≤ 0 becomes 0.0001) and,
  ///     if `repeats`, between calls; NaN gives an invalid timer.
  ///   - block: the code to run, on the main actor.
  ///   - repeats: whether the timer repeats until invalidated.
  ///   - loop: the loop to time it on; `nil` picks ``DefaultLoop/current``.
  ///   - mainActor: `MainActor.self`.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, block: @escaping @MainActor @Sendable () -> Void,
    repeats: Bool, on loop: (any TimerEventLoop)? = nil, deliveringOn mainActor: MainActor.Type
  ) -> BlockTimer {
    scheduledTimer(
      withTimeInterval: interval, repeats: repeats, on: loop, deliveringOn: mainActor
    ) { _ in block() }
  }
}
