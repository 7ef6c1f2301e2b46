import NIOCore
import NIOEmbedded
import Testing
import TimerLoop

@testable import TimerLoopNIO

/// The one NIO callback is re-armed only when the wheel's earliest deadline
/// moves earlier: idle-timeout traffic, which pushes deadlines later, costs
/// NIO nothing.
@Suite struct NIOArmingTests {
  @Test func theCallbackMovesOnlyForEarlierDeadlines() throws {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    let driver = timers.driver
    loop.run()  // the first pass: the callback stands at distantFuture
    #expect(driver.testsOnly_callbacksScheduled == 1)
    let log = EventLog<String>()
    let ten = try timers.schedule(after: .milliseconds(10)) { log.append("10") }
    #expect(driver.testsOnly_callbacksScheduled == 2)
    try timers.schedule(after: .milliseconds(20)) { log.append("20") }
    try timers.schedule(after: .milliseconds(30)) { log.append("30") }
    #expect(driver.testsOnly_callbacksScheduled == 2)

    // A handler timer pushed later on every "read": no callback at all.
    let handler = RecordingHandler()
    let idle = try timers.makeTimer(handler: handler)
    for read in 1...1_000 { timers.arm(idle, at: timers.now + .seconds(30) + .nanoseconds(Int64(read))) }
    #expect(driver.testsOnly_callbacksScheduled == 2)

    try timers.schedule(after: .milliseconds(5)) { log.append("5") }
    #expect(driver.testsOnly_callbacksScheduled == 3)
    // Cancelling the earliest leaves the callback early: it runs an empty
    // pass at 5 ms and moves on to 10 ms then.
    ten.cancel()
    loop.advanceTime(by: .milliseconds(5))
    #expect(log.all == ["5"])
    loop.advanceTime(by: .milliseconds(25))
    #expect(log.all == ["5", "20", "30"])
    timers.invalidate(idle)
  }

  @Test func aTaskFromTheLoopThreadRunsInTheLoopsNextRun() throws {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let timers = loop.timerLoop
    loop.run()
    let log = EventLog<String>()
    try timers.execute { log.append("task") }
    #expect(log.all.isEmpty)
    loop.run()
    #expect(log.all == ["task"])
  }
}
