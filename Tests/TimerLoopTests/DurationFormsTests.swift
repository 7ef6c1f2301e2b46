import Testing
import TimerLoop

/// Every API that takes a `TimeAmount` takes the same expression written as a
/// `TimeAmount` or as a `Duration`: `.milliseconds(100) * 2` compiles against
/// each (this file would not build otherwise) and means 200 ms.
@Suite struct DurationFormsTests {
  private let twoHundredMs = TimeAmount.milliseconds(200)

  @Test func arithmeticOnBothTypesSpellsTheSameAmount() {
    let amount: TimeAmount = .milliseconds(100) * 2
    let duration: Duration = .milliseconds(100) * 2
    #expect(amount == twoHundredMs)
    #expect(TimeAmount(duration) == twoHundredMs)
    #expect(amount / 2 + .minutes(1) - .hours(0) == .milliseconds(60_100))
  }

  @Test func oneShotsAndRescheduling() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = FireLog()
    try loop.schedule(after: .milliseconds(100) * 2) { fired.add(loop.now - start) }
    try loop.schedule(after: Duration.milliseconds(100) * 2) { fired.add(loop.now - start) }
    try loop.schedule(at: loop.now + .milliseconds(100) * 2) { fired.add(loop.now - start) }
    try loop.schedule(at: loop.now + Duration.milliseconds(100) * 2) { fired.add(loop.now - start) }
    let moved = try loop.schedule(after: .seconds(1)) { fired.add(loop.now - start) }
    moved.reschedule(after: .milliseconds(100) * 2)
    let movedByDuration = try loop.schedule(after: .seconds(1)) { fired.add(loop.now - start) }
    movedByDuration.reschedule(after: Duration.milliseconds(100) * 2)
    loop.advanceTime(by: .milliseconds(100) * 2)
    #expect(fired.amounts == Array(repeating: twoHundredMs, count: 6))
  }

  @Test func repeatingTimers() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = FireLog()
    try loop.scheduleRepeating(after: .milliseconds(100) * 2, every: .milliseconds(100) * 2) {
      _ in fired.add(loop.now - start)
    }
    try loop.scheduleRepeating(
      after: Duration.milliseconds(100) * 2, every: Duration.milliseconds(100) * 2
    ) { _ in fired.add(loop.now - start) }
    try loop.scheduleRepeating(
      firstAt: start + .milliseconds(100) * 2, every: .milliseconds(100) * 2
    ) { _ in fired.add(loop.now - start) }
    try loop.scheduleRepeating(
      firstAt: start + Duration.milliseconds(100) * 2, every: Duration.milliseconds(100) * 2
    ) { _ in fired.add(loop.now - start) }
    loop.advanceTime(by: Duration.milliseconds(100) * 4)
    #expect(
      fired.amounts
        == Array(repeating: twoHundredMs, count: 4) + Array(repeating: twoHundredMs * 2, count: 4))
  }

  @Test func theIsolatedView() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = FireLog()
    let isolated = loop.assumeIsolated()
    try isolated.schedule(after: .milliseconds(100) * 2) { fired.add(loop.now - start) }
    try isolated.schedule(after: Duration.milliseconds(100) * 2) { fired.add(loop.now - start) }
    try isolated.scheduleRepeating(after: .milliseconds(100) * 2, every: .milliseconds(100) * 2) {
      $0.cancel()
      fired.add(loop.now - start)
    }
    try isolated.scheduleRepeating(
      after: Duration.milliseconds(100) * 2, every: Duration.milliseconds(100) * 2
    ) {
      $0.cancel()
      fired.add(loop.now - start)
    }
    try isolated.scheduleRepeating(
      firstAt: start + .milliseconds(100) * 2, every: .milliseconds(100) * 2
    ) {
      $0.cancel()
      fired.add(loop.now - start)
    }
    try isolated.scheduleRepeating(
      firstAt: start + Duration.milliseconds(100) * 2, every: Duration.milliseconds(100) * 2
    ) {
      $0.cancel()
      fired.add(loop.now - start)
    }
    loop.advanceTime(by: .seconds(1))
    #expect(fired.amounts == Array(repeating: twoHundredMs, count: 6))
  }

  @Test func handlerTimers() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let handler = TagLog(loop: loop, start: start)
    try loop.schedule(after: .milliseconds(100) * 2, handler: handler, tag: 1)
    try loop.schedule(after: Duration.milliseconds(100) * 2, handler: handler, tag: 2)
    let kept = try loop.makeTimer(handler: handler, tag: 3)
    loop.arm(kept, after: .milliseconds(100) * 2)
    let keptForDuration = try loop.makeTimer(handler: handler, tag: 4)
    loop.arm(keptForDuration, after: Duration.milliseconds(100) * 2)
    loop.advanceTime(by: .milliseconds(100) * 2)
    #expect(handler.fired.amounts == Array(repeating: twoHundredMs, count: 4))
  }

  @Test func virtualClockMoves() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    loop.advanceTime(by: .milliseconds(100) * 2)
    loop.advanceTime(by: Duration.milliseconds(100) * 2)
    loop.stall(for: .milliseconds(100) * 2)
    loop.stall(for: Duration.milliseconds(100) * 2)
    #expect(loop.now - start == twoHundredMs * 4)
  }

  @Test func leewayOfRealLoopsAndGroups() throws {
    let loops = [
      try EpollEventLoop(leeway: .milliseconds(100) * 2),
      try EpollEventLoop(leeway: Duration.milliseconds(100) * 2),
      try EpollEventLoop.startOnNewThread(leeway: .milliseconds(100) * 2),
      try EpollEventLoop.startOnNewThread(name: "duration", leeway: Duration.milliseconds(100) * 2),
      try EpollEventLoop(leeway: Duration.milliseconds(100) * 2, metricsDelegate: nil),
      try EpollEventLoop.startOnNewThread(
        leeway: Duration.milliseconds(100) * 2, metricsDelegate: nil),
    ]
    for loop in loops {
      #expect(loop.leeway == twoHundredMs)
      loop.shutdown()
    }
    for group in [
      try EpollEventLoopGroup(count: 1, leeway: .milliseconds(100) * 2),
      try EpollEventLoopGroup(count: 1, leeway: Duration.milliseconds(100) * 2),
    ] {
      #expect(group.loops.map(\.leeway) == [twoHundredMs])
      group.shutdown()
    }
  }
}

/// A handler that records when each timer fired.
private final class TagLog: TimerHandler {
  let fired = FireLog()
  let loop: VirtualEventLoop
  let start: Deadline
  init(loop: VirtualEventLoop, start: Deadline) {
    self.loop = loop
    self.start = start
  }
  func timerFired(tag: UInt64) { fired.add(loop.now - start) }
}

/// The loop times at which callbacks ran, in order.
private final class FireLog: Sendable {
  private let log = Locked<[TimeAmount]>([])
  var amounts: [TimeAmount] { log.withLock { $0 } }
  func add(_ amount: TimeAmount) { log.withLock { $0.append(amount) } }
}
