import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TickSequence`` against tokio's `Interval::poll_tick`, drawn as marble
/// timelines: a tick delivered more than 5 ms after it was due is missed, and
/// the sequence's ``MissedTickBehavior`` sets the next tick as that tick is
/// delivered; a tick delivered up to 5 ms late keeps the grid.
///
/// Each timeline has one character per virtual millisecond from the start:
/// `-` when no tick is delivered, otherwise the number of ticks delivered in
/// that millisecond. Ticks come every 10 ms.
@Suite(.timeLimit(.minutes(1))) struct TickTimelineTests {
  /// What a consumer of `ticks(every: 10 ms, missedTicks:)` (or of
  /// `ticks(startingAt:every: 10 ms, missedTicks:)`) received until 60 ms.
  struct Run {
    /// The marble timeline of deliveries.
    var timeline: String
    /// The yielded grid points, in milliseconds from the start.
    var ticks: [Int64]
  }

  /// Runs a consumer to 60 ms, stepping to each deadline (and each whole
  /// millisecond) once the consumer waits again, so that the consumer reads
  /// the time its tick was delivered: the loop is stalled from `stall.from` to
  /// `stall.to` ms by a callback (as a slow callback keeps a real loop busy),
  /// and the consumer works for `busy` after its first tick, then calls
  /// `reset()` if `resetAfterFirstTick`. With `first`, the sequence is
  /// `ticks(startingAt: first ms, ...)`.
  private func run(
    _ policy: MissedTickBehavior, first: Int64? = nil, stall: (from: Int64, to: Int64)? = nil,
    busyAfterFirstTick busy: Duration = .zero, resetAfterFirstTick: Bool = false
  ) async -> Run {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    func milliseconds(_ deadline: Deadline) -> Int64 { (deadline - start).wholeNanoseconds / 1_000_000 }
    if let stall {
      _ = try? loop.schedule(at: start + .milliseconds(stall.from)) {
        loop.stall(for: .milliseconds(stall.to - stall.from))
      }
    }
    let received = EventLog<(tick: Int64, at: Int64)>()
    let consumer = Task {
      let ticks =
        if let first {
          loop.ticks(startingAt: start + .milliseconds(first), every: .milliseconds(10), missedTicks: policy)
        } else {
          loop.ticks(every: .milliseconds(10), missedTicks: policy)
        }
      var iterator = ticks.makeAsyncIterator()
      while let tick = await iterator.next() {
        received.append((milliseconds(tick), milliseconds(loop.now)))
        guard received.all.count == 1 else { continue }
        if busy > .zero { try? await loop.sleep(for: busy) }
        if resetAfterFirstTick { iterator.reset() }
      }
    }
    let end = start + .milliseconds(60)
    while loop.now < end {
      await loop.waitForSleepingTasks(atLeast: 1)
      loop.run()  // applies the consumer's sleep, sent from its own thread
      // An overdue tick just resumed the consumer: let it read the time first.
      guard loop.sleepingTaskCount == 1 else { continue }
      let nextMillisecond = start + .milliseconds(milliseconds(loop.now) + 1)
      loop.advanceTime(to: min(nextMillisecond, loop.scheduler.pendingWork.earliestDeadline ?? end))
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    consumer.cancel()
    await consumer.value
    let deliveries = received.all
    let timeline = (0...60).map { millisecond -> String in
      let count = deliveries.count { $0.at == millisecond }
      return count == 0 ? "-" : String(count)
    }.joined()
    return Run(timeline: timeline, ticks: deliveries.map(\.tick))
  }

  // The rulers mark every 10 ms:        0         10        20        30        40        50        60
  //                                     |         |         |         |         |         |         |

  @Test func aTickTheLoopDeliversLateUnderSkipIsFollowedByTheNextGridPoint() async {
    let run = await run(.skip, stall: (5, 45))
    #expect(run.timeline == "---------------------------------------------1----1---------1")
    #expect(run.ticks == [10, 50, 60])
  }

  @Test func aTickTheLoopDeliversLateUnderDelayStartsANewGridFromThatMoment() async {
    let run = await run(.delay, stall: (5, 45))
    #expect(run.timeline == "---------------------------------------------1---------1-----")
    #expect(run.ticks == [10, 55])
  }

  @Test func aTickTheLoopDeliversLateUnderBurstIsFollowedByEveryMissedTick() async {
    let run = await run(.burst, stall: (5, 45))
    #expect(run.timeline == "---------------------------------------------4----1---------1")
    #expect(run.ticks == [10, 20, 30, 40, 50, 60])
  }

  @Test func aTickAskedForThreeMillisecondsLateIsNotMissed() async {
    let run = await run(.delay, busyAfterFirstTick: .milliseconds(13))
    #expect(run.timeline == "----------1------------1------1---------1---------1---------1")
    #expect(run.ticks == [10, 20, 30, 40, 50, 60])
  }

  @Test func aTickAskedForExactlyFiveMillisecondsLateIsNotMissedButOneNanosecondMoreIs() async {
    let onTheEdge = await run(.delay, busyAfterFirstTick: .milliseconds(15))
    #expect(onTheEdge.ticks == [10, 20, 30, 40, 50, 60])
    let past = await run(.delay, busyAfterFirstTick: .milliseconds(15) + .nanoseconds(1))
    // Missed at 25 ms + 1 ns: the new grid runs from there (ticks 1 ns past
    // 35, 45 and 55 ms, shown in whole milliseconds).
    #expect(past.timeline == "----------1--------------1---------1---------1---------1-----")
    #expect(past.ticks == [10, 20, 35, 45, 55])
  }

  // tokio's `interval_at`: the first tick at the given deadline.

  @Test func ticksStartingAtADeadlineTickThereFirstThenEveryInterval() async {
    let run = await run(.skip, first: 25)
    #expect(run.timeline == "-------------------------1---------1---------1---------1-----")
    #expect(run.ticks == [25, 35, 45, 55])
  }

  @Test func ticksStartingNowTickAtOnce() async {
    let run = await run(.skip, first: 0)
    #expect(run.timeline == "1---------1---------1---------1---------1---------1---------1")
    #expect(run.ticks == [0, 10, 20, 30, 40, 50, 60])
  }

  /// A start the loop passes while stalled is a missed first tick: under
  /// `.skip` the next tick is the first grid point after its delivery.
  @Test func aStartMissedByMoreThanFiveMillisecondsIsAMissedTick() async {
    let run = await run(.skip, first: 10, stall: (5, 27))
    #expect(run.timeline == "---------------------------1--1---------1---------1---------1")
    #expect(run.ticks == [10, 30, 40, 50, 60])
  }

  // tokio's `Interval::reset`: the next tick one interval from now.

  @Test func resetMovesTheNextTickToOneIntervalFromNow() async {
    let run = await run(.skip, busyAfterFirstTick: .milliseconds(3), resetAfterFirstTick: true)
    #expect(run.timeline == "----------1------------1---------1---------1---------1-------")
    #expect(run.ticks == [10, 23, 33, 43, 53])
  }

  @Test func resetRightAfterATickKeepsTheGrid() async {
    let run = await run(.skip, resetAfterFirstTick: true)
    #expect(run.ticks == [10, 20, 30, 40, 50, 60])
  }

  /// On a sequence started at a deadline, a reset 4 ms after its first
  /// tick moves the grid from the start's to the reset's.
  @Test func resetMovesTheGridOfASequenceStartedAtADeadline() async {
    let run = await run(.skip, first: 0, busyAfterFirstTick: .milliseconds(4), resetAfterFirstTick: true)
    #expect(run.timeline == "1-------------1---------1---------1---------1---------1------")
    #expect(run.ticks == [0, 14, 24, 34, 44, 54])
  }
}
