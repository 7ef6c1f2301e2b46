import NIOCore
import NIOEmbedded
@_spi(TimerLoopHost) import TimerLoopCore

/// TimerLoop's timers on a SwiftNIO `EventLoop`: the loop's timer wheel,
/// driven by the NIO loop itself, on its own thread. There is one per NIO
/// loop (one per loop of a `MultiThreadedEventLoopGroup`), made the first
/// time it is asked for with `EventLoop.timerLoop` or
/// ``on(_:)``.
///
/// It is a `TimerEventLoop`: every call of that protocol works on
/// it (one-shot and repeating timers, handler timers with `TimerKey`,
/// `execute`, `sleep`, `withTimeout`, ticks, `clock`), with the same
/// semantics as on `EpollEventLoop`, word for word: never early,
/// equal deadlines in scheduling order, passes, the cancel promise, repeat
/// policies, bad input and shutdown.
///
/// On the NIO loop's thread (in a `ChannelHandler`, a future's callback, a
/// timer callback), scheduling, cancelling, rescheduling and a handler
/// timer's `arm` and `disarm` go straight into the wheel: no lock, no thread
/// hop, and no allocation for handler timers. One NIO scheduled callback
/// (`EventLoop.scheduleCallback`) stands armed at the wheel's earliest
/// deadline and is re-armed only when that deadline moves earlier. Calls
/// from other threads are safe; they reach the loop through its `execute`.
/// Closures run on the NIO loop's thread, in passes that NIO runs as tasks.
/// Use `TimerEventLoop.assumeIsolated()` there to schedule closures
/// that capture channel state which is not `Sendable`.
///
/// ```swift
/// // In a ChannelHandler, on the channel's loop.
/// let timers = context.eventLoop.timerLoop                 // keep it: the lookup takes a lock
/// let idle = try timers.makeTimer(handler: closeOnTimeout)  // a TimerHandler
/// timers.arm(idle, after: .seconds(30))                     // on every read: no allocation
/// ```
///
/// The package's README has the whole idle-timeout handler.
///
/// **Time.** `TimerEventLoop.now` is the NIO loop's `now`. On a
/// loop of NIOPosix that is `CLOCK_MONOTONIC`, the clock of
/// `Deadline` (convert with `Deadline.init(_:)` and
/// `NIODeadline(_:)`). On `EmbeddedEventLoop` and `NIOAsyncTestingEventLoop`
/// it is their virtual time: a test moves it with their `advanceTime`, and
/// timers fire in those calls, so handlers' timeouts are tested on NIO's
/// own virtual time. An `EmbeddedEventLoop` is not thread-safe (NIO's rule):
/// call this loop's methods from the thread that created it. A call from
/// another thread is not lost, but nothing wakes the embedded loop for it:
/// it takes effect in the next pass the loop runs for a timer or a call on
/// its own thread. Work from other threads (tasks, `sleep`, cancellation)
/// needs `NIOAsyncTestingEventLoop`. A test loop with a timer loop stays
/// alive until it is shut down (`syncShutdownGracefully()`), as a loop of
/// a group does: the timer loop keeps a callback scheduled on it.
///
/// **Shutdown.** When the NIO loop shuts down, NIO cancels the standing
/// callback and this loop shuts down with it, on the NIO loop's thread:
/// every pending timer and task closure is released without running, later
/// calls that add work throw `TimerLoopError.shutdown`, and
/// pending sleeps and timeouts throw it (the README's shutdown rows).
/// A call from another thread in the moment NIO stops taking tasks may make
/// NIO print that a task was scheduled on a loop that has shut down; that
/// call's request is then released by the shutdown.
///
/// **Not here.** Boot-time and wall-clock timers (`ContinuousClock.Instant`,
/// `Date` and calendar schedules, wall-clock grids) need the
/// epoll loop's timerfds; this loop has monotonic timers only. Those calls
/// throw `TimerLoopError.unsupportedClock`, schedule nothing and release
/// their closure; `continuousNow` and `wallClockNow` read the system's
/// clocks. It is not a Swift concurrency executor: tasks use NIO's executors.
public final class NIOTimerLoop: TimerEventLoop {
  /// The loop's timer state (`TimerEventLoop.scheduler`); use the
  /// methods of `TimerEventLoop`.
  @_documentation(visibility: internal)
  public let scheduler: TimerScheduler
  /// The NIO loop whose thread runs this loop's closures.
  public let eventLoop: any EventLoop
  let driver: NIOHostDriver

  /// Made by ``on(_:)`` only: one per NIO loop.
  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
    // NIO's EmbeddedEventLoop belongs to the thread that made it, which must
    // be this one, and answers `inEventLoop` with true on any thread.
    let pinned = eventLoop is EmbeddedEventLoop
    let driver = NIOHostDriver(eventLoop: eventLoop, pinned: pinned)
    self.driver = driver
    scheduler = TimerScheduler(
      host: TimerHost(
        loopType: "NIOTimerLoop", clock: .custom { driver.now },
        thread: pinned ? .claimed : .checked { eventLoop.inEventLoop },
        wakeUp: { driver.wakeUp() },
        // NIO's execute does not fail, so this is never needed.
        wakeUpToStop: {},
        passNeeded: { driver.passNeeded(by: $0) }))
    driver.scheduler = scheduler
    if pinned { scheduler.claimLoopThread() }
  }

  /// A timer loop of an NIO loop that has shut down: shut down from the start.
  convenience init(shutDownOn eventLoop: any EventLoop) {
    self.init(eventLoop: eventLoop)
    driver.isStopping.store(true, ordering: .releasing)
    scheduler.shutdown()
  }

  /// Stops this loop's timers (not the NIO loop): every pending timer and
  /// task closure is released on the NIO loop's thread (at once when called
  /// there outside a callback; from a callback, as its pass ends; from
  /// another thread, in a task of the loop), and later calls that add work
  /// throw `TimerLoopError.shutdown`. Once the closures are released, the
  /// next ``on(_:)`` for the same NIO loop makes a new timer loop.
  /// Idempotent; any thread.
  public func shutdown() {
    guard scheduler.shutdown() else { return }
    if inEventLoop { driver.finishShutdown() }
  }
}
