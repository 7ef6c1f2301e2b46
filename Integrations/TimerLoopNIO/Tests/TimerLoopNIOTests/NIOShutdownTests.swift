import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing
import TimerLoop
import TimerLoopNIO

/// An NIO loop that shuts down ends its timer loop as the README's shutdown
/// rows say: pending closures released without running, later calls throw
/// `TimerLoopError.shutdown`, pending sleeps and timeouts throw it.
@Suite struct NIOShutdownTests {
  @Test(arguments: NIOLoopKind.allCases)
  func pendingTimersAreReleasedAndLaterCallsThrow(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    let timers = harness.timers
    let fired = EventLog<String>()
    var canary: Canary? = Canary()
    let watched = WeakReference(canary!)
    let handler = RecordingHandler()
    try harness.onLoop { [canary] in
      try timers.schedule(after: .seconds(3600)) { withExtendedLifetime(canary) { fired.append("timer") } }
      let key = try timers.makeTimer(handler: handler, tag: 1)
      timers.arm(key, after: .seconds(3600))
      // First due in an hour: a pause of this thread before the shutdown
      // cannot let it tick.
      try timers.scheduleRepeating(after: .seconds(3600), every: .seconds(1)) { _ in fired.append("tick") }
    }
    canary = nil
    try harness.shutdown()
    #expect(watched.object == nil)
    #expect(fired.all.isEmpty && handler.tags.all.isEmpty)
    #expect(throws: TimerLoopError.shutdown) { try timers.schedule(after: .zero) {} }
    #expect(throws: TimerLoopError.shutdown) { try timers.execute {} }
    #expect(throws: TimerLoopError.shutdown) { try timers.makeTimer(handler: handler) }
    // The NIO loop's timer loop stays shut down.
    let later = harness.eventLoop.timerLoop
    #expect(throws: TimerLoopError.shutdown) { try later.schedule(after: .zero) {} }
  }

  @Test(arguments: NIOLoopKind.allCases)
  func nothingOfTheTimerLoopOutlivesItsNIOLoop(kind: NIOLoopKind) throws {
    weak var timerLoop: NIOTimerLoop?
    weak var scheduler: TimerScheduler?
    try {
      let harness = NIOLoopHarness(kind)
      let timers = harness.timers
      timerLoop = timers
      scheduler = timers.scheduler
      try harness.onLoop {
        try timers.schedule(after: .seconds(60)) {}
        try timers.scheduleRepeating(after: .seconds(1), every: .seconds(1)) { _ in }
        _ = try timers.makeTimer(handler: RecordingHandler())
      }
      try timers.schedule(after: .seconds(30)) {}  // from this thread too
      try harness.shutdown()
    }()
    #expect(timerLoop == nil)
    #expect(scheduler == nil)
  }

  @Test(arguments: NIOLoopKind.allCases)
  func shutdownFromACallbackStopsThePassAfterIt(kind: NIOLoopKind) throws {
    let harness = NIOLoopHarness(kind)
    defer { try? harness.shutdown() }
    let timers = harness.timers
    let log = EventLog<String>()
    var canary: Canary? = Canary()
    let watched = WeakReference(canary!)
    try harness.onLoop { [canary] in
      let deadline = timers.now + .milliseconds(5)
      try timers.schedule(at: deadline) {
        log.append("first")
        timers.shutdown()
      }
      try timers.schedule(at: deadline) { withExtendedLifetime(canary) { log.append("sibling") } }
    }
    canary = nil
    if kind == .embedded {
      try harness.advance(by: .milliseconds(5))
    } else {
      // No marker timer (the timer loop shuts down): asks the NIO loop, in
      // tasks of its own, which never run inside the pass, until it has run.
      while try harness.onLoop({ log.all.isEmpty }) {}
    }
    #expect(log.all == ["first"])
    try harness.onLoop { #expect(watched.object == nil) }
    #expect(throws: TimerLoopError.shutdown) { try timers.schedule(after: .zero) {} }
  }

  @Test func pendingSleepsAndTimeoutsThrowShutdown() async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let timers = group.next().timerLoop
    let slept = Task { try await timers.sleep(for: .seconds(3600)) }
    let timedOut = Task {
      try await timers.withTimeout(.seconds(3600)) { try await timers.sleep(for: .seconds(7200)) }
    }
    // The sleep, the timeout's deadline and its operation's sleep.
    await timers.waitForSleepingTasks(atLeast: 3)
    try await group.shutdownGracefully()
    await #expect(throws: TimerLoopError.shutdown) { try await slept.value }
    await #expect(throws: TimerLoopError.shutdown) { try await timedOut.value }
    await #expect(throws: TimerLoopError.shutdown) { try await timers.sleep(for: .zero) }
    await #expect(throws: TimerLoopError.shutdown) {
      try await group.next().timerLoop.sleep(for: .zero)
    }
    #expect(timers.sleepingTaskCount == 0)
  }

  @Test func theTimerLoopAloneShutsDownAndTheNIOLoopGetsANewOne() throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let timers = loop.timerLoop
    #expect(loop.timerLoop === timers)
    var canary: Canary? = Canary()
    let watched = WeakReference(canary!)
    try timers.schedule(after: .seconds(3600)) { [canary] in withExtendedLifetime(canary) {} }
    canary = nil
    timers.shutdown()
    #expect(throws: TimerLoopError.shutdown) { try timers.schedule(after: .zero) {} }
    // The closure goes on the loop's thread, in a task queued before this one.
    try loop.submit { #expect(watched.object == nil) }.wait()
    let next = loop.timerLoop
    #expect(next !== timers)
    let fired = try loop.submit { () -> EventLoopFuture<Void> in
      let promise = loop.makePromise(of: Void.self)
      try next.schedule(after: .milliseconds(1)) { promise.succeed() }
      return promise.futureResult
    }.wait()
    try fired.wait()
  }
}
