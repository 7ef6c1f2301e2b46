import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The virtual-time example of the AsyncAwait article (once the README's), as written there.
@Suite(.timeLimit(.minutes(1))) struct ReadmeAsyncTests {
  @Test func theVirtualTimeExampleResumesTheSleepingTask() async throws {
    let attempts = Tally()
    func retry(on clock: some Clock<Duration>) async throws {
      attempts.add()
      try await clock.sleep(for: .milliseconds(100))
      attempts.add()
    }

    let loop = VirtualEventLoop()
    let worker = Task { try await retry(on: loop.clock) }  // sleeps 100 ms between attempts
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(100))  // the sleeping task resumes

    try await worker.value
    #expect(attempts.count == 2)
  }
}
