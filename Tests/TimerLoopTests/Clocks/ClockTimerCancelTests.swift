import Dispatch
import Foundation
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Cancelling the earliest boot-time or wall-clock timer moves what wakes the
/// loop for its clock to the next live timer, or disarms it with the last
/// one (issue 19, item 5): the clock's timerfd on a real loop, with
/// `nextDeadline` for an embedded host; the wake-up timer on a virtual loop.
@Suite struct ClockTimerCancelTests {
  @Test(arguments: [TimerClock.boot, .wall], [true, false])
  func cancellingTheEarliestTimerRearmsTheTimerfdForTheNextOrDisarmsIt(
    clock: TimerClock, onLoopThread: Bool
  ) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let start = Deadline.now()
    let first = try schedule(on: clock, after: 60, loop)
    let second = try schedule(on: clock, after: 120, loop)
    try onLoop(loop) {}  // after the task that arms the new timerfd
    let fd = try #require(try clockTimerFDs(of: loop).first)
    #expect(isRemaining(try expiry(fd), of: .seconds(60), since: start))
    try cancel(first, onLoopThread: onLoopThread, loop)
    #expect(
      isRemaining(try expiry(fd), of: .seconds(120), since: start),
      "the timerfd stayed armed for the cancelled timer")
    try cancel(second, onLoopThread: onLoopThread, loop)
    #expect(try expiry(fd) == nil, "cancelling the last timer left the timerfd armed")
  }

  /// Threads scheduling and cancelling timers at once, while the loop
  /// re-arms for them: once every cancel has returned and the loop has run
  /// what they sent, the timerfd is armed for the one timer left. Run under
  /// ThreadSanitizer too.
  @Test(arguments: [TimerClock.boot, .wall])
  func cancelsRacingFromSeveralThreadsLeaveTheTimerfdArmedForTheTimerLeft(clock: TimerClock)
    throws
  {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    _ = try schedule(on: clock, after: 200, loop)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for round in 0..<100 {
        let seconds = Int64(10 + (round * 7 + thread * 13) % 90)
        guard let timer = try? schedule(on: clock, after: seconds, loop) else { continue }
        if round.isMultiple(of: 2) {
          try? onLoop(loop) { timer.cancel() }
        } else {
          timer.cancel()
        }
      }
    }
    try onLoop(loop) {}  // after the tasks the cancels sent
    let fd = try #require(try clockTimerFDs(of: loop).first)
    // Beyond every racing timer's 99 s, however long the race took.
    #expect(try expiry(fd).map { $0 > .seconds(100) && $0 <= .seconds(200) } == true)
  }

  /// An embedded host is woken to call `runOnce()`, which then tells it the
  /// next live deadline and leaves the timerfd armed for that.
  @Test(arguments: [TimerClock.boot, .wall])
  func anEmbeddedHostIsToldTheNextLiveDeadlineAfterACancel(clock: TimerClock) throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let first = try schedule(on: clock, after: 60, loop)
    let second = try schedule(on: clock, after: 120, loop)
    try loop.runOnce()
    let fd = try #require(try clockTimerFDs(of: loop).first)
    // From readings of the loop's time around the calls (and a millisecond
    // for the skew between two clocks' readings), however long they took.
    let inAMinute = try #require(loop.nextDeadline)
    #expect(
      inAMinute > start + .seconds(60) - .milliseconds(1)
        && inAMinute <= loop.now + .seconds(61))
    first.cancel()
    #expect(isReadable(loop.backendDescriptor), "the host is not told to call runOnce()")
    try loop.runOnce()
    let inTwoMinutes = try #require(loop.nextDeadline)
    #expect(
      inTwoMinutes > start + .seconds(120) - .milliseconds(1)
        && inTwoMinutes <= loop.now + .seconds(121))
    #expect(isRemaining(try expiry(fd), of: .seconds(120), since: start))
    second.cancel()
    #expect(isReadable(loop.backendDescriptor), "the host is not told to call runOnce()")
    try loop.runOnce()
    #expect(loop.nextDeadline == nil)
    #expect(try expiry(fd) == nil, "cancelling the last timer left the timerfd armed")
  }

  /// On a virtual loop the driver is a monotonic timer of the loop: it moves
  /// with the earliest timer, so `advanceTime` stops at no cancelled date.
  @Test(arguments: [TimerClock.boot, .wall], [true, false])
  func onAVirtualLoopTheWakeUpMovesToTheNextTimerOrGoes(
    clock: TimerClock, onLoopThread: Bool
  ) throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let first = try schedule(on: clock, after: 60, loop)
    let second = try schedule(on: clock, after: 120, loop)
    loop.run()
    let wakeUp = { loop.scheduler.pendingWork.earliestDeadline.map { $0 - loop.now } }
    #expect(wakeUp().map { $0 > .seconds(59) && $0 <= .seconds(60) } == true)
    try cancel(first, onLoopThread: onLoopThread, loop)
    #expect(
      wakeUp().map { $0 > .seconds(119) && $0 <= .seconds(120) } == true,
      "the loop still wakes up for the cancelled timer")
    try cancel(second, onLoopThread: onLoopThread, loop)
    #expect(wakeUp() == nil, "the loop still wakes up for a cancelled timer")
  }

  func schedule(on clock: TimerClock, after seconds: Int64, _ loop: some TimerEventLoop) throws
    -> ClockTimerHandle
  {
    switch clock {
    case .boot: try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(seconds))) {}
    case .wall: try loop.schedule(at: loop.wallClockNow.addingTimeInterval(Double(seconds))) {}
    }
  }

  /// Cancels `timer` on `loop`'s thread, or on another thread and then lets
  /// the loop run what the cancel sent it.
  func cancel(_ timer: ClockTimerHandle, onLoopThread: Bool, _ loop: some TimerEventLoop) throws {
    if onLoopThread {
      try onLoop(loop) { timer.cancel() }
    } else {
      try onAnotherThread { timer.cancel() }
      try onLoop(loop) {}
    }
  }

  func expiry(_ fd: CInt) throws -> TimeAmount? {
    try timeUntilExpiry(ofTimerFD: fd)
  }

  /// Whether `fd` is readable now (`poll(2)` with no wait).
  func isReadable(_ fd: CInt) -> Bool {
    var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&watched, 1, 0) == 1
  }
}
