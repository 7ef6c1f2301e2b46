// swift-format-ignore-file
// The examples of the article "Sleeping, timeouts and ticks in async code"
// (AsyncAwait.md), verbatim; DocExamplesAreCompiledTests checks that they
// still match, and AsyncAwaitArticleTests runs the virtual-time one.
import TimerLoop

struct AsyncAwaitArticle {
  final class Session {  // not Sendable
    var requestsSent = 0
  }

  actor Connection {
    let loop: EpollEventLoop
    let session = Session()

    init(loop: EpollEventLoop) { self.loop = loop }

    func ping() async throws -> Int {
      try await loop.withTimeout(.seconds(2)) {  // runs on this actor
        session.requestsSent += 1                // its own state at hand
        try await loop.sleep(for: .milliseconds(10))
        return session.requestsSent
      }
    }
  }

  struct Page: Sendable {
    var body: String
  }

  /// Waits a quarter of a second, fetches a page with a two-second limit,
  /// then reports once a second until the calling task is cancelled.
  func refresh(
    on loop: EpollEventLoop, fetch: @escaping @Sendable () async throws -> Page
  ) async throws {
    try await loop.sleep(for: .milliseconds(250))

    let page = try await loop.withTimeout(.seconds(2)) {   // throws TimerLoopError.timedOut
      try await fetch()                                    // cancelled at the deadline
    }
    print("fetched", page.body)

    for await tick in loop.ticks(every: .seconds(1)) {     // Deadlines on a fixed-rate grid
      print("tick at", tick)                               // ends when this task is cancelled
    }
  }

  /// Generic code on any clock: calls `attempt` until it succeeds, pausing
  /// 100 ms after the first failure and twice as long after each later one.
  func retry<C: Clock<Duration>>(
    on clock: C, attempts: Int = 5, _ attempt: () async throws -> Void
  ) async throws {
    var pause = Duration.milliseconds(100)
    for _ in 1..<attempts {
      do {
        return try await attempt()
      } catch {
        try await clock.sleep(for: pause)
        pause *= 2
      }
    }
    try await attempt()
  }

  /// On virtual time.
  func onVirtualTime() async throws {
    let loop = VirtualEventLoop()
    let worker = Task {
      var failuresLeft = 1
      try await retry(on: loop.clock) {   // fails once, then succeeds
        if failuresLeft > 0 {
          failuresLeft -= 1
          throw TimerLoopError.timedOut
        }
      }
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(100))   // the sleeping task resumes and retries
    try await worker.value
  }
}

// The section "Many sleeping tasks".
extension AsyncAwaitArticle {
  /// Runs `body(i)` for every `i` in `0..<count` in child tasks, in groups of at
  /// most `width` children, and returns when every one has ended.
  func forEachConcurrently(
    _ count: Int, width: Int = 256, _ body: @escaping @Sendable (Int) async -> Void
  ) async {
    await withDiscardingTaskGroup { groups in
      for first in stride(from: 0, to: count, by: width) {
        groups.addTask {
          await withDiscardingTaskGroup { children in
            for i in first..<min(first + width, count) {
              children.addTask { await body(i) }
            }
          }
        }
      }
    }
  }
}
