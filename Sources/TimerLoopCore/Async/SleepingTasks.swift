import Synchronization

/// How many tasks are suspended in a sleep on one loop, and the tasks waiting
/// for that number to reach a threshold: the hook that lets a test know a task
/// has reached its sleep before it moves virtual time.
///
/// A sleep counts from the moment its timer is scheduled (in the loop's table,
/// or queued in its inbox in order before anything sent later) until it resumes.
/// The count is an atomic, so that a sleep takes no lock for it while no one
/// waits (every sleep of a loop counts, on every thread); the watchers are under
/// a lock. A count change and a new watcher each write their own atomic and then
/// read the other's, both sequentially consistent, so at least one of the two
/// sees the other: a watcher is never missed.
final class SleepingTasks: Sendable {
  private struct Watcher {
    var threshold: Int
    var continuation: UnsafeContinuation<Void, Never>
  }

  private struct State {
    var nextWatcherID: UInt64 = 0
    var watchers: [UInt64: Watcher] = [:]
  }

  private let sleeping = Atomic<Int>(0)
  /// How many watchers are registered; written under the lock.
  private let watcherCount = Atomic<Int>(0)
  private let state = Locked(State())

  var count: Int { sleeping.load(ordering: .sequentiallyConsistent) }

  func increment() {
    sleeping.add(1, ordering: .sequentiallyConsistent)
    guard watcherCount.load(ordering: .sequentiallyConsistent) > 0 else { return }
    let reached = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
      let count = sleeping.load(ordering: .sequentiallyConsistent)
      let reached = state.watchers.filter { $0.value.threshold <= count }
      for id in reached.keys { remove(id, from: &state) }
      return reached.values.map(\.continuation)
    }
    for continuation in reached { continuation.resume() }
  }

  func decrement() {
    sleeping.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// Returns once `count` is at least `threshold`, or once the calling task is cancelled.
  func wait(atLeast threshold: Int) async {
    let id = state.withLock { state in
      defer { state.nextWatcherID += 1 }
      return state.nextWatcherID
    }
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        let reached = state.withLock { state in
          state.watchers[id] = Watcher(threshold: threshold, continuation: continuation)
          watcherCount.add(1, ordering: .sequentiallyConsistent)
          guard sleeping.load(ordering: .sequentiallyConsistent) >= threshold else { return false }
          remove(id, from: &state)
          return true
        }
        if reached { return continuation.resume() }
        // A cancellation that came before the registration found nothing to resume.
        if Task.isCancelled { resume(id) }
      }
    } onCancel: {
      resume(id)
    }
  }

  /// Resumes watcher `id` if it is still registered; whoever removes it resumes it.
  private func resume(_ id: UInt64) {
    state.withLock { state in
      state.watchers[id] == nil ? nil : remove(id, from: &state)
    }?.continuation.resume()
  }

  /// Takes watcher `id` (registered) out of `state`, keeping `watcherCount` in step. Under the lock.
  @discardableResult
  private func remove(_ id: UInt64, from state: inout State) -> Watcher {
    watcherCount.subtract(1, ordering: .sequentiallyConsistent)
    return state.watchers.removeValue(forKey: id)!
  }
}
