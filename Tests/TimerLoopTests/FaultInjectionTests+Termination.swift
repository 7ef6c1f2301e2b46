import Dispatch
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``EpollEventLoop/onTermination(_:)``: when a failing system call stops the
/// loop, on which thread the handler runs, and what a late handler sees.
extension FaultInjectionTests {
  /// Stops `loop` with an injected `epoll_wait` failure and waits until it has stopped.
  private func failWait(of loop: EpollEventLoop) throws {
    try inject([ENOMEM], into: "epoll_wait", on: loop)
    try? loop.execute {}  // makes the loop wait again, which fails
  }

  @Test func aFailingSystemCallCallsTheHandlerOnceOnTheLoopThreadAfterShutdown() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let loopThread = try onLoop(loop) { pthread_self() }
    struct Call: Sendable {
      var error: SystemError
      var onLoopThread: Bool
      var terminationError: SystemError?
      var schedulingThrows: Bool
    }
    let calls = EventLog<Call>()
    let called = DispatchSemaphore(value: 0)
    loop.onTermination { error in
      calls.append(
        Call(
          error: error, onLoopThread: pthread_equal(pthread_self(), loopThread) != 0,
          terminationError: loop.terminationError,
          schedulingThrows: (try? loop.schedule(after: .zero) {}) == nil))
      called.signal()
    }
    try failWait(of: loop)
    #expect(called.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)))
    let expected = SystemError(syscall: "epoll_wait", errno: ENOMEM)
    let call = try #require(calls.all.first)
    #expect(calls.all.count == 1)
    #expect(call.error == expected && call.terminationError == expected)
    #expect(call.onLoopThread && call.schedulingThrows)
  }

  @Test func aHandlerSetAfterTheFailureRunsAtOnceOnTheCallingThread() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    try failWait(of: loop)
    #expect(loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)))
    let calls = EventLog<(SystemError, pthread_t)>()
    loop.onTermination { calls.append(($0, pthread_self())) }
    let call = try #require(
      calls.all.first, "the handler did not run before onTermination returned")
    #expect(call.0 == SystemError(syscall: "epoll_wait", errno: ENOMEM))
    #expect(pthread_equal(call.1, pthread_self()) != 0)
  }

  @Test func aLoopStoppedByShutdownReleasesItsHandlerWithoutCallingIt() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    let calls = EventLog<SystemError>()
    weak var replaced: Canary?
    weak var pending: Canary?
    weak var late: Canary?
    func handler(_ canary: Canary) -> @Sendable (SystemError) -> Void {
      {
        _ = canary
        calls.append($0)
      }
    }
    do {
      let canary = Canary()
      replaced = canary
      loop.onTermination(handler(canary))
    }
    do {
      let canary = Canary()
      pending = canary
      loop.onTermination(handler(canary))
    }
    #expect(replaced == nil, "a replaced handler is still held")
    #expect(pending != nil)
    loop.shutdown()
    #expect(pending == nil, "the handler outlived shutdown()")
    do {
      let canary = Canary()
      late = canary
      loop.onTermination(handler(canary))
    }
    #expect(late == nil, "a handler set after shutdown() is still held")
    #expect(calls.all.isEmpty)
  }
}
