import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import TimerLoop
import TimerLoopNIO

/// A file that imports NIOCore, NIOPosix, NIOEmbedded, TimerLoop and
/// TimerLoopNIO compiles with unqualified names: it failing to build is the
/// failure this guards against (issue 20, item 4).
@Suite struct NameClashCompileTests {
  @Test func bothLibrariesInOneFile() throws {
    let group: EventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let eventLoop: EventLoop = group.next()
    let timers: NIOTimerLoop = eventLoop.timerLoop
    let asTimerEventLoop: any TimerEventLoop = timers
    let deadline: Deadline = timers.now
    let nioDeadline: NIODeadline = NIODeadline(deadline)
    #expect(Deadline(nioDeadline) == deadline)
    let handle: TimerHandle = try asTimerEventLoop.schedule(at: .distantFuture) {}
    handle.cancel()
    let epoll = try EpollEventLoop.startOnNewThread(name: "clash-test")
    defer { epoll.shutdown() }
    let epollGroup: EpollEventLoopGroup? = nil
    let embedded = EmbeddedEventLoop()
    #expect(epollGroup == nil && embedded.timerLoop.now == Deadline(embedded.now))
    // NIO's TimeAmount and TimerLoop's Duration, each where its library takes it.
    let nioDelay: TimeAmount = .milliseconds(1)
    let timerLoopDelay: Duration = .milliseconds(1)
    _ = try eventLoop.scheduleTask(in: nioDelay) {}.futureResult.wait()
    try timers.schedule(after: timerLoopDelay) {}.cancel()
    _ = try asTimerEventLoop.schedule(after: .milliseconds(1)) {}
  }

  /// `NIODeadline.now()` and ``Deadline/now()`` read the same clock
  /// (`CLOCK_MONOTONIC`): a reading of one lies between two of the other,
  /// which a reading of another clock (`CLOCK_BOOTTIME` on a machine that has
  /// been suspended, `CLOCK_REALTIME`) misses by far more than the readings take.
  @Test func nioDeadlineAndDeadlineReadTheSameClock() {
    for _ in 0..<100 {
      let before = Deadline.now()
      let nio = Deadline(NIODeadline.now())
      let after = Deadline.now()
      #expect(before <= nio && nio <= after)
    }
  }
}
