import Dispatch
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// State that lives on the loop thread and is not `Sendable`.
final class LoopLocalTally {
  var events: [String] = []
}

extension PinnedCounter {
  /// Schedules, from the actor, a timer whose callback touches the actor's
  /// state directly: the view accepts the actor-isolated closure because the
  /// actor's executor is the loop.
  func incrementLater(by delay: Duration) throws {
    try loop.assumeIsolated().schedule(after: delay) { self.increment() }
  }
}

/// ``IsolatedEventLoop``: closures that are not `@Sendable`, on the loop's thread.
@Suite("Isolated view")
struct IsolatedEventLoopTests {
  /// Non-Sendable state is captured by timers of every kind and shared with
  /// the caller, with the usual timing.
  @Test func viewTakesNonSendableClosures() throws {
    let loop = VirtualEventLoop()
    let view = loop.assumeIsolated()
    let tally = LoopLocalTally()
    try view.execute { tally.events.append("task") }
    try view.schedule(after: .milliseconds(2)) { tally.events.append("2 ms") }
    try view.schedule(after: Duration.milliseconds(1)) { tally.events.append("1 ms") }
    try view.schedule(at: loop.now + .milliseconds(3)) { tally.events.append("3 ms") }
    var ticks = 0
    try view.scheduleRepeating(after: .milliseconds(1), every: .milliseconds(1)) { handle in
      ticks += 1
      if ticks == 3 { handle.cancel() }
    }
    loop.advanceTime(by: .milliseconds(10))
    #expect(tally.events == ["task", "1 ms", "2 ms", "3 ms"])
    #expect(ticks == 3)
    #expect(loop.liveTimerCount == 0)
    #expect(view.loop === loop)
  }

  /// From a callback of a real loop, where code already runs on the loop's thread.
  @Test func viewWorksInCallbacksOfARealLoop() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "iso-view")
    defer { loop.shutdown() }
    let done = DispatchSemaphore(value: 0)
    let count = try onLoop(loop) { () -> Int in
      let tally = LoopLocalTally()
      let view = loop.assumeIsolated()
      try view.schedule(after: .milliseconds(1)) {
        tally.events.append("fired")
        done.signal()
      }
      return tally.events.count
    }
    #expect(count == 0)
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
  }

  /// An actor pinned to the loop hands actor-isolated closures to the view.
  @Test func pinnedActorSchedulesIsolatedClosures() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "iso-actor")
    defer { loop.shutdown() }
    let counter = PinnedCounter(loop: loop)
    try await counter.incrementLater(by: .milliseconds(1))
    // A marker timer due after it, scheduled from the loop, resumes the test.
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      _ = try? loop.schedule(after: .milliseconds(5)) { done.resume() }
    }
    #expect(await counter.value == 1)
    #expect(await counter.offLoop == 0)
  }

  /// The check behind the view's precondition: the loop's own thread passes,
  /// any other thread gets a message saying what went wrong.
  @Test func offTheLoopThreadTheCheckFails() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "iso-check")
    defer { loop.shutdown() }
    let message = try #require(IsolationCheck.violation(of: loop))
    #expect(message.contains("must run on the thread of its EpollEventLoop"))
    #expect(try onLoop(loop) { IsolationCheck.violation(of: loop) } == nil)
    let virtual = VirtualEventLoop()
    #expect(IsolationCheck.violation(of: virtual) == nil)
    let otherThread = DispatchSemaphore(value: 0)
    let seen = Locked<String?>(nil)
    DispatchQueue.global().async {
      seen.withLock { $0 = IsolationCheck.violation(of: virtual) }
      otherThread.signal()
    }
    #expect(otherThread.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(seen.withLock { $0 }?.contains("VirtualEventLoop") == true)
  }
}
