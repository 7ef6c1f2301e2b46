import Dispatch
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Descriptor readiness on the loop, with pipes and socket pairs.
@Suite struct DescriptorTests {
  /// A non-blocking pipe: (read end, write end).
  private func makePipe() throws -> (CInt, CInt) {
    var fds: [CInt] = [0, 0]
    try #require(pipe(&fds) == 0)
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
  }

  private func closeAll(_ fds: CInt...) {
    for fd in fds { close(fd) }
  }

  private func write(_ fd: CInt, _ byte: UInt8 = 42) {
    var byte = byte
    _ = Glibc.write(fd, &byte, 1)
  }

  @Test func aReadableDescriptorCallsItsHandlerOnTheLoopThread() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let (reader, writer) = try makePipe()
    defer { closeAll(reader, writer) }
    let readable = DispatchSemaphore(value: 0)
    let onLoopThread = Atomic<Bool>(false)
    let registration = Locked<DescriptorRegistration?>(nil)
    try onLoop(loop) {
      let handle = try loop.register(reader, for: .readable) { readiness in
        var byte: UInt8 = 0
        _ = read(reader, &byte, 1)
        onLoopThread.store(loop.inEventLoop && readiness.contains(.readable), ordering: .relaxed)
        readable.signal()
      }
      registration.withLock { $0 = handle }
    }
    write(writer)
    #expect(readable.wait(timeout: .now() + .seconds(30)) == .success)
    let ranOnLoopThread = onLoopThread.load(ordering: .relaxed)
    #expect(ranOnLoopThread)
    try onLoop(loop) { try registration.withLock { $0 }?.deregister() }
  }

  @Test func writableInterestCanBeTurnedOnAndOff() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    var pair: [CInt] = [0, 0]
    try #require(
      socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair)
        == 0)
    defer {
      close(pair[0])
      close(pair[1])
    }
    let socket = pair[0]
    let writableCalls = Atomic<Int>(0)
    let firstWritable = DispatchSemaphore(value: 0)
    let registration = Locked<DescriptorRegistration?>(nil)
    try onLoop(loop) {
      let handle = try loop.register(socket, for: .readable) { readiness in
        if readiness.contains(.writable) {
          if writableCalls.add(1, ordering: .relaxed).newValue == 1 { firstWritable.signal() }
          try? registration.withLock { $0 }?.setInterest(.readable)  // stop asking
        }
      }
      registration.withLock { $0 = handle }
      // Not reported while only readable interest is set, though the socket is writable.
    }
    try onLoop(loop) {}
    #expect(writableCalls.load(ordering: .relaxed) == 0)
    try onLoop(loop) { try registration.withLock { $0 }?.setInterest([.readable, .writable]) }
    #expect(firstWritable.wait(timeout: .now() + .seconds(30)) == .success)
    try onLoop(loop) {}
    try onLoop(loop) {}
    #expect(writableCalls.load(ordering: .relaxed) == 1, "interest was not turned off")
    try onLoop(loop) { try registration.withLock { $0 }?.deregister() }
  }

  /// Two descriptors ready in the same `epoll_wait` batch; whichever handler
  /// runs first deregisters the other, whose pending event must be dropped.
  @Test func deregisteringInsideAHandlerDropsAPendingEventOfTheSameBatch() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let (readerA, writerA) = try makePipe()
    let (readerB, writerB) = try makePipe()
    defer { closeAll(readerA, writerA, readerB, writerB) }
    let calls = Atomic<Int>(0)
    let registrations = Locked<[DescriptorRegistration]>([])
    let release = try holdLoopThread(loop)
    // Registered and made readable while the loop is held: both events land in one batch.
    try loop.execute {
      for (index, reader) in [readerA, readerB].enumerated() {
        let handle = try? loop.register(reader, for: .readable) { _ in
          calls.add(1, ordering: .relaxed)
          // Deregister both: self and the other, whose event is still pending.
          for registration in registrations.withLock({ $0 }) { try? registration.deregister() }
          _ = index
        }
        if let handle { registrations.withLock { $0.append(handle) } }
      }
    }
    write(writerA)
    write(writerB)
    release.signal()
    try onLoop(loop) {}
    try onLoop(loop) {}
    #expect(calls.load(ordering: .relaxed) == 1)
  }

  @Test func levelTriggeredRepeatsUntilDrainedAndEdgeTriggeredDoesNot() throws {
    for mode in [TriggerMode.level, .edge] {
      let loop = try EpollEventLoop.startOnNewThread()
      defer { loop.shutdown() }
      let (reader, writer) = try makePipe()
      defer { closeAll(reader, writer) }
      let calls = Atomic<Int>(0)
      // The handler never reads, so the pipe stays readable.
      try onLoop(loop) {
        _ = try loop.register(reader, for: .readable, mode: mode) { _ in
          calls.add(1, ordering: .relaxed)
        }
      }
      write(writer)
      for _ in 0..<5 { try onLoop(loop) {} }
      let seen = calls.load(ordering: .relaxed)
      if mode == .level {
        #expect(seen > 1, "level-triggered reported \(seen) time(s)")
      } else {
        #expect(seen == 1, "edge-triggered reported \(seen) times")
      }
    }
  }

  @Test func registeringOffTheLoopThreadOrAfterShutdownThrows() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    let (reader, writer) = try makePipe()
    defer { closeAll(reader, writer) }
    #expect(throws: TimerLoopError.wrongThread) {
      _ = try loop.register(reader, for: .readable) { _ in }
    }
    loop.shutdown()
  }

  @Test func shutdownReleasesHandlersWithoutClosingDescriptors() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    let (reader, writer) = try makePipe()
    defer { closeAll(reader, writer) }
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      try onLoop(loop) { _ = try loop.register(reader, for: .readable) { _ in _ = canary } }
    }()
    loop.shutdown()
    #expect(weakCanary == nil)
    #expect(fcntl(reader, F_GETFD) != -1, "the loop closed a descriptor it does not own")
  }

  /// README, Cancel: a closure cancelled from another thread is released
  /// before the loop runs anything else, a descriptor handler included. Two
  /// pipes become readable in one batch; whichever handler runs first cancels
  /// a timer from another thread, the second sees its closure gone.
  @Test func crossThreadCancelReleasesTheClosureBeforeTheNextHandler() throws {
    let (reader1, writer1) = try makePipe()
    let (reader2, writer2) = try makePipe()
    defer { closeAll(reader1, writer1, reader2, writer2) }
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }  // before the pipes close: it drops the registrations
    let watched = try {
      let canary = Canary()
      let handle = try loop.schedule(after: .seconds(3600)) { _ = canary }
      return (WeakReference(canary), handle)
    }()
    let calls = Locked<[Bool]>([])  // per handler call: was the closure already gone?
    let bothRan = DispatchSemaphore(value: 0)
    try onLoop(loop) {
      for reader in [reader1, reader2] {
        _ = try loop.register(reader, for: .readable) { _ in
          var byte: UInt8 = 0
          _ = read(reader, &byte, 1)
          if calls.withLock({ $0.isEmpty }) {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
              watched.1.cancel()
              done.signal()
            }
            done.wait()
          }
          let count = calls.withLock { calls in
            calls.append(watched.0.object == nil)
            return calls.count
          }
          if count == 2 { bothRan.signal() }
        }
      }
    }
    let release = try holdLoopThread(loop)
    write(writer1)
    write(writer2)
    release.signal()
    #expect(bothRan.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(calls.withLock { $0 } == [false, true])
  }

}
