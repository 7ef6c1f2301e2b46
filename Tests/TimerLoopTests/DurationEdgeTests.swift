import Testing
import TimerLoop

/// The public API takes Swift's `Duration` and converts it once, rounding up:
/// every `after:` form puts a delay finer than a nanosecond on the next
/// nanosecond, never before it.
@Suite struct DurationEdgeTests {
  private let halfANanosecond = Duration.nanoseconds(1) / 2

  @Test func everyAfterFormRoundsASubNanosecondDelayUp() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = EventLog<String>()
    let handler = Recorder(log: fired)
    try loop.schedule(after: halfANanosecond) { fired.append("schedule") }
    try loop.schedule(after: halfANanosecond, handler: handler, tag: 1)
    let key = try loop.makeTimer(handler: handler, tag: 2)
    loop.arm(key, after: halfANanosecond)
    let moved = try loop.schedule(after: .seconds(1)) { fired.append("reschedule") }
    moved.reschedule(after: halfANanosecond)
    try loop.scheduleRepeating(after: halfANanosecond, every: .seconds(1)) {
      $0.cancel()
      fired.append("repeating")
    }
    try loop.assumeIsolated().schedule(after: halfANanosecond) { fired.append("isolated") }
    loop.run()
    #expect(fired.all.isEmpty, "early: \(fired.all)")
    loop.advanceTime(by: halfANanosecond)
    #expect(loop.now == start + .nanoseconds(1))
    #expect(
      fired.all == ["schedule", "handler 1", "handler 2", "reschedule", "repeating", "isolated"])
  }

  @Test func deadlineArithmeticRoundsTheDeadlineUpBothWays() {
    let origin = Deadline(uptimeNanoseconds: 1_000)
    #expect(origin + halfANanosecond == Deadline(uptimeNanoseconds: 1_001))
    #expect(origin - halfANanosecond == origin)
    #expect(origin - (.nanoseconds(2) + halfANanosecond) == Deadline(uptimeNanoseconds: 998))
    #expect(halfANanosecond + origin == origin + halfANanosecond)
    #expect(origin.advanced(by: halfANanosecond) == origin + halfANanosecond)
  }

  @Test func theLeewayIsAWholeNumberOfNanosecondsClampedToOneSecond() throws {
    for (asked, kept) in [
      (halfANanosecond, Duration.nanoseconds(1)), (.seconds(-1), .zero), (.seconds(5), .seconds(1)),
      (Duration.max, .seconds(1)),
    ] {
      let loop = try EpollEventLoop(leeway: asked)
      #expect(loop.leeway == kept)
      loop.shutdown()
    }
    #expect(EpollEventLoop.defaultLeeway == .microseconds(150))
  }
}

/// A handler that logs its tags.
private final class Recorder: TimerHandler {
  let log: EventLog<String>
  init(log: EventLog<String>) { self.log = log }
  func timerFired(tag: UInt64) { log.append("handler \(tag)") }
}
