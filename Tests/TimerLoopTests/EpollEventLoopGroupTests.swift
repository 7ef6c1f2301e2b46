import Dispatch
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

@Suite struct EventLoopGroupTests {
  @Test func nextGoesRoundRobinAndEachLoopRunsOnItsOwnThread() throws {
    let group = try EpollEventLoopGroup(count: 3)
    defer { group.shutdown() }
    #expect(group.loops.count == 3)
    let picked = (0..<6).map { _ in group.next() }
    for (index, loop) in picked.enumerated() { #expect(loop === group.loops[index % 3]) }
    let threads = Locked<Set<UInt>>([])
    let done = DispatchGroup()
    for loop in group.loops {
      done.enter()
      try loop.execute {
        threads.withLock { _ = $0.insert(pthread_self()) }
        done.leave()
      }
    }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(threads.withLock { $0.count } == 3)
  }

  @Test func currentIsTheGroupsLoopOnItsThreadAndNilElsewhere() throws {
    let group = try EpollEventLoopGroup(count: 2)
    defer { group.shutdown() }
    let other = try EpollEventLoop.startOnNewThread()
    defer { other.shutdown() }
    #expect(group.current == nil)
    let results = Locked<[Bool]>([])
    let done = DispatchGroup()
    for (loop, expectsGroup) in [(group.loops[1], true), (other, false)] {
      done.enter()
      try loop.execute {
        let current = group.current
        results.withLock { $0.append(expectsGroup ? current === loop : current == nil) }
        done.leave()
      }
    }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(results.withLock { $0 } == [true, true])
  }

  @Test func shutdownStopsEveryLoopAndReleasesTheirTimers() throws {
    let group = try EpollEventLoopGroup(count: 2)
    weak var weakCanary: Canary?
    try {
      let canary = Canary()
      weakCanary = canary
      for loop in group.loops { try loop.schedule(after: .seconds(3600)) { _ = canary } }
    }()
    group.shutdown()
    #expect(weakCanary == nil)
    for loop in group.loops {
      #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
    }
    group.shutdown()  // idempotent
  }

  /// Two loops of a group shutting the group down at the same moment must
  /// not wait for each other.
  @Test func shutdownFromTwoOfItsOwnLoopsAtOnceDoesNotDeadlock() throws {
    let group = try EpollEventLoopGroup(count: 2)
    let start = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    let returned = DispatchGroup()
    for loop in group.loops {
      returned.enter()
      try loop.execute {
        entered.signal()
        start.wait()
        group.shutdown()
        returned.leave()
      }
    }
    // Both tasks are running before either shuts the group down (a task not
    // yet started would be dropped by the shutdown, as designed).
    for _ in group.loops { #expect(entered.wait(timeout: .now() + .seconds(30)) == .success) }
    start.signal()
    start.signal()
    #expect(returned.wait(timeout: .now() + .seconds(30)) == .success, "deadlocked")
    group.shutdown()  // from outside: waits for both to stop
    for loop in group.loops {
      #expect(throws: TimerLoopError.shutdown) { try loop.execute {} }
    }
  }

  @Test func aGroupHasAtLeastOneLoop() throws {
    let group = try EpollEventLoopGroup(count: 0)
    defer { group.shutdown() }
    #expect(group.loops.count == 1)
  }
}
