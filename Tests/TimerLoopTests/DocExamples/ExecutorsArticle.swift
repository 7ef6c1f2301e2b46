// swift-format-ignore-file
// The examples of the article "Actors, tasks and the isolated view"
// (Executors.md), verbatim; DocExamplesAreCompiledTests checks that they
// still match. (Its `Connection` block is IsolatedEventLoop's doc-comment
// example, compiled in SourceDocExamples.swift.)
import TimerLoop

struct ExecutorsArticle {
  actor Session {
    let loop: EpollEventLoop
    private(set) var requests = 0
    private var idleTimer: TimerHandle?
    init(loop: EpollEventLoop) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// A request came in: count it and push the idle timeout five seconds out.
    func touch() throws {
      requests += 1
      if let idleTimer {
        idleTimer.reschedule(after: .seconds(5))   // one timer, moved on every request
      } else {
        idleTimer = try loop.assumeIsolated().schedule(after: .seconds(5)) { self.becameIdle() }
      }
    }

    private func becameIdle() {
      requests = 0
      idleTimer = nil   // it has fired: the next request makes a new one
    }
  }

  /// Tasks that prefer the loop run their jobs on its thread.
  func runOnTheLoop(_ loop: EpollEventLoop) async -> Bool {
    await withTaskExecutorPreference(loop) {
      // Child tasks created here run on the loop too.
    }
    return await Task(executorPreference: loop) { loop.inEventLoop }.value   // true
  }
}
