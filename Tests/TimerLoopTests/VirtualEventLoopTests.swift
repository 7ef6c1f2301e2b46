import Dispatch
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// What is particular to the virtual-time loop: when `advanceTime` returns.
@Suite struct VirtualEventLoopTests {
  /// Other threads that keep calling `execute` cannot keep `advanceTime` from
  /// returning: here each task has another thread send the next one and
  /// waits until it is sent, so a request always waits in the inbox. The
  /// chain ends by itself after 10,000 links, so a regression fails the
  /// expectation instead of hanging the suite.
  @Test func advanceTimeReturnsWhileOtherThreadsKeepCallingExecute() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let relay = Relay(loop: loop, links: 10_000)
    try loop.execute { relay.sendNext() }
    let fired = Locked(false)
    try loop.schedule(after: .milliseconds(5)) { fired.withLock { $0 = true } }
    loop.advanceTime(by: .milliseconds(10))
    #expect(relay.linksLeft > 0, "advanceTime returned only when the chain ended")
    #expect(fired.withLock { $0 })
    #expect(loop.now == Deadline(uptimeNanoseconds: 1_000_000_000) + .milliseconds(10))
  }

  /// A chain of tasks, each sent to the loop from another thread.
  private final class Relay: Sendable {
    let loop: VirtualEventLoop
    private let links: Locked<Int>

    init(loop: VirtualEventLoop, links: Int) {
      self.loop = loop
      self.links = Locked(links)
    }

    var linksLeft: Int { links.withLock { $0 } }

    /// Has another thread send the next link, and waits until it is sent.
    func sendNext() {
      let sent = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        let more = self.links.withLock { links in
          links -= 1
          return links > 0
        }
        if more { try? self.loop.execute { self.sendNext() } }
        sent.signal()
      }
      sent.wait()
    }
  }

  /// A nested `advanceTime` would run passes inside a pass; it is refused with
  /// a message that says what to do instead.
  @Test func advanceTimeFromItsOwnCallbackIsRefused() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let loop = VirtualEventLoop()
      try loop.schedule(after: .milliseconds(1)) { loop.advanceTime(by: .milliseconds(1)) }
      loop.advanceTime(by: .milliseconds(1))
    }
    let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(stderr.contains(VirtualEventLoop.nestedAdvanceMessage), "\(stderr)")
  }

  /// What a callback may do instead: `stall(for:)`, and the same loop's
  /// `advanceTime` works again once the outer call has returned.
  @Test func aCallbackMovesTheClockWithStall() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    try loop.schedule(after: .milliseconds(1)) { loop.stall(for: .milliseconds(5)) }
    loop.advanceTime(by: .milliseconds(1))
    #expect(loop.now == start + .milliseconds(6))
    loop.advanceTime(by: .milliseconds(1))
    #expect(loop.now == start + .milliseconds(7))
  }
}
