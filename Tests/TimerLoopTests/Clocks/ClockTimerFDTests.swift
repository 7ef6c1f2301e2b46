import Dispatch
import Foundation
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The real loop's timerfds for the other clocks, as the kernel sees them
/// (`/proc/self/fdinfo`), and failures of their system calls.
@Suite struct ClockTimerFDTests {
  @Test func onlyMonotonicTimersOpenNoOtherDescriptor() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try loop.schedule(after: .seconds(3600)) {}
    try loop.scheduleRepeating(after: .seconds(3600), every: .seconds(1)) { _ in }
    _ = loop.continuousNow
    try TimerLoopTests.onLoop(loop) {}
    #expect(try watchedDescriptors(ofEpoll: loop.selector.epollFD).count == 2)
    #expect(try clockTimerFDs(of: loop).isEmpty)
  }

  @Test func aBootTimerOpensOneAbsoluteBoottimeTimerfd() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    for minutes in 1...3 {
      try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60 * minutes))) {}
    }
    try onLoop(loop) {}  // after the task that arms the new timerfd
    let extra = try clockTimerFDs(of: loop)
    try #require(extra.count == 1)
    let info = try timerFDInfo(extra[0])
    #expect(info["clockid"] == "\(CLOCK_BOOTTIME)")
    #expect(info["settime flags"] == "01", "not TFD_TIMER_ABSTIME alone")
  }

  @Test func aWallTimerOpensOneRealtimeTimerfdThatCancelsOnSet() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try loop.schedule(at: Date().addingTimeInterval(3600)) {}
    try loop.schedule(at: Date().addingTimeInterval(7200)) {}
    try TimerLoopTests.onLoop(loop) {}
    let extra = try clockTimerFDs(of: loop)
    try #require(extra.count == 1)
    let info = try timerFDInfo(extra[0])
    #expect(info["clockid"] == "\(CLOCK_REALTIME)")
    #expect(info["settime flags"] == "03", "not TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET")
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    try TimerLoopTests.onLoop(loop) {}
    #expect(try clockTimerFDs(of: loop).count == 2, "one timerfd per clock")
  }

  /// Arms `errnos` for `syscall` on the loop's thread, then runs `body` there.
  func onLoopFailing<T: Sendable>(
    _ loop: EpollEventLoop, _ syscall: String, with errnos: [Int32],
    _ body: @escaping @Sendable () throws -> T
  ) throws -> T {
    try TimerLoopTests.onLoop(loop) {
      FaultInjection.inject(errnos, into: syscall)
      defer { FaultInjection.reset() }
      return try body()
    }
  }

  @Test(arguments: [("timerfd_create", EMFILE), ("epoll_ctl", ENOMEM), ("timerfd_settime", EINVAL)])
  func aFailureToOpenOrArmTheTimerfdStopsTheLoopAndSaysWhy(
    syscall: String, errno code: Int32
  ) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let (outcome, canary) = try onLoopFailing(loop, syscall, with: [code]) {
      () -> (TimerLoopError?, WeakReference<Canary>) in
      let canary = Canary()
      do throws(TimerLoopError) {
        try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) { _ = canary }
        return (nil, WeakReference(canary))
      } catch {
        return (error, WeakReference(canary))
      }
    }
    #expect(outcome == .shutdown)
    #expect(loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)))
    #expect(loop.terminationError == SystemError(syscall: syscall, errno: code))
    #expect(canary.object == nil, "a stopped loop still holds a closure")
  }

  @Test func runThrowsTheFailureOfAClockTimerfd() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let thrown = Locked<(any Error)?>(nil)
    let returned = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      do { try loop.run() } catch { thrown.withLock { $0 = error } }
      returned.signal()
    }
    try onLoopFailing(loop, "timerfd_create", with: [EMFILE]) {
      _ = try? loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    }
    #expect(returned.wait(timeout: .now() + .seconds(30)) == .success)
    let error = try #require(thrown.withLock { $0 } as? SystemError)
    #expect(error == SystemError(syscall: "timerfd_create", errno: EMFILE))
  }

  @Test func runOnceThrowsTheFailureOfAClockTimerfd() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    try loop.execute {
      FaultInjection.inject([EMFILE], into: "timerfd_create")
      defer { FaultInjection.reset() }
      _ = try? loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) {}
    }
    #expect(throws: SystemError(syscall: "timerfd_create", errno: EMFILE)) {
      try loop.runOnce()
    }
  }

  /// A host loop that watches only the backend descriptor hears of clock
  /// timers too: their timerfds are in the same epoll set.
  @Test func anEmbeddedLoopsDescriptorBecomesReadableForClockTimers() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<String>()
    try loop.schedule(at: loop.continuousNow.advanced(by: .milliseconds(5))) {
      fired.append("boot")
    }
    try loop.schedule(at: loop.wallClockNow.addingTimeInterval(0.005)) { fired.append("wall") }
    var polls = 0
    while fired.all.count < 2 && polls < 1_000 {
      var watch = pollfd(fd: loop.backendDescriptor, events: Int16(POLLIN), revents: 0)
      #expect(poll(&watch, 1, 30_000) == 1, "the descriptor did not become readable")
      try loop.runOnce()
      polls += 1
    }
    #expect(Set(fired.all) == ["boot", "wall"])
  }

  @Test func aFailingReadOfTheTimerfdStopsTheLoopAndSaysWhy() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try TimerLoopTests.onLoop(loop) {
      // Not reset: the read comes in a later iteration of the loop.
      FaultInjection.inject([EIO], into: "read(clock timerfd)")
      try loop.schedule(at: loop.continuousNow) {}
    }
    #expect(loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)))
    #expect(loop.terminationError == SystemError(syscall: "read(clock timerfd)", errno: EIO))
  }
}
