import BlockTimers
import Foundation
import TimerLoop

/// The BlockTimers implementations (`blocktimer`, `weak-target`): one-shots made through the
/// public factories a program moving off `Foundation.Timer` calls, on the benchmark's loop
/// thread, kept as the object the factory returns.
protocol BlockTimersOneShot: Sendable {
  /// The factory's timer, first due `seconds` from now on `loop`, calling `body` once.
  static func scheduled(
    after seconds: TimeInterval, on loop: EpollEventLoop, _ body: @escaping @Sendable () -> Void
  ) -> Self

  /// Moves the timer (`Timer.fireDate`'s setter).
  var fireDate: Date { get nonmutating set }

  /// Ends the timer (`Timer.invalidate()`).
  func invalidate()
}

extension BlockTimer: BlockTimersOneShot {
  static func scheduled(
    after seconds: TimeInterval, on loop: EpollEventLoop, _ body: @escaping @Sendable () -> Void
  ) -> BlockTimer {
    scheduledTimer(withTimeInterval: seconds, repeats: false, on: loop) { _ in body() }
  }
}

/// The target every `weak-target` timer shares, as every handler timer of `timerloop-handler`
/// shares one handler.
final class SharedTarget: Sendable {
  static let shared = SharedTarget()
}

extension WeakTargetTimer: BlockTimersOneShot where Target == SharedTarget {
  static func scheduled(
    after seconds: TimeInterval, on loop: EpollEventLoop, _ body: @escaping @Sendable () -> Void
  ) -> WeakTargetTimer<SharedTarget> {
    scheduledTimer(
      withTimeInterval: seconds, target: SharedTarget.shared, repeats: false, on: loop
    ) { _ in body() }
  }
}

extension Implementation {
  /// The one-shot type of a BlockTimers implementation; `nil` for the others.
  var blockTimersOneShot: (any BlockTimersOneShot.Type)? {
    switch self {
    case .blocktimer: BlockTimer.self
    case .weakTarget: WeakTargetTimer<SharedTarget>.self
    default: nil
    }
  }
}
