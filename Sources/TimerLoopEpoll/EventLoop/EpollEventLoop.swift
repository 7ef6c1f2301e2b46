import CShims
import Dispatch
import Glibc
import Synchronization
@_spi(TimerLoopHost) import TimerLoopCore

/// An event loop on a real thread: one epoll instance, one `CLOCK_MONOTONIC`
/// timerfd armed with `TFD_TIMER_ABSTIME` at the earliest pending deadline, and
/// one eventfd through which other threads wake it. Timers on the boot-time
/// and wall clocks (``ClockTimerHandle``) add one timerfd per clock, opened
/// when the first such timer is scheduled.
///
/// Run it on the calling thread with ``run()``, or on a thread of its own with
/// ``startOnNewThread(name:leeway:metricsDelegate:)``. Each iteration runs one pass of due work (see
/// ``TimerEventLoop``), re-arms the timerfd if the earliest deadline changed, and
/// blocks in `epoll_wait` with no timeout: deadlines live in the absolute
/// timerfd, so a signal interrupting the wait cannot stretch one. The loop
/// does not spin: with nothing due it sleeps in the kernel.
///
/// ```swift
/// let loop = try EpollEventLoop.startOnNewThread()
/// let timer = try loop.schedule(after: .milliseconds(250)) { print("fired") }
/// timer.cancel()
/// loop.shutdown()
/// ```
public final class EpollEventLoop: TimerEventLoop {
  /// The loop's timer state (`scheduler`); use the methods of ``TimerEventLoop``.
  @_documentation(visibility: internal)
  public let scheduler: TimerScheduler
  let selector: Selector
  let lifecycle = Locked(Lifecycle.idle)
  /// What ``terminationError`` reports.
  let failure = Locked<SystemError?>(nil)
  /// ``onTermination(_:)``'s handler, and whether the loop has stopped.
  let termination = Locked(TerminationHandler.State())
  /// ``nextDeadline`` of an embedded loop, in monotonic nanoseconds (`Int64.max`: none).
  let embeddedDeadline = Atomic<Int64>(.max)
  /// Set when the loop makes its first boot-time or wall-clock timerfd, so
  /// that an embedded loop with monotonic timers only never looks for them.
  let hasClockTimers = Atomic<Bool>(false)
  /// Entered while ``run()`` runs, so ``shutdown()`` can wait for it to return.
  private let running = DispatchGroup()

  enum Lifecycle {
    /// Created; no thread owns it yet.
    case idle
    /// ``run()`` owns it, on some thread.
    case running
    /// A host loop drives it with ``runOnce()``, which is not running now.
    case embedded
    /// A ``runOnce()`` is running.
    case embeddedRunning
    case stopped
  }

  /// How late the loop may fire a timer so that timers due close together
  /// share one wake-up. The timerfd is armed for the earliest deadline
  /// itself, so a timer on its own fires on time (plus the kernel's wake-up
  /// latency); while timers come due within a few leeways of each other, the
  /// loop wakes once per leeway instead of once per timer. Timers never fire
  /// early. The boot-time and wall-clock timerfds keep the wake-up they are
  /// armed for when a timer due up to one leeway before it comes.
  public var leeway: Duration { leewayAmount.duration }

  /// ``leeway`` as the selector reads it on every wait.
  let leewayAmount: TimeAmount

  /// The default ``leeway``: 150 µs. In the leeway sweep of the repository's
  /// `Benchmarks/RESULTS.md` (2026-12-01, a 2-core VM), the best p99 lateness
  /// of 1,000 repeating 10 ms timers was 196 µs with it (10,000 timers, firing
  /// a million times a second: 361 µs), at 0.39 to 0.46 times the CPU that a
  /// 50 µs leeway cost.
  public static let defaultLeeway = Duration.microseconds(150)

  /// Opens the loop's three descriptors. The loop does not run until ``run()``.
  ///
  /// - Parameters:
  ///   - leeway: how late a timer may fire so that wake-ups coalesce
  ///     (rounded up to a whole nanosecond, clamped to 0 ... 1 s); see ``leeway``. `.zero` arms the
  ///     kernel timer for every distinct deadline.
  ///   - metricsDelegate: told of every pass, on the loop thread; see
  ///     ``EventLoopMetricsDelegate``. `nil` (the default) costs one branch per pass.
  /// - Throws: ``SystemError`` if `epoll_create1`, `timerfd_create`, `eventfd`
  ///   or `epoll_ctl` fails (typically `EMFILE`); nothing is left open then.
  public init(
    leeway: Duration = defaultLeeway, metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) {
    leewayAmount = min(max(TimeAmount(leeway), .zero), .seconds(1))
    selector = try Selector()
    let eventFD = selector.eventFD
    let timerFD = selector.timerFD
    scheduler = TimerScheduler(
      host: TimerHost(
        loopType: "EpollEventLoop", clock: .monotonic, thread: .claimed,
        metricsDelegate: metricsDelegate,
        wakeUp: { () throws(SystemError) in try EventFD.signal(eventFD) },
        // The timerfd, set to expire at once, makes epoll_wait return. Called
        // under the inbox lock, before shutdown closes it, with a valid time:
        // none of timerfd_settime's errors (EBADF, EFAULT, EINVAL) can occur.
        wakeUpToStop: { try? TimerFD.setTime(timerFD, deadline: .distantPast) }))
    scheduler.jobExecutor = JobExecutor(loop: self, actors: scheduler.actorExecutor)
  }

  deinit {
    // Only a loop that never ran, or an embedded one, gets here unstopped (a
    // running loop is kept alive by its run()): it still owns closures and fds.
    if lifecycle.withLock({ $0 }) != .stopped {
      scheduler.shutdown()
      releaseState()
      selector.close()
    }
  }

  /// The deadline the timerfd is armed for (`nil`: disarmed). Loop thread only.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  // SwiftNIO's convention for hooks that exist only for tests.
  var testsOnly_armedDeadline: Deadline? { selector.armedDeadline }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// Waits up to `timeout` for the loop to stop by itself; whether it did.
  func testsOnly_waitUntilStopped(timeout: DispatchTime) -> Bool {
    running.wait(timeout: timeout) == .success
  }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// The loop's timerfd, so a test can ask the kernel about it (`/proc/self/fdinfo`).
  var testsOnly_timerFD: CInt { selector.timerFD }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// The loop's eventfd, so a test can fill its counter.
  var testsOnly_eventFD: CInt { selector.eventFD }

  /// Why the loop stopped by itself (`nil` if it did not): the system call
  /// that failed on its thread, in ``run()`` or ``runOnce()``, or the wake-up
  /// write (`eventfd_write`) that failed when another thread gave the loop
  /// work (that call threw ``TimerLoopError/shutdown``). ``run()`` and
  /// ``runOnce()`` also throw it to their caller; a loop started with
  /// ``startOnNewThread(name:leeway:metricsDelegate:)`` has only this.
  public var terminationError: SystemError? { failure.withLock { $0 } }

  /// The loop whose ``run()`` is on the current thread's stack, if any.
  public static var current: EpollEventLoop? { CurrentLoop.get() as? EpollEventLoop }

  /// Creates a loop with `leeway` and `metricsDelegate` (see
  /// ``init(leeway:metricsDelegate:)``) and runs it on a new thread named
  /// `name` (at most 15 bytes are kept, a Linux limit) until ``shutdown()``.
  ///
  /// - Throws: ``SystemError`` if the descriptors cannot be opened or the thread
  ///   cannot be created (`pthread_create`).
  public static func startOnNewThread(
    name: String = "TimerLoop", leeway: Duration = defaultLeeway,
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) -> EpollEventLoop {
    let loop = try EpollEventLoop(leeway: leeway, metricsDelegate: metricsDelegate)
    // Claimed before the thread exists, so a run() on another thread cannot
    // take the loop over while the new thread starts.
    _ = loop.claim()
    let context = Unmanaged.passRetained(loop).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
      &thread, nil,
      { context in
        let loop = Unmanaged<EpollEventLoop>.fromOpaque(context!).takeRetainedValue()
        // A failing syscall has shut the loop down; callers see
        // ``TimerLoopError/shutdown`` from then on, and the cause in
        // ``terminationError``.
        try? loop.runClaimed()
        return nil
      }, context)
    guard result == 0 else {
      Unmanaged<EpollEventLoop>.fromOpaque(context).release()
      loop.runningDidEnd()
      throw SystemError(syscall: "pthread_create", errno: result)
    }
    _ = CShims_pthread_setname_np(thread, String(decoding: name.utf8.prefix(15), as: UTF8.self))
    pthread_detach(thread)
    return loop
  }

  /// Runs the loop on the calling thread until ``shutdown()``. All closures run
  /// on this thread.
  ///
  /// Returns at once if the loop is already running elsewhere (including a
  /// loop made by ``startOnNewThread(name:leeway:metricsDelegate:)``) or was shut down.
  ///
  /// - Throws: ``SystemError`` if `epoll_wait`, `timerfd_settime` or a read of
  ///   the loop's descriptors fails, or opening the timerfd of a boot-time or
  ///   wall-clock timer (`timerfd_create`, `epoll_ctl`), or another thread's
  ///   wake-up write (`eventfd_write`; see ``terminationError``); the loop is
  ///   shut down first (every closure released, descriptors closed).
  public func run() throws(SystemError) {
    guard claim() else { return }
    try runClaimed()
  }

  /// Moves the loop from idle to running; `false` if it was not idle.
  private func claim() -> Bool {
    lifecycle.withLock { state in
      guard state == .idle else { return false }
      state = .running
      running.enter()
      return true
    }
  }

  /// Ends a claim: shuts down, releases the table, closes the descriptors.
  /// Called on the thread that ran the loop while it still counts as the loop
  /// thread (so a released object whose `deinit` calls ``shutdown()`` does not
  /// wait for its own thread), or by the claimer if no thread ever ran it.
  private func runningDidEnd() {
    scheduler.shutdown()
    releaseState()
    scheduler.releaseLoopThread()
    selector.close()
    terminationDidHappen()
    lifecycle.withLock { $0 = .stopped }
    running.leave()
  }

  /// The loop itself, on the calling thread, after a successful ``claim()``.
  private func runClaimed() throws(SystemError) {
    scheduler.claimLoopThread()
    let previous = CurrentLoop.set(self)
    defer {
      runningDidEnd()
      CurrentLoop.restore(previous)
    }
    var buffers = TimerScheduler.PassBuffers()
    let metricsDelegate = scheduler.metricsDelegate  // once, not per pass
    var wokeUp = false  // the previous wait blocked
    do throws(SystemError) {
      while true {
        let start = Deadline.now()
        let outcome = scheduler.runPass(now: start, buffers: &buffers)
        let now = Deadline.now()
        scheduler.passDidEnd(
          outcome, start: start, end: now, wokeUp: wokeUp, delegate: metricsDelegate)
        if scheduler.isShutdown { break }
        let (earliest, hasTasks) = scheduler.pendingWork
        var block = !hasTasks
        if let earliest, earliest <= now {
          block = false  // arming a past deadline would cost a syscall to learn the same
        } else {
          try selector.arm(earliest, leeway: leewayAmount, now: now)
        }
        // Again after arming: a failed wake-up write sets the timerfd to
        // stop the loop (see TimerScheduler's `append`), and `arm` may have
        // just reset it.
        if scheduler.isShutdownFlag.load(ordering: .sequentiallyConsistent) { break }
        wokeUp = block
        try selector.wait(block: block)
        dispatchReadyDescriptors()
      }
      // A clock timerfd's failure stopped it from a handler (see EpollEventLoop+Clocks).
      if let error = scheduler.wakeUpFailure ?? terminationError { throw error }
    } catch {
      // Recorded before the deferred shutdown, so whoever waits for the stop sees why.
      failure.withLock { $0 = error }
      throw error
    }
  }

  /// Stops the loop: wakes the loop thread, which releases every pending timer
  /// and task closure (their deadlines are not waited for) and closes the three
  /// descriptors as ``run()`` returns.
  ///
  /// Called from a thread that runs no loop, it returns after ``run()`` has
  /// returned, so no closure of this loop runs after that; called from
  /// another loop's thread it does not wait (two loops waiting for each other
  /// would deadlock). Called from a closure on the
  /// loop thread, it returns at once and the loop stops after that closure.
  /// Idempotent; later scheduling calls throw ``TimerLoopError/shutdown``.
  /// If its wake-up write (`eventfd_write`) fails, it wakes the loop by
  /// setting the loop's timerfd to expire at once, so it still returns.
  public func shutdown() {
    scheduler.shutdown()
    // From a callback: the loop cleans up as its run() or runOnce() returns.
    guard !inEventLoop else { return }
    let state = lifecycle.withLock { state in
      defer { if state == .idle || state == .embedded { state = .stopped } }
      return state
    }
    switch state {
    case .idle, .embedded:
      // No thread owns the loop's state now.
      releaseState()
      selector.close()
      terminationDidHappen()
    case .running where CurrentLoop.get() == nil:
      running.wait()
    case .running, .embeddedRunning, .stopped:
      // Called on another loop's thread: waiting could deadlock two loops that
      // shut each other down (a group shut down from inside), so it does not.
      // A runOnce() in progress cleans up as it returns.
      break
    }
  }

  /// Releases every timer, task and descriptor handler; closes nothing. Call
  /// on the thread that owns the loop's state, or when none does.
  func releaseState() {
    scheduler.releaseTable()
    selector.registry = DescriptorRegistry()
  }

}
