import Dispatch
import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``ClockTimerHandle/reschedule(to:)-(Date)``, its instant form, and
/// ``ClockTimerHandle/fireDate`` / ``ClockTimerHandle/fireInstant``: boot-time
/// and wall-clock timers move (libev's `ev_periodic_again`) and tell when
/// they are due (Foundation's `fireDate`), from any thread.
@Suite struct ClockTimerRescheduleTests {
  @Test(arguments: LoopKind.allCases)
  func aWallTimerMovedLaterFiresAtItsNewDateOnlyNeverBefore(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let loop = harness.loop
    let old = loop.wallClockNow.addingTimeInterval(0.01)
    let new = old.addingTimeInterval(0.03)
    let firedAt = EventLog<Date>()
    let handle = try harness.whileLoopIsHeld {
      let handle = try loop.schedule(at: old) { firedAt.append(loop.wallClockNow) }
      handle.reschedule(to: new)
      return handle
    }
    #expect(handle.fireDate.map { abs($0.timeIntervalSince(new)) < 1e-6 } == true)
    try harness.advance(toWallDate: old.addingTimeInterval(0.01))
    #expect(firedAt.all.isEmpty, "fired at the date it was moved from")
    try harness.advance(toWallDate: new)
    #expect(firedAt.all.count == 1)
    #expect(firedAt.all.allSatisfy { $0 >= new }, "fired early")
    #expect(handle.fireDate == nil && !handle.isValid)
  }

  @Test(arguments: LoopKind.allCases)
  func aBootTimeTimerMovedEarlierFromAnotherThreadFiresAtItsNewInstant(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let loop = harness.loop
    let firedAt = EventLog<ContinuousClock.Instant>()
    let handle = try loop.schedule(at: harness.bootInstant(after: .seconds(3_600))) {
      firedAt.append(loop.continuousNow)
    }
    let new = harness.bootInstant(after: .milliseconds(20))
    // From this thread while a real loop waits: the move must wake it.
    handle.reschedule(to: new)
    #expect(handle.fireInstant == new)
    try harness.advance(toBootInstant: new)
    #expect(firedAt.all.count == 1)
    #expect(firedAt.all.allSatisfy { $0 >= new }, "fired early")
  }

  /// The promise ``ClockTimerHandle/cancel()`` makes, for a move: once it
  /// returns, no call starts for the old date, even one the running pass
  /// has already taken out of the heap: the timer before it in the pass
  /// holds the loop thread while this thread moves it.
  @Test func aMoveFromAnotherThreadIsExactAgainstThePassThatTookTheTimer() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    for clock in [TimerClock.wall, .boot] {
      let (blocked, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
      let startedAfterMove = Tally()
      let moved = Locked(false)
      let blocker: @Sendable () -> Void = {
        blocked.signal()
        release.wait()
      }
      let body: @Sendable () -> Void = { if moved.withLock({ $0 }) { startedAfterMove.add() } }
      let handle = try scheduleInOnePass(on: clock, loop, blocker, body)
      #expect(blocked.wait(timeout: .now() + .seconds(30)) == .success)
      switch clock {
      case .wall: handle.reschedule(to: Date.distantFuture)
      case .boot: handle.reschedule(to: loop.continuousNow.advanced(by: .seconds(3_600)))
      }
      moved.withLock { $0 = true }
      release.signal()
      try onLoop(loop) {}
      #expect(startedAfterMove.count == 0, "\(clock): a call started for the old date")
      #expect(handle.isValid)
      handle.cancel()
    }
  }

  /// Schedules `blocker` and then `body` on `clock`, both due now, inside
  /// one loop task, so that one pass takes both; returns `body`'s handle.
  private func scheduleInOnePass(
    on clock: TimerClock, _ loop: EpollEventLoop, _ blocker: @escaping @Sendable () -> Void,
    _ body: @escaping @Sendable () -> Void
  ) throws -> ClockTimerHandle {
    try onLoop(loop) {
      switch clock {
      case .wall:
        try loop.schedule(at: Date.distantPast, blocker)
        return try loop.schedule(at: Date.distantPast, body)
      case .boot:
        let past = ContinuousClock.Instant(bootNanoseconds: 0)
        try loop.schedule(at: past, blocker)
        return try loop.schedule(at: past, body)
      }
    }
  }

  @Test(arguments: [TimerClock.boot, .wall], [true, false])
  func movingTheEarliestTimerLaterRearmsTheTimerfdForTheNewEarliest(
    clock: TimerClock, onLoopThread: Bool
  ) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let start = Deadline.now()
    let (first, _) = try onLoop(loop) {
      switch clock {
      case .boot:
        let now = loop.continuousNow
        return (
          try loop.schedule(at: now.advanced(by: .seconds(60))) {},
          try loop.schedule(at: now.advanced(by: .seconds(120))) {}
        )
      case .wall:
        let now = loop.wallClockNow
        return (
          try loop.schedule(at: now.addingTimeInterval(60)) {},
          try loop.schedule(at: now.addingTimeInterval(120)) {}
        )
      }
    }
    let fd = try #require(try clockTimerFDs(of: loop).first)
    let move: @Sendable () -> Void = {
      switch clock {
      case .boot: first.reschedule(to: loop.continuousNow.advanced(by: .seconds(180)))
      case .wall: first.reschedule(to: loop.wallClockNow.addingTimeInterval(180))
      }
    }
    if onLoopThread {
      try onLoop(loop, move)
    } else {
      move()
      try onLoop(loop) {}  // after the task the move sent
    }
    let expiry = try timeUntilExpiry(ofTimerFD: fd)
    #expect(
      isRemaining(expiry, of: .seconds(120), since: start),
      "armed for the date the timer was moved from")
  }

  @Test func aOneShotMovedInsideItsOwnCallFiresAgainAtTheNewDate() throws {
    let loop = VirtualEventLoop()
    let start = loop.wallClockNow
    let box = ClockHandleBox()
    let calls = EventLog<Date?>()
    box.value = try loop.schedule(at: start.addingTimeInterval(1)) {
      calls.append(box.value?.fireDate)
      if calls.all.count == 1 { box.value?.reschedule(to: start.addingTimeInterval(5)) }
    }
    loop.advanceTime(by: .seconds(1))
    #expect(calls.all == [start.addingTimeInterval(1)])
    #expect(box.value?.fireDate == start.addingTimeInterval(5))
    #expect(box.value?.isValid == true)
    loop.advanceTime(by: .seconds(4))
    #expect(calls.all == [start.addingTimeInterval(1), start.addingTimeInterval(5)])
    #expect(box.value?.isValid == false && box.value?.fireDate == nil)
  }

  @Test func aFixedRateBootTimerMovedGoesOnOnTheGridOfItsNewInstant() throws {
    let loop = VirtualEventLoop()
    let start = loop.continuousNow
    let calls = EventLog<Duration>()
    let handle = try loop.scheduleRepeating(
      firstAt: start.advanced(by: .seconds(1)), every: Duration.seconds(10)
    ) { _ in calls.append(start.duration(to: loop.continuousNow)) }
    loop.advanceTime(by: .seconds(1))
    handle.reschedule(to: start.advanced(by: .seconds(4)))
    #expect(handle.fireInstant == start.advanced(by: .seconds(4)))
    loop.advanceTime(by: .seconds(30))
    #expect(calls.all == [.seconds(1), .seconds(4), .seconds(14), .seconds(24)])
  }

  @Test func aRuleTimerMovedTakesItsNextDateFromTheMovedDate() throws {
    let loop = VirtualEventLoop()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    loop.setWallClock(to: start)
    let calls = EventLog<TimeInterval>()
    let everyTenSeconds: @Sendable (Date) -> Date? = { $0.addingTimeInterval(10) }
    let handle = try loop.scheduleRepeating(
      firstAt: start.addingTimeInterval(10), nextDate: everyTenSeconds
    ) { _ in calls.append(loop.wallClockNow.timeIntervalSince(start)) }
    handle.reschedule(to: start.addingTimeInterval(3))
    loop.advanceTime(by: .seconds(25))
    #expect(calls.all == [3, 13, 23])
    #expect(handle.fireDate == start.addingTimeInterval(33))
  }

  @Test func eachClockTellsTheOthersTimeAsItReadsNow() throws {
    let loop = VirtualEventLoop()
    let wall = Date(timeIntervalSince1970: 1_800_000_000)
    loop.setWallClock(to: wall)
    let boot = loop.continuousNow
    let bootTimer = try loop.schedule(at: boot.advanced(by: .seconds(60))) {}
    let wallTimer = try loop.schedule(at: wall.addingTimeInterval(120)) {}
    #expect(bootTimer.fireDate == wall.addingTimeInterval(60))
    #expect(wallTimer.fireInstant == boot.advanced(by: .seconds(120)))
    // A boot-time timer moved to a date waits for the instant the wall clock reads it.
    bootTimer.reschedule(to: wall.addingTimeInterval(30))
    #expect(bootTimer.fireInstant == boot.advanced(by: .seconds(30)))
    // Setting the wall clock moves the date a boot-time timer tells, not its instant.
    loop.setWallClock(to: wall.addingTimeInterval(1_000))
    #expect(bootTimer.fireDate == wall.addingTimeInterval(1_030))
    #expect(bootTimer.fireInstant == boot.advanced(by: .seconds(30)))
  }

  @Test func endedAndNeverDueTimersTellNoDateAndStayAsTheyAre() throws {
    let loop = VirtualEventLoop()
    let fired = Tally()
    let cancelled = try loop.schedule(at: loop.wallClockNow.addingTimeInterval(1)) { fired.add() }
    cancelled.cancel()
    cancelled.reschedule(to: loop.wallClockNow)
    let never = try loop.schedule(at: Date.distantFuture) { fired.add() }
    #expect(never.fireDate == nil && never.fireInstant == nil && never.isValid)
    let nan = try loop.schedule(at: loop.continuousNow) { fired.add() }
    nan.reschedule(to: Date(timeIntervalSinceReferenceDate: .nan))
    #expect(nan.fireDate == nil && nan.isValid)
    loop.advanceTime(by: .seconds(3_600))
    #expect(fired.count == 0)
    #expect(cancelled.fireDate == nil && !cancelled.isValid)
    never.reschedule(to: Date.distantPast)
    loop.run()
    #expect(fired.count == 1)
    loop.shutdown()
    nan.reschedule(to: loop.continuousNow)
    #expect(!nan.isValid && nan.fireInstant == nil)
    loop.run()
    #expect(fired.count == 1)
  }
}
