import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Failures of the loop's own system calls, injected through the test-only
/// seam under `retryingOnInterrupt` (``FaultInjection``): each gives a clear
/// error or a documented recovery, never a crash, a hang or a lost timer.
@Suite struct FaultInjectionTests {
  /// Arms faults on the loop's own thread, where its waits and arms happen.
  func inject(_ errnos: [Int32], into syscall: String, on loop: EpollEventLoop) throws {
    let armed = DispatchSemaphore(value: 0)
    try loop.execute {
      FaultInjection.inject(errnos, into: syscall)
      armed.signal()
    }
    #expect(armed.wait(timeout: .now() + .seconds(30)) == .success)
  }

  @Test func aStormOfInterruptedWaitsNeitherLosesNorStretchesATimer() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try inject(Array(repeating: EINTR, count: 1_000), into: "epoll_wait", on: loop)
    let fired = DispatchSemaphore(value: 0)
    let firedAt = Locked<Deadline?>(nil)
    let deadline = loop.now + .milliseconds(50)
    try loop.schedule(at: deadline) {
      firedAt.withLock { $0 = .now() }
      fired.signal()
    }
    #expect(fired.wait(timeout: .now() + .seconds(60)) == .success)
    // Not early, and late by no more than a loaded machine's pauses (the
    // bound is generous: a stalled VM holds a thread off the CPU for seconds).
    let lateness = try #require(firedAt.withLock { $0 }) - deadline
    #expect(lateness >= .zero && lateness < .seconds(30))
  }

  @Test(arguments: [
    ("epoll_wait", ENOMEM), ("timerfd_settime", EINVAL), ("read(timerfd)", EIO),
    ("eventfd_read", EIO),
  ])
  func aFailingLoopCallStopsTheLoopAndSaysWhy(syscall: String, errno code: Int32) throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      try loop.schedule(after: .seconds(3600)) { _ = canary }
    }()
    try inject([code], into: syscall, on: loop)
    // This request makes the loop read its eventfd; its near timer makes it
    // arm, wait for and read its timerfd.
    try? loop.execute { _ = try? loop.schedule(after: .milliseconds(5)) {} }
    #expect(
      loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)), "the loop kept running")
    #expect(loop.terminationError == SystemError(syscall: syscall, errno: code))
    #expect(weakCanary == nil, "a stopped loop still holds a closure")
    #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
  }

  /// A failing `epoll_ctl(EPOLL_CTL_DEL)` is thrown, and the descriptor stays
  /// registered with its handler: dropped while epoll still watched it, a
  /// readable descriptor would wake the loop over and over with nobody to
  /// read it.
  @Test func aFailingDeregistrationIsThrownAndKeepsTheRegistration() throws {
    var pipeEnds: [CInt] = [0, 0]
    try #require(pipe(&pipeEnds) == 0)
    let fds = pipeEnds
    defer { for fd in fds { close(fd) } }
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }  // before the pipe closes
    let handled = DispatchSemaphore(value: 0)
    let registration = try onLoop(loop) {
      try loop.register(fds[0], for: .readable) { _ in
        var byte: UInt8 = 0
        _ = read(fds[0], &byte, 1)
        handled.signal()
      }
    }
    try onLoop(loop) {
      FaultInjection.inject([EIO], into: "epoll_ctl")
      #expect(throws: SystemError(syscall: "epoll_ctl", errno: EIO)) {
        try registration.deregister()
      }
    }
    var byte: UInt8 = 1
    #expect(write(fds[1], &byte, 1) == 1)
    #expect(handled.wait(timeout: .now() + .seconds(30)) == .success, "the handler was dropped")
    try onLoop(loop) { try registration.deregister() }
    #expect(loop.terminationError == nil)
  }

  /// A full eventfd counter makes the wake-up write fail with EAGAIN (a real
  /// one, not injected): the loop is already due to wake, so the request is
  /// not lost and nothing fails.
  @Test func aWakeUpWriteToAFullEventfdIsNotAnError() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    // The loop is held inside a task, so nothing drains the counter meanwhile.
    let release = try holdLoopThread(loop)
    var counter: UInt64 = 0
    _ = read(loop.testsOnly_eventFD, &counter, 8)  // empty it (it may hold an unread wake-up)
    counter = 0xFFFF_FFFF_FFFF_FFFE  // the largest value an eventfd holds
    #expect(write(loop.testsOnly_eventFD, &counter, 8) == 8)
    let ran = DispatchSemaphore(value: 0)
    try loop.execute { ran.signal() }  // its wake-up write meets EAGAIN
    release.signal()
    #expect(ran.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(loop.terminationError == nil)
  }

  @Test func aTimerfdReadThatFindsNothingIsNotAnError() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try inject([EAGAIN, EAGAIN, EAGAIN], into: "read(timerfd)", on: loop)
    let fired = DispatchSemaphore(value: 0)
    try loop.schedule(after: .milliseconds(5)) { fired.signal() }
    #expect(fired.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(loop.terminationError == nil)
  }

  /// Deadlines follow CLOCK_MONOTONIC, so setting the wall clock cannot move
  /// them. The test cannot set the clock; it asks the kernel which clock the
  /// loop's timerfd counts.
  @Test func theTimerfdCountsTheMonotonicClock() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let info = try String(
      contentsOfFile: "/proc/self/fdinfo/\(loop.testsOnly_timerFD)", encoding: .utf8)
    #expect(info.contains("clockid: \(CLOCK_MONOTONIC)"), "\(info)")
  }
}
