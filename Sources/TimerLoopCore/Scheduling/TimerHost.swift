import Glibc

/// What a loop gives the ``TimerScheduler`` it hosts, and the contract it
/// keeps while it drives it. System programming interface, not user API: it
/// is visible only to `@_spi(TimerLoopHost) import TimerLoopCore`, for hosts
/// built outside this module: ``EpollEventLoop`` (the TimerLoopEpoll
/// module, which reaches the scheduler through nothing else, so the
/// compiler holds it to this contract; it shares only the package's time
/// arithmetic, `TimeAmount`, beside it) and TimerLoopNIO, which hosts the
/// scheduler on a SwiftNIO `EventLoop`. ``VirtualEventLoop``, in this
/// module, keeps the same contract with an internal clock that tells the
/// scheduler which thread is advancing time.
///
/// The scheduler owns every rule users see (never early, equal deadlines in
/// scheduling order, passes, the cancel promise, repeat policies, bad input,
/// shutdown); the host only supplies time, a thread and wake-ups. Its duties,
/// as a loop meets them (SwiftNIO states its selector contract the same way):
///
/// 1. **Clock.** ``Clock-swift.enum`` says where "now" comes from. Every
///    reading is on the clock of ``Deadline``: `CLOCK_MONOTONIC`, or a
///    virtual clock that only the host moves. Readings never go backwards
///    and may be taken on any thread.
/// 2. **One thread.** One thread at a time owns the scheduler's state: the
///    *loop thread*. Every call below marked "loop thread" is made there,
///    one at a time. A ``Thread-swift.enum/claimed`` host calls
///    ``TimerScheduler/claimLoopThread()`` on that thread before its first
///    pass there, and ``TimerScheduler/releaseLoopThread()`` when it stops
///    running passes there; a ``Thread-swift.enum/checked(_:)`` host answers
///    for the calling thread instead.
/// 3. **Passes.** On the loop thread, never inside another pass (a callback
///    that re-enters the host must not start one), the host reads its clock
///    and calls ``TimerScheduler/runPass(now:buffers:)`` with that reading,
///    then ``TimerScheduler/passDidEnd(_:start:end:wokeUp:delegate:)``. A pass
///    fires only timers due at its `now`, so a pass run early fires nothing
///    early: never-early is the scheduler's, not the host's.
/// 4. **Arming.** After each pass, ``TimerScheduler/pendingWork`` says what is
///    left. With `hasTasks`, the host runs another pass without waiting for a
///    deadline. Otherwise it makes sure a pass runs at `earliestDeadline` or
///    later (no deadline, or ``Deadline/distantFuture``: none is needed) and
///    may sleep until then. A host with ``passNeeded`` reports the deadline
///    it armed with ``TimerScheduler/hostWillRunPass(by:)``.
/// 5. **Work added between passes.** A host that runs other code on the loop
///    thread between passes (a SwiftNIO channel handler) gives ``passNeeded``.
///    The scheduler calls it on the loop thread, outside passes, when that
///    code adds work due before the deadline last reported: a timer's
///    deadline (arm for it), or ``Deadline/distantPast`` for a task (run a
///    pass soon). A host that runs nothing between passes gives `nil`.
/// 6. **Wake-ups from other threads.** The scheduler calls ``wakeUp`` on the
///    requesting thread, with its inbox lock held, for the first request
///    since the loop last took them in. The host then makes its loop thread
///    run a pass soon. It must not call back into the scheduler (the lock is
///    held) and must not wait for the loop thread. If it throws, the
///    scheduler shuts down and calls ``wakeUpToStop``, which must reach the
///    loop thread another way and cannot fail.
/// 7. **Shutdown.** ``TimerScheduler/shutdown()`` (the host's, when its loop
///    stops, or a user's) makes every later call that adds work throw
///    ``TimerLoopError/shutdown`` and stops the running pass after its current
///    callback. The host then calls ``TimerScheduler/releaseTable()`` on the
///    loop thread (or once no thread owns the state): every pending closure
///    is released there, so sleeps and timeouts end with
///    ``TimerLoopError/shutdown``. It runs no pass after that.
/// 8. **Callbacks of its own.** A host that runs code of its own on the loop
///    thread outside passes (``EpollEventLoop``'s descriptor handlers) calls
///    ``TimerScheduler/applyPendingRequestsBeforeCallback()`` before each, so
///    that a cancel that has returned on another thread holds there too.
///
/// Optional duties, for a host that offers more than monotonic timers:
/// - **Current loop.** A host that runs passes on threads it owns makes
///   itself ``CurrentLoop`` around them (``CurrentLoop/set(_:)``, then
///   ``CurrentLoop/restore(_:)``), for code that schedules on "the loop I am
///   called from" (BlockTimers).
/// - **Executors.** A host that is a `TaskExecutor` and `SerialExecutor`
///   sets ``TimerScheduler/jobExecutor`` in its initialiser, before it is
///   shared, to a ``JobExecutor`` of itself and
///   ``TimerScheduler/actorExecutor``, and queues jobs with
///   ``TimerScheduler/enqueue(job:_:)``; passes run them. Its
///   `checkIsolated()` traps with ``IsolationCheck/message(loopType:)``.
/// - **Other clocks.** A host that conforms to ``ClockTimerHost`` runs
///   boot-time and wall-clock timers: it reads those clocks on any thread
///   (never backwards for the boot-time clock), and its ``ClockDriver``s,
///   armed under their queue's lock, run ``ClockTimerQueue/runPass()`` on
///   the loop thread once their clock reaches the armed time (after
///   ``ClockTimerQueue/clockWasSet()`` when the clock was set). It wakes no
///   later than ``ClockTimerHost/clockTimerLeeway`` after that time. On a
///   host that does not conform, those timers throw
///   ``TimerLoopError/unsupportedClock``.
/// - **Failure.** A host that stops because a wake-up failed reports
///   ``TimerScheduler/wakeUpFailure``; after re-arming its wait it reads
///   ``TimerScheduler/isShutdownFlag`` `sequentiallyConsistent`, since a failed
///   wake-up may have reached it through the wait it just re-armed.
@_spi(TimerLoopHost)
public struct TimerHost: Sendable {
  /// Where the scheduler's "now" comes from (duty 1).
  public enum Clock: Sendable {
    /// `CLOCK_MONOTONIC`, read with ``Deadline/now()``.
    case monotonic
    /// The host's reading, on `CLOCK_MONOTONIC` or a virtual clock of its own.
    case custom(@Sendable () -> Deadline)
  }

  /// How the scheduler tells whether the caller runs on the loop thread (duty 2).
  public enum Thread: Sendable {
    /// The thread that last called ``TimerScheduler/claimLoopThread()``: one
    /// load and one compare, for hosts pinned to a thread.
    case claimed
    /// The claimed thread, and otherwise the host's answer: for hosts that
    /// run on a serial queue whose thread changes. The answer must be true
    /// only while the caller excludes the host's passes.
    case checked(@Sendable () -> Bool)
  }

  /// The host's type name, for the message of a failed isolation check.
  public var loopType: String
  /// See ``Clock-swift.enum``.
  public var clock: Clock
  /// See ``Thread-swift.enum``.
  public var thread: Thread
  /// Told of every pass the host reports with ``TimerScheduler/passDidEnd(_:start:end:wokeUp:delegate:)``.
  public var metricsDelegate: (any EventLoopMetricsDelegate)?
  /// Makes the loop thread run a pass soon (duty 6). Requesting thread, inbox lock held.
  public var wakeUp: @Sendable () throws(SystemError) -> Void
  /// Reaches the loop thread after ``wakeUp`` failed (duty 6). Inbox lock held.
  public var wakeUpToStop: @Sendable () -> Void
  /// Work added on the loop thread between passes is due at the deadline
  /// given (duty 5). Loop thread, outside passes; `nil` for hosts that run
  /// no other code there.
  public var passNeeded: (@Sendable (Deadline) -> Void)?

  /// A host description; see the properties.
  public init(
    loopType: String, clock: Clock, thread: Thread,
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil,
    wakeUp: @escaping @Sendable () throws(SystemError) -> Void,
    wakeUpToStop: @escaping @Sendable () -> Void,
    passNeeded: (@Sendable (Deadline) -> Void)? = nil
  ) {
    self.loopType = loopType
    self.clock = clock
    self.thread = thread
    self.metricsDelegate = metricsDelegate
    self.wakeUp = wakeUp
    self.wakeUpToStop = wakeUpToStop
    self.passNeeded = passNeeded
  }
}

extension TimerScheduler {
  /// A scheduler for `host`, owned by no thread until the host claims one.
  @_spi(TimerLoopHost)
  public convenience init(host: TimerHost) {
    let clock: Clock =
      switch host.clock {
      case .monotonic: .monotonic
      case .custom(let read): .host(read)
      }
    self.init(host: host, clock: clock)
  }

  /// A scheduler for `host` on `clock`; ``VirtualEventLoop`` passes its virtual clock here.
  convenience init(host: TimerHost, clock: Clock) {
    var isHostThread: (@Sendable () -> Bool)?
    if case .checked(let check) = host.thread { isHostThread = check }
    self.init(
      clock: clock, loopType: host.loopType, metricsDelegate: host.metricsDelegate,
      wakeUp: host.wakeUp, wakeUpToStop: host.wakeUpToStop, isHostThread: isHostThread,
      passNeeded: host.passNeeded)
  }

  /// Makes the calling thread the loop thread (duty 2), until
  /// ``releaseLoopThread()`` or another claim. O(1).
  @_spi(TimerLoopHost)
  public func claimLoopThread() {
    loopThread.store(pthread_self(), ordering: .relaxed)
  }

  /// Leaves the scheduler with no claimed loop thread (duty 2). O(1).
  @_spi(TimerLoopHost)
  public func releaseLoopThread() {
    loopThread.store(0, ordering: .relaxed)
  }

  /// Records that the host will run a pass at `deadline` without being told
  /// (duty 4): work added between passes and due before it calls the host's
  /// ``TimerHost/passNeeded``. ``Deadline/distantPast`` while a pass is
  /// pending or running: nothing calls then. Loop thread only; O(1).
  @_spi(TimerLoopHost)
  public func hostWillRunPass(by deadline: Deadline) {
    table.pointee.hostWakeBy = deadline
  }
}
