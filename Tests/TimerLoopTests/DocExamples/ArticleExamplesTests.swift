import Testing
import TimerLoop

/// Runs the articles' examples and checks what they say they do.
@Suite struct ArticleExamplesTests {
  @Test func theMissedTickBehaviorDiagramIsWhatTheLoopDoes() throws {
    #expect(try fireTimes(.skip) == [0, 10, 35, 40, 50])
    #expect(try fireTimes(.burst) == [0, 10, 35, 35, 40, 50])
    #expect(try fireTimes(.delay) == [0, 10, 35, 45, 55])
  }

  @Test func aHostLoopOnPollFiresTheTimersOnItsThread() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let fired = Locked(false)
    try loop.schedule(after: .milliseconds(20)) { fired.withLock { $0 = true } }
    try runHostLoop(loop) { !fired.withLock { $0 } }
    #expect(fired.withLock { $0 })
  }

  @Test func thePollTimeoutFollowsTheNextDeadline() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    #expect(pollTimeout(for: loop) == -1)
    let before = loop.now
    try loop.schedule(after: .seconds(60)) {}
    try loop.runOnce()
    let timeout = pollTimeout(for: loop)
    // 60 s from the schedule call, less the time since, however long it was.
    let elapsed = loop.now - before
    #expect(
      timeout <= 60_000 && .milliseconds(Int64(timeout)) >= .seconds(60) - elapsed, "\(timeout)")
  }

  @Test(.timeLimit(.minutes(1)))
  func theRetryExampleRetriesOnceVirtualTimePassesItsPause() async throws {
    try await AsyncAwaitArticle().onVirtualTime()
  }

  @Test(.timeLimit(.minutes(1)), arguments: [0, 1, 16, 17, 1_000])
  func theNestedGroupsRunEveryIndexOnceAndWaitForAll(count: Int) async {
    let runs = Locked([Int](repeating: 0, count: count))
    await AsyncAwaitArticle().forEachConcurrently(count, width: 16) { i in
      await Task.yield()
      runs.withLock { $0[i] += 1 }
    }
    #expect(runs.withLock { $0 } == [Int](repeating: 1, count: count))
  }
}
