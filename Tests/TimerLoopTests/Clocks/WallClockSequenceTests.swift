import Dispatch
import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/dates(matching:in:matchingPolicy:repeatedTimePolicy:)``
/// and ``TimerEventLoop/dates(wallClockEvery:offset:)``: the wall-clock
/// schedules as `AsyncSequence`s of the dates their occurrences were due.
@Suite(.timeLimit(.minutes(2))) struct WallClockSequenceTests {
  let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  func date(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    utc.date(from: DateComponents(year: 2026, month: 6, day: day, hour: hour, minute: minute))!
  }

  /// The wall-clock timers still waiting on `loop`, read on its thread.
  func pendingWallTimers(_ loop: VirtualEventLoop) throws -> Int64? {
    loop.run()
    return try loop.clockHost.clockTimers.queue(.wall).earliestDeadline
  }

  @Test func aCalendarSequenceDeliversEachOccurrenceAndOneForAStepPastSeveral() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.setWallClock(to: date(1, 1))
    var nights = loop.dates(matching: DateComponents(hour: 3, minute: 0), in: utc)
      .makeAsyncIterator()
    loop.advanceTime(by: .seconds(2 * 3_600))
    #expect(await nights.next() == date(1, 3))
    // To the 4th at noon: the 2nd, 3rd and 4th at 03:00 passed; one element,
    // the first occurrence missed (the one the timer was due for).
    loop.setWallClock(to: date(4, 12))
    #expect(await nights.next() == date(2, 3))
    loop.advanceTime(by: .seconds(86_400))
    #expect(await nights.next() == date(5, 3))
  }

  @Test func aGridSequenceDeliversItsPointsAndAConsumerBehindGetsTheNewest() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.setWallClock(to: date(1, 10, 7))
    var quarters = loop.dates(wallClockEvery: .seconds(900)).makeAsyncIterator()
    loop.advanceTime(by: .seconds(8 * 60))
    #expect(await quarters.next() == date(1, 10, 15))
    loop.advanceTime(by: .seconds(30 * 60))  // 10:30 and 10:45, not consumed
    #expect(await quarters.next() == date(1, 10, 45))
  }

  @Test func aScheduleThatNothingMatchesEndsAtOnceAndSoDoesOneAfterShutdown() async throws {
    let loop = VirtualEventLoop()
    var never = loop.dates(
      matching: DateComponents(month: 2, day: 30), in: utc, matchingPolicy: .strict
    ).makeAsyncIterator()
    #expect(await never.next() == nil)
    var quarters = loop.dates(wallClockEvery: .seconds(900)).makeAsyncIterator()
    loop.shutdown()
    loop.run()
    #expect(await quarters.next() == nil, "shutdown did not end the sequence")
    var later = loop.dates(wallClockEvery: .seconds(900)).makeAsyncIterator()
    #expect(await later.next() == nil)
  }

  @Test func cancellingTheConsumerEndsItAndCancelsTheTimer() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let sequence = loop.dates(wallClockEvery: .seconds(3_600))
    #expect(try pendingWallTimers(loop) != nil)
    let consumer = Task {
      var count = 0
      for await _ in sequence { count += 1 }
      return count
    }
    consumer.cancel()
    #expect(await consumer.value == 0)
    #expect(try pendingWallTimers(loop) == nil, "the timer outlived its consumer")
  }

  @Test func releasingTheSequenceCancelsTheTimer() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    do {
      let sequence = loop.dates(wallClockEvery: .seconds(3_600))
      _ = sequence
      #expect(try pendingWallTimers(loop) != nil)
    }
    #expect(try pendingWallTimers(loop) == nil, "the timer outlived its sequence")
  }

  /// On a real loop, each date arrives after the wall clock reached it.
  @Test func onARealLoopEachDateArrivesNoEarlierThanItself() async throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    var received: [(date: Date, at: Date)] = []
    for await point in loop.dates(wallClockEvery: .milliseconds(10)) {
      received.append((point, Date()))
      if received.count == 3 { break }
    }
    #expect(received.allSatisfy { $0.at >= $0.date }, "delivered early")
    #expect(zip(received, received.dropFirst()).allSatisfy { $0.date < $1.date })
  }
}
