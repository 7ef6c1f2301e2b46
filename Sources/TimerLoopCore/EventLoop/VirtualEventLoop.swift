internal import CClock
import Glibc
import Synchronization

/// An event loop on a virtual clock, for deterministic tests: time moves only
/// when the test calls ``advanceTime(by:)`` or ``advanceTime(to:)`` (or, from
/// async code, ``advance(by:)`` or ``advance(to:)``), or, inside
/// ``runAutoAdvancing(_:)``, whenever everything on the loop waits; due
/// closures run on the thread making the synchronous call, or on the loop's
/// queue for the asynchronous ones. Its boot-time and wall
/// clocks (``TimerEventLoop/continuousNow``, ``TimerEventLoop/wallClockNow``) move with
/// it, and also when the test calls ``suspend(for:)`` or ``setWallClock(to:)``.
///
/// It shares `TimerScheduler` with ``EpollEventLoop``, so ordering, cancel,
/// repeat and bad-input rules are the real loop's, with no sleeping and no
/// flakiness. Modelled on SwiftNIO's `EmbeddedEventLoop.advanceTime(by:)`.
///
/// ```swift
/// let loop = VirtualEventLoop()
/// try loop.schedule(after: .milliseconds(10)) { print("at 10 ms") }
/// loop.advanceTime(by: .milliseconds(10))   // prints, on this thread
/// ```
///
/// One thread at a time *holds* the loop and changes its timer table
/// directly: the thread that created it, or that last called the
/// synchronous `advanceTime` or ``run()``; drive it from one thread. When
/// that call is made in a Swift task (a test function of swift-testing,
/// even a synchronous one, runs in one), the task holds the loop instead,
/// on whichever thread it runs: other tasks that the runtime runs on the
/// same pool thread do not, and send their calls as other threads do.
/// Scheduling and cancelling from other threads is safe, as on any loop;
/// such calls take effect when the loop next runs. Async tests use
/// ``advance(by:)`` instead, which runs the passes on the loop's own queue
/// and hands the loop back when it returns: then no thread holds it, and
/// work other threads send (jobs of tasks and actors on the loop,
/// ``TimerEventLoop/execute(_:)``, requests) runs at once, at the current
/// virtual time, on a thread that holds the loop meanwhile, without moving
/// the clock. While a thread or task holds the loop and does not run it, a
/// call on an actor pinned to the loop from outside it can only wait for
/// the next advance; if none has begun 30 seconds (of real time) later, it
/// stops the program with a message saying what to do.
public final class VirtualEventLoop: TimerEventLoop {
  /// The loop's timer state (`scheduler`); use the methods of ``TimerEventLoop``.
  @_documentation(visibility: internal)
  public let scheduler: TimerScheduler
  private let clock: VirtualClock
  /// Who runs the passes now, and the drains of work from other threads.
  let driving = Driving()
  /// The time ``suspend(for:)`` simulated: boot time minus monotonic time.
  let suspendedNanoseconds = Atomic<Int64>(0)
  /// Wall-clock time minus monotonic time, in nanoseconds (see ``setWallClock(to:)``).
  let wallClockOffset: Atomic<Int64>
  /// Told when a request or a job arrives from another thread, for
  /// ``runAutoAdvancing(_:)`` waiting for one.
  let arrivals = Arrivals()

  /// Creates a loop whose clock reads `start`.
  ///
  /// - Parameters:
  ///   - start: the clock's first reading (monotonic nanoseconds).
  ///   - metricsDelegate: told of every pass, on the thread advancing time,
  ///     with times in virtual time; see ``EventLoopMetricsDelegate``.
  public init(
    start: Deadline = Deadline(uptimeNanoseconds: 1_000_000_000),
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) {
    clock = VirtualClock(start: start)
    // The system's wall clock now, so that dates made with `Date()` mean on
    // the virtual wall clock what they mean on the real one; in whole
    // seconds, which a `Date` holds exactly, so that virtual dates a test
    // computes from it carry no rounding.
    let second: Int64 = 1_000_000_000
    let wallStart = CClock_clock_gettime_ns(CLOCK_REALTIME) / second * second
    wallClockOffset = Atomic(wallStart.subtractingSaturated(start.uptimeNanoseconds))
    // Its passes run inside an advance: a wake-up tells runAutoAdvancing, if
    // it waits, and drains the work if no thread holds the loop. Its virtual
    // clock stands in for the host clock.
    let wakeUp: @Sendable () -> Void = { [arrivals, driving] in
      arrivals.signal()
      driving.workArrived()
    }
    scheduler = TimerScheduler(
      host: TimerHost(
        loopType: "VirtualEventLoop", clock: .monotonic,
      thread: .checked { [driving] in driving.isHeldByCurrentTask },
        metricsDelegate: metricsDelegate, wakeUp: wakeUp, wakeUpToStop: wakeUp),
      clock: .virtual(clock))
    driving.hold(scheduler)
    scheduler.jobExecutor = JobExecutor(loop: self, actors: scheduler.actorExecutor)
    scheduler.actorJobArrivedOutsidePass = { [driving] isShutdown in
      driving.actorJobArrived(isShutdown: isShutdown)
    }
    driving.attach(self)
  }

  /// Moves the clock forward by `amount`, running every pass that falls due on
  /// the way, each at its own deadline: a timer due at 3 ms runs with ``now``
  /// reading 3 ms even when advancing by 10 ms. Afterwards ``now`` reads the
  /// old time plus `amount` (rounded up to a whole nanosecond). A negative
  /// amount runs what is due now and does not move the clock back.
  public func advanceTime(by amount: Duration) {
    advanceTime(to: now + amount)
  }

  /// Moves the clock forward to `target`; see ``advanceTime(by:)``.
  ///
  /// A callback that keeps scheduling work at the current time keeps this call
  /// running, as it would keep a real loop busy. A repeating timer fires at
  /// each of its ticks on the way, so a far target costs a call per tick: a
  /// day past a 1 ms timer is 86.4 million calls, and
  /// ``Deadline/distantFuture`` past any repeating timer practically never
  /// returns. ``stall(for:)`` moves the clock without running them; the
  /// timer then goes on by its ``MissedTickBehavior``. Requests from other threads
  /// are applied before every callback, as on a real loop, but tasks they
  /// send (``TimerEventLoop/execute(_:)``) never make it run an extra pass: a task
  /// that arrives after a pass has started runs in a later pass this call
  /// runs anyway, or in the next call. So other threads that keep calling
  /// `execute` cannot keep it from returning.
  ///
  /// The calling thread holds the loop afterwards (see ``VirtualEventLoop``).
  /// If an ``advance(to:)`` or a run of work from other threads is running
  /// on the loop's queue, this call waits for it to finish first.
  ///
  /// - Precondition: not called while an `advanceTime` (or ``run()``) of this
  ///   loop is running: from one of its own callbacks, or from a second
  ///   thread. A nested call would run passes inside a pass. A callback moves
  ///   the clock with ``stall(for:)`` instead.
  public func advanceTime(to target: Deadline) {
    precondition(VirtualEventLoop.current !== self, Self.nestedAdvanceMessage)
    driving.begin(.caller)
    driving.take(scheduler)
    drive(to: target, settling: false)
    driving.hold(scheduler)
    driving.end()
  }

  /// Runs the passes due up to `target`, each at its own deadline, on this
  /// thread, which must hold the loop in a driver's turn. With `settling`,
  /// requests other threads sent are taken in before the clock moves (a
  /// pass takes them in at its start), so the work they send runs at the
  /// instant it reached the loop.
  func drive(to target: Deadline, settling: Bool) {
    let previous = CurrentLoop.set(self)
    let previousDriver = clock.driver.exchange(pthread_self(), ordering: .relaxed)
    defer {
      clock.driver.store(previousDriver, ordering: .relaxed)
      CurrentLoop.restore(previous)
      if scheduler.isShutdown { scheduler.releaseTable() }
    }
    var buffers = TimerScheduler.PassBuffers()
    let metricsDelegate = scheduler.metricsDelegate  // once, not per pass
    var wokeUp = false  // the clock moved to a deadline: a real loop's timerfd would have expired
    while !scheduler.isShutdown {
      let start = clock.now
      let outcome = scheduler.runPass(now: start, buffers: &buffers)
      scheduler.passDidEnd(
        outcome, start: start, end: clock.now, wokeUp: wokeUp, delegate: metricsDelegate)
      wokeUp = false
      if scheduler.hasQueuedTasks { continue }
      if settling, scheduler.inboxPending.load(ordering: .sequentiallyConsistent) { continue }
      guard let earliest = scheduler.pendingWork.earliestDeadline, earliest <= target,
        earliest != .distantFuture
      else { break }
      if earliest > clock.now {
        clock.set(earliest)
        wokeUp = true
      }
    }
    if target > clock.now { clock.set(target) }
  }

  static let nestedAdvanceMessage =
    "VirtualEventLoop.advanceTime(to:) called while an advanceTime or run() of the same loop"
    + " is running (from one of its callbacks, or from another thread); use stall(for:) to"
    + " move the clock from a callback"

  /// The virtual loop whose ``advanceTime(to:)`` (or ``run()``) is running
  /// closures on the current thread, if any.
  public static var current: VirtualEventLoop? { CurrentLoop.get() as? VirtualEventLoop }

  /// Moves the clock forward by `amount` without running anything, as if a
  /// callback had kept the loop busy that long. Deadlines passed meanwhile are
  /// late when the next ``advanceTime(by:)`` or ``run()`` handles them, which
  /// is how tests reach missed-tick and fixed-delay behaviour. Callable from
  /// inside a callback. `amount` is rounded up to a whole nanosecond;
  /// negative amounts do nothing.
  public func stall(for amount: Duration) {
    let target = now + amount
    if target > clock.now { clock.set(target) }
  }

  /// Runs what is due at the current time without moving the clock.
  public func run() {
    advanceTime(to: now)
  }

  /// Releases every pending closure (at once on the thread that holds the
  /// loop; from another thread, when that thread next advances time, or at
  /// once on the loop's queue if no thread holds it, or when the loop and
  /// every handle of its timers are released); later scheduling calls throw ``TimerLoopError/shutdown``.
  /// Call it before letting the loop go: without it, a pending timer whose
  /// closure or object keeps its own handle (a repeating `BlockTimer`, say)
  /// keeps the loop's scheduler, and with it the timer and what it captures.
  /// Idempotent and safe from any thread.
  public func shutdown() {
    scheduler.shutdown()
    // Only the loop's own thread may touch its table; from another thread the
    // closures go when the loop thread next advances time, or with the loop.
    if inEventLoop { scheduler.releaseTable() }
  }
}
