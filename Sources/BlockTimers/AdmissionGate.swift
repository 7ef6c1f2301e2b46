import Glibc
import Synchronization

/// Closes the gap between deciding to make a call and making it.
///
/// ``Debouncer``, ``Throttler`` and ``CountdownTimer`` decide under their lock
/// that a callback may run, then run it after unlocking (a callback may call
/// back in). A stop request (`cancel()`, `flush()`, `suspend()`) from another
/// thread can land in
/// between, and must not return while a call it should have stopped is still
/// about to start. So a call is *admitted* under the lock and *started* just
/// before it runs, with nothing but a few instructions in between; the stopper,
/// having marked the object stopped under the same lock, waits until no
/// admitted call is left unstarted. The core's `TimerHandle.cancel()` keeps the
/// same promise for its own callbacks.
struct AdmissionGate: ~Copyable, Sendable {
  private let unstarted = Atomic<Int>(0)

  /// Records a call about to be made. Call with the owner's lock held.
  func admit() {
    unstarted.add(1, ordering: .sequentiallyConsistent)
  }

  /// Marks an admitted call as started. Call right before making it.
  func start() {
    unstarted.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// Waits until every call admitted before now has started. Call after
  /// marking the owner stopped under its lock, never with the lock held.
  func waitForAdmittedCalls() {
    var spins = 0
    while unstarted.load(ordering: .sequentiallyConsistent) > 0 {
      spins += 1
      if spins % 64 == 0 { sched_yield() }  // the admitting thread was preempted
    }
  }
}
