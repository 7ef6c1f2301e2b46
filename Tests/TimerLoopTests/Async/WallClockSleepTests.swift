import Foundation
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/sleep(until:)-(Date)``: a sleep on the wall clock, which
/// follows the clock when it is set, counts time suspended and never ends
/// before its date.
@Suite(.timeLimit(.minutes(2))) struct WallClockSleepTests {
  @Test func aSleepUntilADateResumesWhenTheWallClockReachesItNotBefore() async throws {
    let loop = VirtualEventLoop()
    loop.setWallClock(to: Date(timeIntervalSince1970: 1_800_000_000))
    let date = loop.wallClockNow.addingTimeInterval(10)
    let sleeper = Task {
      try await loop.sleep(until: date)
      return loop.wallClockNow
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(9_999))
    #expect(loop.sleepingTaskCount == 1, "resumed early")
    loop.advanceTime(by: .milliseconds(1))
    #expect(try await sleeper.value == date)
    #expect(loop.sleepingTaskCount == 0)
  }

  @Test func aStepOfTheWallClockPastTheDateResumesAtOnceAndAStepBackWaits() async throws {
    let loop = VirtualEventLoop()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    loop.setWallClock(to: start)
    let monotonicStart = loop.now
    let backward = Task { try await loop.sleep(until: start.addingTimeInterval(60)) }
    let forward = Task { try await loop.sleep(until: start.addingTimeInterval(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 2)
    loop.setWallClock(to: start.addingTimeInterval(-60))
    loop.advanceTime(by: .seconds(61))
    #expect(loop.sleepingTaskCount == 2, "a step back left the sleep at its old distance")
    loop.setWallClock(to: start.addingTimeInterval(7_200))
    try await backward.value
    try await forward.value
    #expect(loop.now == monotonicStart + .seconds(61))
  }

  @Test func timeSuspendedCountsForAWallClockSleep() async throws {
    let loop = VirtualEventLoop()
    let date = loop.wallClockNow.addingTimeInterval(600)
    let sleeper = Task { try await loop.sleep(until: date) }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.suspend(for: .seconds(600))
    try await sleeper.value
  }

  @Test func pastAndNeverComingDates() async throws {
    let loop = VirtualEventLoop()
    let past = Task { try await loop.sleep(until: Date.distantPast) }
    let never = Task { try await loop.sleep(until: Date.distantFuture) }
    let nan = Task { try await loop.sleep(until: Date(timeIntervalSinceReferenceDate: .nan)) }
    await loop.waitForSleepingTasks(atLeast: 3)
    loop.run()
    try await past.value
    loop.setWallClock(to: Date(timeIntervalSince1970: 9_000_000_000))
    loop.advanceTime(by: .seconds(3_600))
    #expect(loop.sleepingTaskCount == 2)
    never.cancel()
    nan.cancel()
    #expect(await never.result.isCancellation)
    #expect(await nan.result.isCancellation)
  }

  @Test(arguments: LoopKind.allCases)
  func cancellingASleepingTaskResumesItAtOnceAndEndsItsTimer(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let loop = harness.loop
    let sleeper = Task { try await loop.sleep(until: loop.wallClockNow.addingTimeInterval(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    sleeper.cancel()
    #expect(await sleeper.result.isCancellation)
    #expect(loop.sleepingTaskCount == 0)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsAPendingSleepAndALaterOneWithShutdown(kind: LoopKind) async throws {
    let harness = try LoopHarness(kind)
    let loop = harness.loop
    let sleeper = Task { try await loop.sleep(until: loop.wallClockNow.addingTimeInterval(3_600)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.shutdown()
    if let virtual = loop as? VirtualEventLoop { virtual.run() }
    #expect(await sleeper.result.isShutdown)
    let later = Task { try await loop.sleep(until: Date.distantPast) }
    #expect(await later.result.isShutdown)
  }

  /// On a real loop the sleep ends on `CLOCK_REALTIME`'s timerfd, never
  /// before its date as `Date()` reads it.
  @Test func aSleepOnARealLoopNeverEndsEarly() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    defer { loop.shutdown() }
    for milliseconds in [0.0, 1, 5, 20] {
      let date = Date().addingTimeInterval(milliseconds / 1_000)
      try await loop.sleep(until: date)
      #expect(Date() >= date)
    }
  }
}
