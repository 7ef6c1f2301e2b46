import Dispatch
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The loop driven by a host loop written here: `poll` on the backend
/// descriptor, `runOnce()` when it is readable, all on the test's thread.
@Suite struct EmbeddingTests {
  /// Polls `loop.backendDescriptor` and calls `runOnce()` until `done()` or 30 s pass.
  private func host(_ loop: EpollEventLoop, until done: () -> Bool) throws {
    let giveUp = Deadline.now() + .seconds(30)
    while !done() && Deadline.now() < giveUp {
      var descriptor = pollfd(fd: loop.backendDescriptor, events: Int16(POLLIN), revents: 0)
      _ = poll(&descriptor, 1, 1_000)  // the descriptor says when; the timeout only bounds the test
      try loop.runOnce()
    }
  }

  @Test func aHostLoopFiresTimersInOrderOnItsOwnThreadNeverEarly() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Int>()
    let early = Atomic<Int>(0)
    let offHostThread = Atomic<Int>(0)
    let hostThread = pthread_self()
    for (index, ms) in [30, 10, 20].enumerated() {
      let deadline = loop.now + .milliseconds(Int64(ms))
      try loop.schedule(at: deadline) {
        if Deadline.now() < deadline { early.add(1, ordering: .relaxed) }
        if pthread_self() != hostThread || !loop.inEventLoop {
          offHostThread.add(1, ordering: .relaxed)
        }
        fired.append(index)
      }
    }
    try host(loop) { fired.all.count == 3 }
    #expect(fired.all == [1, 2, 0])
    #expect(early.load(ordering: .relaxed) == 0)
    #expect(offHostThread.load(ordering: .relaxed) == 0)
    #expect(loop.nextDeadline == nil, "no timer is pending")
  }

  @Test func nextDeadlineNamesTheEarliestTimerAndTasksMakeTheDescriptorReadable() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let before = loop.now
    try loop.schedule(after: .seconds(60)) {}
    try loop.runOnce()
    let pending = try #require(loop.nextDeadline)
    #expect(pending >= before + .seconds(60))
    // A task queued by a callback must get its own runOnce() without a timeout.
    let ran = Atomic<Bool>(false)
    try loop.execute { _ = try? loop.execute { ran.store(true, ordering: .relaxed) } }
    try host(loop) { ran.load(ordering: .relaxed) }
    let taskRan = ran.load(ordering: .relaxed)
    #expect(taskRan)
  }

  @Test func descriptorsAndTimersShareTheHostLoop() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    var fds: [CInt] = [0, 0]
    try #require(pipe(&fds) == 0)
    let (reader, writer) = (fds[0], fds[1])
    defer {
      close(reader)
      close(writer)
    }
    let read = Atomic<Bool>(false)
    try loop.execute {
      _ = try? loop.register(reader, for: .readable) { _ in
        var byte: UInt8 = 0
        _ = Glibc.read(reader, &byte, 1)
        read.store(true, ordering: .relaxed)
      }
    }
    try loop.schedule(after: .milliseconds(5)) {
      var byte: UInt8 = 7
      _ = Glibc.write(writer, &byte, 1)
    }
    try host(loop) { read.load(ordering: .relaxed) }
    let handlerRan = read.load(ordering: .relaxed)
    #expect(handlerRan)
  }

  /// shutdown() from another thread during a runOnce() only marks the loop;
  /// the runOnce() releases everything and closes the descriptors, once.
  @Test func shutdownFromAnotherThreadDuringRunOnceIsHandledByTheRunOnce() throws {
    let loop = try EpollEventLoop()
    let inCallback = DispatchSemaphore(value: 0)
    let shutDown = DispatchSemaphore(value: 0)
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      try loop.schedule(after: .seconds(3600)) { _ = canary }
    }()
    try loop.execute {
      inCallback.signal()
      _ = shutDown.wait(timeout: .now() + .seconds(30))
    }
    DispatchQueue.global().async {
      _ = inCallback.wait(timeout: .now() + .seconds(30))
      loop.shutdown()  // must neither wait for this runOnce nor touch its state
      shutDown.signal()
    }
    try loop.runOnce()
    #expect(weakCanary == nil)
    #expect(throws: TimerLoopError.shutdown) { try loop.runOnce() }
  }

  @Test func anEmbeddedLoopCannotAlsoRunAndStopsForGoodOnShutdown() throws {
    let loop = try EpollEventLoop()
    try loop.runOnce()
    try loop.run()  // returns at once: the loop is embedded
    loop.shutdown()
    #expect(throws: TimerLoopError.shutdown) { try loop.runOnce() }
    let running = try EpollEventLoop.startOnNewThread()
    defer { running.shutdown() }
    #expect(throws: TimerLoopError.wrongThread) { try running.runOnce() }
  }

  /// A failing call of an embedded loop's own stops it, as with `run()`:
  /// `runOnce()` throws it and `terminationError` keeps it.
  @Test func aFailingRunOnceStopsTheLoopAndSaysWhy() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    FaultInjection.inject([EIO], into: "epoll_wait")
    defer { FaultInjection.reset() }
    #expect(throws: SystemError(syscall: "epoll_wait", errno: EIO)) { try loop.runOnce() }
    #expect(loop.terminationError == SystemError(syscall: "epoll_wait", errno: EIO))
    #expect(throws: TimerLoopError.shutdown) { try loop.runOnce() }
  }

}
