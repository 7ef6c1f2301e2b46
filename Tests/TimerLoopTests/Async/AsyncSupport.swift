import Dispatch
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The loop's live timer count, read on its thread (a virtual loop first runs
/// what is due now, which applies requests sent from other threads).
func liveTimers(_ loop: any TimerEventLoop) throws -> Int {
  try onLoop(loop) { loop.liveTimerCount }
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

  var isTimedOut: Bool {
    if case .failure(let error) = self { return error as? TimerLoopError == .timedOut }
    return false
  }
}

/// A counter that tasks on any thread add to.
final class Tally: Sendable {
  private let value = Atomic<Int>(0)
  func add() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// A one-shot signal tasks can wait for. `wait()` ignores cancellation: it
/// stands for work that does not check for it.
final class Gate: Sendable {
  private enum State {
    case closed([UnsafeContinuation<Void, Never>])
    case open
  }

  private let state = Locked(State.closed([]))

  func wait() async {
    await withUnsafeContinuation { continuation in
      let opened = state.withLock { state in
        guard case .closed(var waiters) = state else { return true }
        waiters.append(continuation)
        state = .closed(waiters)
        return false
      }
      if opened { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      guard case .closed(let waiters) = state else { return [UnsafeContinuation<Void, Never>]() }
      state = .open
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

struct Failure: Error, Equatable {}
