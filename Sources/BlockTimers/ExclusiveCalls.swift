import Glibc
import Synchronization
import TimerLoop

/// Makes the calls of one block one at a time across threads, as
/// ``BlockTimer`` promises, while a call made from inside the block itself
/// (a `fire()` in the block) runs nested on its own thread instead of
/// deadlocking, as Apple's `fire()` calls the block re-entrantly.
struct ExclusiveCalls: ~Copyable, Sendable {
  /// Held for the duration of a call.
  private let lock = Locked(())
  /// `pthread_self()` of the thread making a call, 0 when none is. Only that
  /// thread stores its own id, so a thread that reads its own id is inside a call.
  private let caller = Atomic<UInt>(0)

  /// Runs `body` unless a call is running on another thread; returns whether
  /// it ran. Never waits, so the loop's thread is never held up by a call on
  /// another thread.
  func runUnlessBusy(_ body: () -> Void) -> Bool {
    if isNested {
      body()
      return true
    }
    return lock.withLockIfAvailable { _ in exclusively(body) } != nil
  }

  /// Runs `body`, first waiting for a call running on another thread to return.
  func run(_ body: () -> Void) {
    if isNested { return body() }
    lock.withLock { _ in exclusively(body) }
  }

  private var isNested: Bool { caller.load(ordering: .relaxed) == pthread_self() }

  private func exclusively(_ body: () -> Void) {
    caller.store(pthread_self(), ordering: .relaxed)
    defer { caller.store(0, ordering: .relaxed) }
    body()
  }
}
