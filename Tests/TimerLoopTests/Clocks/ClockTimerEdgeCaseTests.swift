import Foundation
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Hostile inputs to the boot-time and wall-clock timers and to the virtual
/// loop's clock controls (each has the outcome the doc comments promise:
/// none traps, spins or fires early), and the lifetime of a loop that used
/// them.
@Suite struct ClockTimerEdgeCaseTests {
  /// A first instant so far before boot that its distance to now does not
  /// fit an `Int64` of nanoseconds: the timer runs in the next pass, then
  /// stays on its grid (it stopped after the first call).
  @Test func aFixedRateTimerFirstDueFarBeforeBootStaysOnItsGrid() throws {
    let loop = VirtualEventLoop()
    let epoch = ContinuousClock().systemEpoch
    let calls = Atomic<Int>(0)
    try loop.scheduleRepeating(
      firstAt: epoch.advanced(by: .seconds(-Int64.max)), every: .seconds(1)
    ) { _ in calls.add(1, ordering: .relaxed) }
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 1)
    loop.advanceTime(by: .seconds(10))
    #expect(calls.load(ordering: .relaxed) == 11)
  }

  /// The same first instant for a burst timer: the periods before it was
  /// scheduled were not missed, so it runs once and keeps its grid instead of
  /// calling for each of about 10^10 seconds, one per pass.
  @Test func aBurstTimerFirstDueFarBeforeBootDoesNotSpin() throws {
    let loop = VirtualEventLoop()
    let epoch = ContinuousClock().systemEpoch
    let calls = Atomic<Int>(0)
    try loop.scheduleRepeating(
      firstAt: epoch.advanced(by: .seconds(-Int64.max)), every: .seconds(1), missedTicks: .burst
    ) { handle in
      if calls.add(1, ordering: .relaxed).newValue == 100 { handle.cancel() }
    }
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 1)
    loop.advanceTime(by: .seconds(10))
    #expect(calls.load(ordering: .relaxed) == 11)
  }

  /// The same instant reached by a move: the burst timer runs once there
  /// and keeps its moved grid.
  @Test func aBurstTimerMovedFarBeforeBootDoesNotSpin() throws {
    let loop = VirtualEventLoop()
    let epoch = ContinuousClock().systemEpoch
    let calls = Atomic<Int>(0)
    let handle = try loop.scheduleRepeating(
      firstAt: loop.continuousNow.advanced(by: .seconds(5)), every: .seconds(1), missedTicks: .burst
    ) { handle in
      if calls.add(1, ordering: .relaxed).newValue == 100 { handle.cancel() }
    }
    handle.reschedule(to: epoch.advanced(by: .seconds(-Int64.max)))
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 1)
    loop.advanceTime(by: .seconds(10))
    #expect(calls.load(ordering: .relaxed) == 11)
  }

  /// Suspending for the longest amount twice leaves the boot-time clock at
  /// its end instead of wrapping it round before boot.
  @Test func repeatedHugeSuspendsSaturateTheBootTimeClock() throws {
    let loop = VirtualEventLoop()
    let fired = Atomic<Int>(0)
    loop.suspend(for: .max)
    let end = loop.continuousNow
    #expect(end.bootNanoseconds == .max)
    loop.suspend(for: .max)
    loop.suspend(for: .seconds(1))
    #expect(loop.continuousNow == end, "the boot-time clock went back")
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(-1))) {
      fired.add(1, ordering: .relaxed)
    }
    loop.advanceTime(by: .zero)
    #expect(fired.load(ordering: .relaxed) == 1)
  }

  /// A suspend after the wall clock was set to its end saturates it (the
  /// offset's checked `add` trapped).
  @Test func aSuspendAfterTheWallClockWasSetToItsEndSaturatesIt() throws {
    let loop = VirtualEventLoop()
    let fired = Atomic<Int>(0)
    try loop.schedule(at: Date(timeIntervalSinceReferenceDate: 4e9)) {
      fired.add(1, ordering: .relaxed)
    }
    loop.setWallClock(to: .distantFuture)
    #expect(fired.load(ordering: .relaxed) == 1)
    let end = loop.wallClockNow
    loop.suspend(for: .seconds(1))
    loop.suspend(for: .max)
    #expect(loop.wallClockNow == end, "the wall clock moved past its end")
  }

  /// A rule whose dates come closer together than 0.1 ms is held to 0.1 ms,
  /// the floor of repeat intervals: one 1 µs or 1 ns after its input made
  /// a call in every pass, a busy loop on a real one.
  @Test func ruleDatesCloserThanATenthOfAMillisecondAreRaised() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    for step in [1e-6, 1e-9] {
      try loop.scheduleRepeating(
        firstAt: loop.wallClockNow, nextDate: { $0.addingTimeInterval(step) }
      ) { _ in calls.add(1, ordering: .relaxed) }
    }
    loop.advanceTime(by: .milliseconds(1))
    // Every 0.1 ms from 0 to 1 ms: 11 calls each.
    #expect(calls.load(ordering: .relaxed) == 22)
  }

  /// A rule that gives a date that never comes (NaN, +infinity, `distantFuture`)
  /// leaves its timer waiting: valid, never called again, no wake-up armed.
  @Test func aRuleGivingADateThatNeverComesWaitsWithoutAWakeUp() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    var handles: [ClockTimerHandle] = []
    for never in [
      Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .infinity),
      .distantFuture,
    ] {
      handles.append(
        try loop.scheduleRepeating(firstAt: loop.wallClockNow, nextDate: { _ in never }) { _ in
          calls.add(1, ordering: .relaxed)
        })
    }
    loop.advanceTime(by: .zero)
    #expect(calls.load(ordering: .relaxed) == 3)
    #expect(loop.liveTimerCount == 0, "a date that never comes armed a wake-up")
    loop.advanceTime(by: .seconds(1_000_000))
    #expect(calls.load(ordering: .relaxed) == 3)
    #expect(handles.allSatisfy { $0.isValid })
  }

  /// A rule timer whose first date never comes never runs, also after the
  /// wall clock is set or the machine suspended, which recompute the dates
  /// of the other rule timers (it ran one rule step after the new time).
  @Test func aRuleTimerWhoseFirstDateNeverComesStaysOffAfterAClockChange() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    for never in [Date(timeIntervalSinceReferenceDate: .nan), .distantFuture] {
      try loop.scheduleRepeating(firstAt: never, nextDate: { $0.addingTimeInterval(60) }) { _ in
        calls.add(1, ordering: .relaxed)
      }
    }
    loop.setWallClock(to: loop.wallClockNow.addingTimeInterval(3_600))
    loop.suspend(for: .seconds(10))
    loop.advanceTime(by: .seconds(600))
    #expect(calls.load(ordering: .relaxed) == 0)
    #expect(loop.liveTimerCount == 0, "a date that never comes armed a wake-up")
  }

  /// A virtual loop that had boot-time timers and is let go without a
  /// shutdown is freed, as one with only monotonic timers is (its scheduler
  /// held the boot-time queue's wake-up timer, which held the scheduler).
  @Test func aVirtualLoopThatUsedBootTimersIsFreedWithoutAShutdown() throws {
    weak var weakLoop: VirtualEventLoop?
    weak var weakScheduler: TimerScheduler?
    try {
      let loop = VirtualEventLoop()
      weakLoop = loop
      weakScheduler = loop.scheduler
      try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
      try loop.schedule(at: loop.continuousNow) {}
      loop.advanceTime(by: .zero)
    }()
    #expect(weakLoop == nil, "the loop leaked")
    #expect(weakScheduler == nil, "the loop's scheduler (its timer table) leaked")
  }

  /// A closure released by the loop (after its call, by a cancel, at
  /// shutdown) may hold an object whose `deinit` schedules on the same loop:
  /// no lock is held then, so the new timer is taken (or refused with
  /// `shutdown` after a shutdown), and nothing deadlocks.
  @Test(arguments: LoopKind.allCases)
  func aDeinitThatSchedulesClockTimersIsServed(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    let log = EventLog<String>()
    try {
      let fired = SchedulesOnDeinit("fired", on: loop, log: log)
      try loop.schedule(at: loop.continuousNow) { _ = fired }
      let cancelled = SchedulesOnDeinit("cancelled", on: loop, log: log)
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(3_600)) { _ = cancelled }.cancel()
    }()
    try harness.advance(by: .milliseconds(5))
    try harness.advance(by: .milliseconds(5))
    #expect(
      Set(log.all) == [
        "boot after fired", "wall after fired", "boot after cancelled", "wall after cancelled",
      ])
    try {
      let atShutdown = SchedulesOnDeinit("shutdown", on: loop, log: log)
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(3_600)) { _ = atShutdown }
    }()
    loop.shutdown()
    #expect(log.all.count == 5 && log.all.last == "shutdown refused")
  }
}

/// Schedules a boot-time and a wall-clock timer on its loop from `deinit`.
private final class SchedulesOnDeinit: Sendable {
  let name: String
  let loop: any TimerEventLoop
  let log: EventLog<String>

  init(_ name: String, on loop: any TimerEventLoop, log: EventLog<String>) {
    (self.name, self.loop, self.log) = (name, loop, log)
  }

  deinit {
    let (name, log) = (name, log)
    do {
      try loop.schedule(at: loop.continuousNow) { log.append("boot after \(name)") }
      try loop.schedule(at: loop.wallClockNow) { log.append("wall after \(name)") }
    } catch {
      log.append("\(name) refused")
    }
  }
}
