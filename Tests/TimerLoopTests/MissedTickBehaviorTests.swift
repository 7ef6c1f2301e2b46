import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Repeating timers' missed-tick behaviors on virtual time, where a stalled
/// loop can be staged exactly.
@Suite struct MissedTickBehaviorTests {
  /// Offsets from `start` at which a repeating timer fired, in milliseconds.
  private func firings(
    missedTicks: MissedTickBehavior, interval: Duration = .milliseconds(10),
    stallAtFiring stallIndex: Int? = nil, stall: Duration = .zero, until end: Duration
  ) throws -> [Double] {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let log = EventLog<Double>()
    try loop.scheduleRepeating(after: interval, every: interval, missedTicks: missedTicks) { _ in
      log.append(Double((loop.now - start).wholeNanoseconds) / 1e6)
      if log.all.count == stallIndex { loop.stall(for: stall) }
    }
    loop.advanceTime(by: end)
    return log.all
  }

  @Test func skipStaysOnItsGrid() throws {
    #expect(try firings(missedTicks: .skip, until: .milliseconds(50)) == [10, 20, 30, 40, 50])
  }

  @Test func skipFiresOnceForMissedTicksThenReturnsToTheGrid() throws {
    // The second firing (at 20 ms) keeps the loop busy for 25 ms: the ticks at 30
    // and 40 ms are missed. Apple's Timer fires once, late, then at 50 ms.
    let fired = try firings(
      missedTicks: .skip, stallAtFiring: 2, stall: .milliseconds(25), until: .milliseconds(70))
    #expect(fired == [10, 20, 45, 50, 60, 70])
  }

  @Test func delayCountsTheIntervalFromWhenTheCallbackReturned() throws {
    let fired = try firings(
      missedTicks: .delay, stallAtFiring: 2, stall: .milliseconds(25), until: .milliseconds(70))
    // Second callback returns at 45 ms; the next one is due at 55 ms, then 65 ms.
    #expect(fired == [10, 20, 55, 65])
  }

  @Test func burstStaysOnItsGrid() throws {
    #expect(try firings(missedTicks: .burst, until: .milliseconds(50)) == [10, 20, 30, 40, 50])
  }

  @Test func burstDeliversEveryMissedTickThenReturnsToTheGrid() throws {
    // The second firing (at 20 ms) keeps the loop busy for 25 ms: the ticks at
    // 30 and 40 ms are missed, and each gets its call at 45 ms (tokio's Burst).
    let fired = try firings(
      missedTicks: .burst, stallAtFiring: 2, stall: .milliseconds(25), until: .milliseconds(70))
    #expect(fired == [10, 20, 45, 45, 50, 60, 70])
  }

  /// One missed tick per pass: a task the callback adds (tasks run first in
  /// the next pass) runs between two missed ticks' calls.
  @Test func burstDeliversOneMissedTickPerPass() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let log = EventLog<String>()
    try loop.scheduleRepeating(after: .milliseconds(10), every: .milliseconds(10), missedTicks: .burst) {
      _ in
      log.append("tick")
      try? loop.execute { log.append("next pass") }
    }
    loop.stall(for: .milliseconds(30))
    loop.run()
    #expect(log.all == ["tick", "next pass", "tick", "next pass", "tick", "next pass"])
  }

  @Test func aBurstTimerCancelledDuringItsBurstStops() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let log = EventLog<Int>()
    try loop.scheduleRepeating(after: .milliseconds(10), every: .milliseconds(10), missedTicks: .burst) {
      handle in
      log.append(1)
      if log.all.count == 2 { handle.cancel() }
    }
    loop.stall(for: .milliseconds(50))
    loop.advanceTime(by: .milliseconds(50))
    #expect(log.all.count == 2)
  }

  @Test func aBurstTimerRescheduledDuringItsBurstContinuesFromItsNewDeadline() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = EventLog<Double>()
    try loop.scheduleRepeating(after: .milliseconds(10), every: .milliseconds(10), missedTicks: .burst) {
      handle in
      fired.append(Double((loop.now - start).wholeNanoseconds) / 1e6)
      if fired.all.count == 1 { handle.reschedule(to: loop.now + .milliseconds(5)) }
    }
    loop.stall(for: .milliseconds(30))
    loop.advanceTime(by: .milliseconds(30))
    // Due at 10 ms, called at 30 ms and moved to 35 ms: its grid is now 35, 45, 55.
    #expect(fired.all == [30, 35, 45, 55])
  }

  /// A first deadline before the timer was scheduled: the ticks due before
  /// then were never missed (nothing was busy), so a burst timer runs once in
  /// the next pass and goes on from the last point of its grid instead of
  /// calling for every period since. (It called for each, one per pass.)
  @Test func aBurstTimerFirstDueInThePastRunsOnceThenKeepsItsGrid() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = EventLog<Duration>()
    try loop.scheduleRepeating(
      firstAt: start - .milliseconds(35), every: .milliseconds(10), missedTicks: .burst
    ) { handle in
      fired.append(loop.now - start)
      if fired.all.count == 5 { handle.cancel() }  // ends the test if it bursts
    }
    loop.advanceTime(by: .milliseconds(15))
    // The grid ..., -5, 5, 15 ms: called at 0 for -5 ms, then at 5 and 15 ms.
    #expect(fired.all == [.zero, .milliseconds(5), .milliseconds(15)])
  }

  /// From ``Deadline/distantPast``, on a machine up for 30 days, a burst
  /// was about 2.6 × 10^9 ticks, one per pass: the loop spun for days.
  @Test func aBurstTimerFirstDueAtTheDistantPastDoesNotSpin() throws {
    let loop = VirtualEventLoop(start: .distantPast + .seconds(30 * 86_400))
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    try loop.scheduleRepeating(
      firstAt: .distantPast, every: .milliseconds(1), missedTicks: .burst
    ) {
      handle in
      if calls.add(1, ordering: .relaxed).newValue == 100 { handle.cancel() }
    }
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 1)
    loop.advanceTime(by: .milliseconds(10))
    #expect(calls.load(ordering: .relaxed) == 11)
  }

  /// Moved into the past, a burst timer runs once and keeps the moved grid,
  /// as if first scheduled there (a move to ``Deadline/distantPast`` spun
  /// the loop as that first deadline did).
  @Test func aBurstTimerMovedIntoThePastRunsOnceThenKeepsItsGrid() throws {
    let loop = VirtualEventLoop(start: .distantPast + .seconds(30 * 86_400))
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    let handle = try loop.scheduleRepeating(
      after: .seconds(1), every: .milliseconds(1), missedTicks: .burst
    ) { handle in
      if calls.add(1, ordering: .relaxed).newValue == 100 { handle.cancel() }
    }
    handle.reschedule(to: .distantPast)
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 1)
    loop.advanceTime(by: .milliseconds(10))
    #expect(calls.load(ordering: .relaxed) == 11)
  }

  /// A burst timer every 0.1 ms whose callback stalls the loop for a year
  /// owed about 3 × 10^11 ticks and paid them back one per pass, so the
  /// advance never returned (the test stops it by cancelling after twice the
  /// limit). It pays back the last ``MissedTickBehavior/burstBacklogLimit``
  /// ticks of its grid and is then on time again.
  @Test func aBurstTimerAfterAYearLongStallPaysBackABoundedBacklog() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let interval = Duration.microseconds(100)
    let year = Duration.seconds(365 * 86_400)
    let limit = MissedTickBehavior.burstBacklogLimit
    let fired = EventLog<Duration>()
    try loop.scheduleRepeating(after: interval, every: interval, missedTicks: .burst) { handle in
      fired.append(loop.now - start)
      if fired.all.count == 1 { loop.stall(for: year) }
      if fired.all.count == 2 * limit { handle.cancel() }
    }
    loop.advanceTime(by: year + interval * 3)
    // Called at 0.1 ms and stalled until a year + 0.1 ms: the grid points up
    // to then are owed, of which the last `limit` run at once, one per pass;
    // then a year + 0.2 ms and + 0.3 ms, on the grid.
    let backlog = Array(repeating: year + interval, count: limit)
    #expect(fired.all == [interval] + backlog + [year + interval * 2, year + interval * 3])
  }

  /// A loop stalled until the end of time: a fixed-rate timer's next grid
  /// point saturates to ``Deadline/distantFuture``, which never comes due, so
  /// it fires once for all its missed ticks, as always, and the pass ends
  /// instead of firing it forever.
  @Test func aFixedRateTimerAtTheEndOfTimeFiresOnceAndThePassEnds() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let repeating = EventLog<Int>()
    let never = EventLog<Int>()
    try loop.scheduleRepeating(after: .seconds(3600), every: .seconds(3600)) { _ in
      repeating.append(1)
    }
    try loop.schedule(at: .distantFuture) { never.append(1) }
    loop.stall(for: .max)
    loop.run()
    #expect(repeating.all.count == 1)
    #expect(never.all.isEmpty)
  }

  @Test(arguments: [Duration.zero, .nanoseconds(1), .nanoseconds(-1), .min])
  func repeatIntervalBelowTheMinimumIsRaisedTo100Microseconds(interval: Duration) throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let log = EventLog<Duration>()
    try loop.scheduleRepeating(after: .zero, every: interval) { _ in log.append(loop.now - start) }
    loop.advanceTime(by: .milliseconds(1))
    #expect(log.all == (0...10).map { .microseconds(Int64($0) * 100) })
  }

  @Test func reschedulingARepeatingTimerMovesItsGrid() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let log = EventLog<Duration>()
    let handle = try loop.scheduleRepeating(after: .milliseconds(10), every: .milliseconds(10)) {
      _ in
      log.append(loop.now - start)
    }
    loop.advanceTime(by: .milliseconds(10))
    handle.reschedule(to: start + .milliseconds(13))
    loop.advanceTime(by: .milliseconds(25))
    #expect(
      log.all == [.milliseconds(10), .milliseconds(13), .milliseconds(23), .milliseconds(33)])
  }

  @Test func gridArithmeticSaturatesInsteadOfTrapping() {
    let nearEnd = Deadline(uptimeNanoseconds: .max - 5)
    #expect(nearEnd.nextGridPoint(after: nearEnd, interval: .seconds(1)) == .distantFuture)
    let origin = Deadline(uptimeNanoseconds: 0)
    let late = Deadline(uptimeNanoseconds: .max - 1)
    #expect(origin.nextGridPoint(after: late, interval: .nanoseconds(3)) == .distantFuture)
    #expect(
      origin.nextGridPoint(after: .init(uptimeNanoseconds: 7), interval: .nanoseconds(3))
        == .init(uptimeNanoseconds: 9))
  }
}
