import BlockTimers
import Foundation
import TimerLoop

/// The objects the BlockTimers implementations (`blocktimer`, `weak-target`) keep: what a
/// program moving off `Foundation.Timer` holds, made by the public factories on the
/// benchmark's loop thread. Each workload makes them with a closure per implementation, so
/// that every block is the factory's own closure type: one passed through a generic
/// parameter would be wrapped (an allocation per timer that a program does not pay).
protocol BlockTimersOneShot: Sendable {
  /// Moves the timer (`Timer.fireDate`'s setter).
  var fireDate: Date { get nonmutating set }

  /// Ends the timer (`Timer.invalidate()`).
  func invalidate()
}

extension BlockTimer: BlockTimersOneShot {}

/// The target every `weak-target` timer shares, as every handler timer of `timerloop-handler`
/// shares one handler.
final class SharedTarget: Sendable {
  static let shared = SharedTarget()
}

extension WeakTargetTimer: BlockTimersOneShot where Target == SharedTarget {}

extension WeakTargetTimer where Target == SharedTarget {
  /// A one-shot on the shared target, due `seconds` from now on `loop`.
  static func oneShot(
    after seconds: TimeInterval, on loop: EpollEventLoop,
    _ action: @escaping @Sendable (SharedTarget) -> Void
  ) -> WeakTargetTimer {
    scheduledTimer(
      withTimeInterval: seconds, target: SharedTarget.shared, repeats: false, on: loop,
      action: action)
  }
}
