import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TickSequence``: a fixed-rate grid, each ``MissedTickBehavior`` for a slow
/// consumer, and the end of iteration on cancellation and shutdown.
@Suite(.timeLimit(.minutes(1))) struct TickTests {
  /// One received tick: its grid point and the loop's time when the consumer
  /// got it, in milliseconds from the start.
  struct Received: Equatable, CustomStringConvertible {
    var tick: Int64
    var at: Int64
    var description: String { "\(tick)@\(at)" }
  }

  /// Iterates `loop.ticks(every: 10 ms, policy:)` until cancelled, busy from
  /// the first tick until the loop reads 45 ms; returns what it received.
  private func slowConsumer(_ policy: MissedTickBehavior) async -> [Received] {
    let loop = VirtualEventLoop()
    let start = loop.now
    let gotFirst = Gate()
    let busy = Gate()
    let received = EventLog<Received>()
    let consumer = Task {
      for await tick in loop.ticks(every: .milliseconds(10), missedTicks: policy) {
        received.append(
          Received(
            tick: (tick - start).wholeNanoseconds / 1_000_000,
            at: (loop.now - start).wholeNanoseconds / 1_000_000))
        if received.all.count == 1 {
          gotFirst.open()
          await busy.wait()
        }
      }
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(10))
    await gotFirst.wait()
    loop.advanceTime(to: start + .milliseconds(45))
    busy.open()
    // One millisecond at a time, each once the consumer sleeps again.
    while received.all.count < 6 {
      await loop.waitForSleepingTasks(atLeast: 1)
      loop.advanceTime(by: .milliseconds(1))
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    consumer.cancel()
    await consumer.value
    loop.run()
    #expect(loop.liveTimerCount == 0, "the cancelled iteration left its timer")
    return received.all
  }

  @Test func burstDeliversEveryMissedTickThenKeepsTheGrid() async {
    let received = await slowConsumer(.burst)
    #expect(received.map(\.tick) == [10, 20, 30, 40, 50, 60])
    #expect(received.map(\.at) == [10, 45, 45, 45, 50, 60])
  }

  @Test func skipDeliversOneMissedTickThenTheNextGridPoint() async {
    let received = await slowConsumer(.skip)
    #expect(received.map(\.tick) == [10, 20, 50, 60, 70, 80])
    #expect(received.map(\.at) == [10, 45, 50, 60, 70, 80])
  }

  @Test func delayDeliversOneMissedTickThenStartsANewGrid() async {
    let received = await slowConsumer(.delay)
    #expect(received.map(\.tick) == [10, 20, 55, 65, 75, 85])
    #expect(received.map(\.at) == [10, 45, 55, 65, 75, 85])
  }

  @Test func anOnTimeConsumerGetsTheGridNeverEarly() async {
    let loop = VirtualEventLoop()
    // A cancel from the consumer's thread waits in the inbox for a pass that
    // never comes; the pending sleep's timer holds the loop until shutdown.
    defer { loop.shutdown() }
    let start = loop.now
    let ticks = EventLog<Deadline>()
    let consumer = Task {
      for await tick in loop.ticks(every: Duration.milliseconds(7)) {
        #expect(loop.now >= tick)
        ticks.append(tick)
      }
    }
    for _ in 0..<5 {
      await loop.waitForSleepingTasks(atLeast: 1)
      loop.advanceTime(by: .nanoseconds(6_999_999))
      #expect(loop.sleepingTaskCount == 1, "ticked early")
      loop.advanceTime(by: .nanoseconds(1))
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    consumer.cancel()
    await consumer.value
    #expect(ticks.all == (1...5).map { start + .milliseconds(7 * $0) })
  }

  @Test func toleranceDelaysDeliveryButYieldsTheGridPoint() async {
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 30))
    let consumer = Task {
      var iterator = loop.ticks(every: .milliseconds(1), tolerance: .milliseconds(10))
        .makeAsyncIterator()
      let tick = await iterator.next()
      return (tick, loop.now)
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    // 1 ms from 2^30 ns is delivered on the 2^23 ns grid of the 10 ms tolerance.
    loop.advanceTime(to: Deadline(uptimeNanoseconds: (1 << 30) + (1 << 23)))
    let (tick, deliveredAt) = await consumer.value
    #expect(tick == Deadline(uptimeNanoseconds: (1 << 30) + 1_000_000))
    #expect(deliveredAt == Deadline(uptimeNanoseconds: (1 << 30) + (1 << 23)))
  }

  @Test func aZeroIntervalIsRaisedToATenthOfAMillisecond() async {
    let loop = VirtualEventLoop()
    let start = loop.now
    let consumer = Task {
      var iterator = loop.ticks(every: .zero, missedTicks: .burst).makeAsyncIterator()
      var ticks: [Deadline] = []
      for _ in 0..<3 { ticks.append(await iterator.next()!) }
      return ticks
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.stall(for: .milliseconds(1))  // the three ticks are due: burst delivers them at once
    loop.run()
    #expect(await consumer.value == [1, 2, 3].map { start + .microseconds(100 * $0) })
  }

  @Test func aHugeIntervalNeverTicks() async {
    let loop = VirtualEventLoop()
    let consumer = Task {
      for await _ in loop.ticks(every: Duration.seconds(Int64.max)) { return true }
      return false
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .seconds(86_400 * 365))
    #expect(loop.sleepingTaskCount == 1)
    consumer.cancel()
    #expect(await consumer.value == false)
  }

  @Test func cancellingTheConsumerEndsIterationAndCancelsTheTimerOnARealLoop() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    let before = try liveTimers(loop)
    let consumer = Task {
      var count = 0
      for await _ in loop.ticks(every: .seconds(3_600)) { count += 1 }
      return count
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    #expect(try liveTimers(loop) == before + 1)
    consumer.cancel()
    #expect(await consumer.value == 0)
    #expect(try liveTimers(loop) == before)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsIteration(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    weak var canary: Canary?
    let consumer: Task<Int, Never>
    do {
      let captured = Canary()
      canary = captured
      consumer = Task {
        var count = 0
        for await _ in loop.ticks(every: .seconds(3_600)) { count += 1 }
        withExtendedLifetime(captured) {}
        return count
      }
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.shutdown()
    if let virtual = loop as? VirtualEventLoop { virtual.run() }  // releases on its loop thread
    #expect(await consumer.value == 0)
    #expect(canary == nil)
    var iterator = loop.ticks(every: .milliseconds(1)).makeAsyncIterator()
    let afterShutdown = await iterator.next()
    #expect(afterShutdown == nil)
  }

  @Test func skipFindsTheNextGridPointAndSaturates() {
    typealias Iterator = TickSequence.Iterator
    let origin = Deadline(uptimeNanoseconds: 100)
    #expect(
      Iterator.firstGridPoint(after: origin, from: origin, every: .nanoseconds(10))
        == Deadline(uptimeNanoseconds: 110))
    #expect(
      Iterator.firstGridPoint(
        after: Deadline(uptimeNanoseconds: 135), from: origin, every: .nanoseconds(10))
        == Deadline(uptimeNanoseconds: 140))
    #expect(
      Iterator.firstGridPoint(
        after: Deadline(uptimeNanoseconds: .max - 1), from: origin, every: .seconds(1))
        == .distantFuture)
  }

  /// A first grid point before iteration began, under `.burst`: the ticks
  /// before then were not missed, so iteration starts at the last grid point
  /// not after now. It started at `first` and yielded every point since at
  /// once, without suspending: from ``Deadline/distantPast`` on a machine up
  /// 30 days, 2.6 × 10^9 ticks of 1 ms, a consumer spinning for days.
  @Test func aBurstSequenceStartingInThePastBeginsAtItsLastGridPoint() async {
    let up30Days = Deadline.distantPast + .seconds(30 * 86_400)
    let loop = VirtualEventLoop(start: up30Days + .microseconds(500))
    defer { loop.shutdown() }
    var longAgo = loop.ticks(startingAt: .distantPast, every: .milliseconds(1), missedTicks: .burst)
      .makeAsyncIterator()
    #expect(await longAgo.next() == up30Days)
    var recently = loop.ticks(
      startingAt: loop.now - .milliseconds(35), every: .milliseconds(10), missedTicks: .burst
    ).makeAsyncIterator()
    #expect(await recently.next() == loop.now - .milliseconds(5))
  }

  /// A burst sequence every 0.1 ms whose consumer is away for a year owed
  /// about 3 × 10^11 ticks, each yielded at once: a consumer that never
  /// suspended. After the late tick it yields the last
  /// ``MissedTickBehavior/burstBacklogLimit`` grid points, then waits for
  /// the grid again.
  @Test func aBurstSequenceAfterAYearAwayYieldsABoundedBacklog() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let interval = TimeAmount.microseconds(100)
    let year = TimeAmount.seconds(365 * 86_400)
    var ticks = loop.ticks(startingAt: start, every: .microseconds(100), missedTicks: .burst)
      .makeAsyncIterator()
    #expect(await ticks.next() == start)
    loop.stall(for: .seconds(365 * 86_400))
    #expect(await ticks.next() == start + interval)
    var backlog: [Deadline] = []
    for _ in 0..<MissedTickBehavior.burstBacklogLimit { backlog.append(await ticks.next()!) }
    let dropped = TimeAmount.microseconds(100 * Int64(MissedTickBehavior.burstBacklogLimit - 1))
    #expect(backlog.first == start + year - dropped)
    #expect(backlog.last == start + year)
  }
}
