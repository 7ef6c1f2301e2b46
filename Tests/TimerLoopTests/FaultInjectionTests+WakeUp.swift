import Dispatch
import Foundation
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// A failing wake-up write (`eventfd_write`, other than `EAGAIN`) from another
/// thread: the loop never sleeps through it, and no caller waits forever.
/// Faults are per thread, and the thread giving the loop work makes the write.
extension FaultInjectionTests {
  @Test func aFailingWakeUpWriteStopsTheLoopAndTheCallerLearnsIt() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let reported = EventLog<SystemError>()
    loop.onTermination { reported.append($0) }
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      // Scheduled on the loop and waited for: no wake-up is pending now, and
      // the loop sleeps with its timerfd armed an hour ahead.
      try onLoop(loop) { _ = try loop.schedule(after: .seconds(3600)) { _ = canary } }
    }()
    FaultInjection.inject([EIO], into: "eventfd_write")
    defer { FaultInjection.reset() }
    let ran = Locked(false)
    #expect(throws: TimerLoopError.shutdown) {
      try loop.execute { ran.withLock { $0 = true } }
    }
    #expect(
      loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)), "the loop kept sleeping")
    let expected = SystemError(syscall: "eventfd_write", errno: EIO)
    #expect(loop.terminationError == expected)
    #expect(reported.all == [expected])
    #expect(weakCanary == nil, "a stopped loop still holds a closure")
    #expect(!ran.withLock { $0 })
    #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
  }

  @Test func shutdownFromAnotherThreadReturnsWhenItsWakeUpWriteFails() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      try onLoop(loop) { _ = try loop.schedule(after: .seconds(3600)) { _ = canary } }
    }()
    let returned = DispatchSemaphore(value: 0)
    // A thread of its own, so a hang fails the test instead of stalling it,
    // and the armed fault dies with the thread.
    Thread {
      FaultInjection.inject([EIO], into: "eventfd_write")
      loop.shutdown()
      returned.signal()
    }.start()
    #expect(returned.wait(timeout: .now() + .seconds(30)) == .success, "shutdown() hung")
    #expect(weakCanary == nil, "shutdown() returned before the loop released its closures")
    // Recovered: the loop stopped because it was asked to, not by a failure.
    #expect(loop.terminationError == nil)
  }

  /// An embedded loop learns it from its descriptor, which turns readable, and
  /// its next `runOnce()` throws it.
  @Test func aFailingWakeUpWriteStopsAnEmbeddedLoopAtItsNextRunOnce() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    try loop.runOnce()
    FaultInjection.inject([EIO], into: "eventfd_write")
    defer { FaultInjection.reset() }
    #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
    var host = pollfd(fd: loop.backendDescriptor, events: Int16(POLLIN), revents: 0)
    #expect(poll(&host, 1, 30_000) == 1, "the host would not call runOnce()")
    let expected = SystemError(syscall: "eventfd_write", errno: EIO)
    #expect(throws: expected) { try loop.runOnce() }
    #expect(loop.terminationError == expected)
  }
}
