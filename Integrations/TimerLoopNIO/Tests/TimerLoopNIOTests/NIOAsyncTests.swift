import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import TimerLoop
import TimerLoopNIO

/// The async layer (sleep, timeouts, ticks, clock) on an NIO loop: real time
/// on NIOPosix, NIO's virtual time on `NIOAsyncTestingEventLoop`.
@Suite struct NIOAsyncTests {
  @Test func sleepOnAPosixLoopNeverResumesEarly() async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let timers = group.next().timerLoop
    for _ in 0..<20 {
      let deadline = timers.now + .milliseconds(2)
      try await timers.sleep(until: deadline)
      #expect(timers.now >= deadline)
    }
    try await group.shutdownGracefully()
  }

  @Test func sleepsAndTimeoutsRunOnNIOsVirtualTime() async throws {
    let loop = NIOAsyncTestingEventLoop()
    let timers = loop.timerLoop
    let start = timers.now
    let slept = Task {
      try await timers.sleep(for: .seconds(5))
      return timers.now
    }
    let timedOut = Task {
      try await timers.withTimeout(.seconds(2)) { try await timers.sleep(for: .seconds(60)) }
    }
    await timers.waitForSleepingTasks(atLeast: 3)
    await loop.advanceTime(by: .seconds(2))
    await #expect(throws: TimerLoopError.timedOut) { try await timedOut.value }
    await loop.advanceTime(by: .seconds(3))
    #expect(try await slept.value == start + .seconds(5))
    await loop.shutdownGracefully()
  }

  @Test func clockAndTicksWorkOnNIOsVirtualTime() async throws {
    let loop = NIOAsyncTestingEventLoop()
    let timers = loop.timerLoop
    let clock = timers.clock
    let start = clock.now
    async let ticks: [Deadline] = {
      var seen: [Deadline] = []
      for await tick in timers.ticks(every: .seconds(1)) {
        seen.append(tick)
        if seen.count == 3 { break }
      }
      return seen
    }()
    for _ in 0..<3 {
      await timers.waitForSleepingTasks(atLeast: 1)
      await loop.advanceTime(by: .seconds(1))
    }
    #expect(await ticks == [start + .seconds(1), start + .seconds(2), start + .seconds(3)])
    await loop.shutdownGracefully()
  }
}
