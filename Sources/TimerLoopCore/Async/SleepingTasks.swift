/// How many tasks are suspended in a sleep on one loop, and the tasks waiting
/// for that number to reach a threshold: the hook that lets a test know a task
/// has reached its sleep before it moves virtual time.
///
/// A sleep counts from the moment its timer is scheduled (in the loop's table,
/// or queued in its inbox in order before anything sent later) until it resumes.
final class SleepingTasks: Sendable {
  private struct Watcher {
    var threshold: Int
    var continuation: UnsafeContinuation<Void, Never>
  }

  private struct State {
    var count = 0
    var nextWatcherID: UInt64 = 0
    var watchers: [UInt64: Watcher] = [:]
  }

  private let state = Locked(State())

  var count: Int { state.withLock { $0.count } }

  func increment() {
    let reached = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
      state.count += 1
      let count = state.count
      let reached = state.watchers.filter { $0.value.threshold <= count }
      for id in reached.keys { state.watchers[id] = nil }
      return reached.values.map(\.continuation)
    }
    for continuation in reached { continuation.resume() }
  }

  func decrement() {
    state.withLock { $0.count -= 1 }
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
          if state.count >= threshold { return true }
          state.watchers[id] = Watcher(threshold: threshold, continuation: continuation)
          return false
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
    state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
  }
}
