import Dispatch
import Foundation
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``TimerEventLoop/onWallClockSet(_:)``: a callback for each step of the
/// wall clock the loop hears of, on the loop thread, until cancelled.
@Suite struct WallClockSetCallbackTests {
  @Test func eachStepOfTheVirtualWallClockCallsItOnceAfterTheTimersAreReEvaluated() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    loop.setWallClock(to: start)
    let everyHour: @Sendable (Date) -> Date? = {
      Date(timeIntervalSince1970: (($0.timeIntervalSince1970 / 3_600).rounded(.down) + 1) * 3_600)
    }
    let rule = try loop.scheduleRepeating(firstAt: everyHour(start)!, nextDate: everyHour) { _ in }
    let seen = EventLog<(now: Date, ruleDate: Date?, onLoop: Bool)>()
    let handle = try loop.onWallClockSet { _ in
      seen.append((loop.wallClockNow, rule.fireDate, loop.inEventLoop))
    }
    loop.advanceTime(by: .seconds(60))
    #expect(seen.all.isEmpty, "time passing is not a step")
    loop.setWallClock(to: start.addingTimeInterval(-86_400))
    #expect(seen.all.map(\.now) == [start.addingTimeInterval(-86_400)])
    #expect(seen.all.map(\.ruleDate) == [everyHour(start.addingTimeInterval(-86_400))])
    #expect(seen.all.allSatisfy { $0.onLoop })
    loop.suspend(for: .seconds(30))
    #expect(seen.all.count == 2, "a resume from a suspend is reported as a step")
    #expect(handle.isValid && handle.fireDate == nil && handle.fireInstant == nil)
    handle.reschedule(to: Date.distantPast)
    loop.run()
    #expect(seen.all.count == 2, "a callback has no date to be moved to")
  }

  @Test func aCancelledCallbackIsNotCalledAndOneCanCancelItself() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let (cancelled, once) = (Tally(), Tally())
    try loop.onWallClockSet { _ in cancelled.add() }.cancel()
    let selfCancelling = try loop.onWallClockSet { handle in
      once.add()
      handle.cancel()
    }
    loop.setWallClock(to: Date(timeIntervalSince1970: 1_800_000_000))
    loop.setWallClock(to: Date(timeIntervalSince1970: 1_900_000_000))
    #expect(cancelled.count == 0)
    #expect(once.count == 1)
    #expect(!selfCancelling.isValid)
  }

  @Test func shutdownEndsItAndLaterOnesThrow() throws {
    let loop = VirtualEventLoop()
    let called = Tally()
    let handle = try loop.onWallClockSet { _ in called.add() }
    loop.shutdown()
    #expect(!handle.isValid)
    #expect(throws: TimerLoopError.shutdown) { try loop.onWallClockSet { _ in called.add() } }
    loop.setWallClock(to: Date(timeIntervalSince1970: 1_800_000_000))
    #expect(called.count == 0)
  }

  /// With no wall-clock timer, the callback alone keeps the timerfd armed
  /// with `TFD_TIMER_CANCEL_ON_SET` (the kernel reports steps only to an
  /// armed one); cancelling it disarms the timerfd.
  @Test(arguments: [true, false])
  func aCallbackAloneKeepsTheTimerfdListeningUntilCancelled(fromLoopThread: Bool) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let handle = try loop.onWallClockSet { _ in }
    try onLoop(loop) {}  // after the task that arms the new timerfd
    let fd = try #require(try clockTimerFDs(of: loop).first)
    #expect(try timerFDInfo(fd)["settime flags"] == "03")
    #expect(try timeUntilExpiry(ofTimerFD: fd) != nil, "disarmed: steps go unreported")
    let timer = try loop.schedule(at: loop.wallClockNow.addingTimeInterval(60)) {}
    try onLoop(loop) {}
    #expect(try timeUntilExpiry(ofTimerFD: fd).map { $0 <= .seconds(60) } == true)
    timer.cancel()
    try onLoop(loop) {}
    #expect(try timeUntilExpiry(ofTimerFD: fd) != nil, "disarmed with the last timer")
    if fromLoopThread {
      try onLoop(loop) { handle.cancel() }
    } else {
      handle.cancel()
      try onLoop(loop) {}
    }
    #expect(try timeUntilExpiry(ofTimerFD: fd) == nil, "still armed for a cancelled callback")
  }

  /// A step reported by the timerfd (`ECANCELED` from its read, through the
  /// fault seam: setting the clock needs privileges) calls the callback on
  /// the loop thread.
  @Test func aStepReportedByTheTimerfdCallsIt() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let called = DispatchSemaphore(value: 0)
    let onLoopThread = Locked<Bool?>(nil)
    try onLoop(loop) {
      FaultInjection.inject([ECANCELED], into: "read(clock timerfd)")
      try loop.onWallClockSet { _ in
        onLoopThread.withLock { $0 = loop.inEventLoop }
        called.signal()
      }
      try loop.schedule(at: loop.wallClockNow.addingTimeInterval(0.005)) {}
    }
    #expect(called.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(onLoopThread.withLock { $0 } == true)
    #expect(loop.terminationError == nil)
    try onLoop(loop) { FaultInjection.reset() }
  }
}
