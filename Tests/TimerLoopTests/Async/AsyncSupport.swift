import Dispatch
import Synchronization
import Testing

@testable import TimerLoop

/// The loop's live timer count, read on its thread (a virtual loop first runs
/// what is due now, which applies requests sent from other threads).
func liveTimers(_ loop: any EventLoop) throws -> Int {
  try onLoop(loop) { loop.liveTimerCount! }
}

extension Result {
  var isCancellation: Bool {
    if case .failure(let error) = self { return error is CancellationError }
    return false
  }

  var isShutdown: Bool {
    if case .failure(let error) = self { return error as? TimerLoopError == .shutdown }
    return false
  }
}

/// A counter that tasks on any thread add to.
final class Tally: Sendable {
  private let value = Atomic<Int>(0)
  func add() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}
