import Testing

@_spi(TimerLoopHost) @testable import TimerLoop

/// ``TickSequence`` against tokio's `Interval::poll_tick`, drawn as marble
/// timelines: a tick delivered more than 5 ms after it was due is missed, and
/// the sequence's ``MissedTickBehavior`` sets the next tick as that tick is
/// delivered; a tick delivered up to 5 ms late keeps the grid.
///
/// Each timeline has one character per virtual millisecond from the start:
/// `-` when no tick is delivered, otherwise the number of ticks delivered in
/// that millisecond. Ticks come every 10 ms.
@Suite(.timeLimit(.minutes(1))) struct TickTimelineTests {
  /// What a consumer of `ticks(every: 10 ms, missedTicks:)` received until 60 ms.
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
  /// and the consumer works for `busy` after its first tick.
  private func run(
    _ policy: MissedTickBehavior, stall: (from: Int64, to: Int64)? = nil,
    busyAfterFirstTick busy: Duration = .zero
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
      for await tick in loop.ticks(every: .milliseconds(10), missedTicks: policy) {
        received.append((milliseconds(tick), milliseconds(loop.now)))
        if received.all.count == 1, busy > .zero {
          try? await loop.sleep(for: busy)
        }
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
}
