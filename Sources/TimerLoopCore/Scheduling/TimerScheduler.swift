import Dispatch
import Glibc
import Synchronization

/// The timer and task state of one loop, and every operation on it: the one
/// implementation shared by ``EpollEventLoop`` and ``VirtualEventLoop``, which
/// differ only in where "now" comes from and how they wait. You never create
/// one; reach it through `scheduler`.
///
/// Ground rules:
/// - The timer table (`TimerTable`) belongs to the loop's thread. Calls made
///   on that thread (from callbacks, or anything they call) change it directly,
///   with no lock and no atomic read-modify-write.
/// - Calls from any other thread become requests in the *inbox*, a short list
///   behind a lock (`Locked`, a `Mutex`), and wake the loop. The loop applies them, in the order
///   they were made, at the start of each pass and before every callback, so
///   once `cancel()` has returned on another thread the loop commits to no new
///   call of that timer. A timer scheduled from another thread is named by a ticket until
///   the loop gives it a slot.
/// - A call on the loop thread first applies the inbox if `inboxPending` is
///   set (`applyRequestsFirst()`), so it never overtakes a request that
///   happened before it: a request from another thread that returned before
///   this thread heard of it (through a lock, a semaphore, a task) was
///   appended, and `inboxPending` set, under the inbox lock before that, and
///   only a later apply, which takes the request, can clear the flag. So the
///   one relaxed load sees it. The same holds for a ticket: whoever hands one
///   to the loop thread got it after its schedule request was appended, so
///   the loop thread finds the ticket's timer unless it has ended.
/// - Only the first request after the loop last looked writes the wake-up
///   (`wakeupPending`). The write happens under the inbox lock, so it can never
///   reach a descriptor that shutdown has closed. If the write fails, the loop
///   could sleep through that request and every later one, so the scheduler
///   shuts down instead and wakes the loop another way, to stop (see `append`).
/// - Closures are never released while the table is being changed: a captured
///   object's `deinit` may call back into the loop. A call on the loop thread
///   releases no closure but the one it ends itself; those its applied
///   requests cancelled wait for the pass's next callback boundary (see
///   `applyRequestsFirst()`), so its caller may hold a lock that such a
///   `deinit` takes (a clock queue's driver does).
/// - After shutdown every call that would add work throws
///   ``TimerLoopError/shutdown``; the loop thread releases every closure.
///   Jobs of Swift concurrency are the exception: they cannot be refused
///   without leaking their task, so they move to a fallback queue (see
///   `TimerScheduler+Jobs.swift`).
@_documentation(visibility: internal)
public final class TimerScheduler: @unchecked Sendable {
  // @unchecked: `table` is confined to the loop thread as described above;
  // everything else is locked, atomic or immutable.

  enum Clock {
    case monotonic
    case virtual(VirtualClock)
    /// A host's own reading (``TimerHost/Clock/custom(_:)``).
    case host(@Sendable () -> Deadline)
  }

  /// A request from a thread other than the loop's.
  enum Request {
    case execute(Work)
    case schedule(
      ticket: UInt64, deadline: Deadline?, mode: TimerEntry.Mode, extra: Int64?,
      body: TimerBody)
    case cancel(TimerID)
    case invalidate(TimerID)
    case reschedule(TimerID, Deadline)
  }

  struct Inbox {
    /// The requests, oldest first: each array of `filled`, then `requests`.
    /// A burst fills arrays of a fixed size instead of growing one, which
    /// would copy every request queued so far at each doubling, under the lock.
    private var filled: [[Request]] = []
    private var requests: [Request] = []
    var nextTicket: UInt64 = 0
    var isShutdown = false
    var wakeupPending = false
    /// Why a wake-up write failed, shutting the scheduler down.
    var wakeUpFailure: SystemError?
    /// Where jobs go once the loop has stopped running them; `nil` until
    /// the table's owner retires the job queue after shutdown.
    var fallback: DispatchQueue?

    /// How many requests the inbox has room for.
    var capacity: Int { filled.reduce(requests.capacity) { $0 + $1.capacity } }

    /// Queues `request` last. O(1): once `requests` is full at `keptCapacity`
    /// or more, it joins `filled` and a new array of the same capacity takes
    /// its place.
    @inline(__always)
    mutating func append(_ request: Request) {
      if requests.count == requests.capacity && requests.count >= keptCapacity {
        let capacity = requests.capacity
        filled.append(requests)
        requests = []
        requests.reserveCapacity(capacity)
      }
      requests.append(request)
    }

    /// Takes out every request, as arrays to walk in order. The inbox keeps
    /// room for a batch like the last, but not a burst's peak (a million
    /// requests is tens of MB).
    mutating func takeAll() -> [[Request]] {
      var taken = filled
      taken.append(requests)
      filled = []
      requests = []
      requests.reserveCapacity(min(taken[taken.count - 1].count, keptCapacity))
      return taken
    }
  }

  /// The most elements a drained request or task buffer keeps room for:
  /// steady traffic reuses its room, a burst does not leave its peak behind.
  static let keptCapacity = 1_024

  /// The shortest repeat interval: 0.1 ms, the minimum Apple's `Timer` applies.
  /// A repeating timer asked for less (zero or negative) repeats at this rate,
  /// so it can never spin the loop.
  static let minimumRepeatInterval = TimeAmount.microseconds(100)

  let clock: Clock
  /// Loop-thread state; a pointer so that access carries no exclusivity check.
  let table: UnsafeMutablePointer<TimerTable>
  let inbox = Locked(Inbox())
  /// Set, under the inbox lock, while the inbox holds requests, and by the
  /// loop thread while the table keeps closures to release (see
  /// ``applyRequestsFirst()``): one load tells the loop whether it must look.
  let inboxPending = Atomic<Bool>(false)
  /// True while the loop decides whether a collected timer may start: from
  /// just before it applies pending requests to just before the call. With
  /// `inboxPending` it forms a Dekker-style handshake (both sides store, then
  /// load the other's flag, sequentially consistent): a cross-thread cancel
  /// either is seen by that decision, or waits until the window closes, when
  /// the loop has committed to the call. Either way the loop commits to no
  /// call after `cancel()` returns. The window holds no lock and runs no user
  /// code (see ``AppliedRequests``), so the wait is a few instructions long
  /// unless the loop thread is preempted inside it.
  let admitting = Atomic<Bool>(false)
  /// Set once by ``shutdown()``; a host that must not miss it after arming
  /// its wake-up reads it `sequentiallyConsistent` (see ``isShutdown``).
  @_spi(TimerLoopHost) public let isShutdownFlag = Atomic<Bool>(false)
  /// Per-loop state of libraries built on the loop, told of the shutdown;
  /// see ``LoopAttachment``.
  let attachments = Locked(LoopAttachments())
  /// `pthread_self()` of the thread that owns `table`, or 0 while none does.
  let loopThread = Atomic<UInt>(0)
  /// Wakes the loop's thread; called with the inbox lock held.
  private let wakeUp: @Sendable () throws(SystemError) -> Void
  /// Wakes the loop's thread another way, once the scheduler is marked shut
  /// down because `wakeUp` failed, so that the loop stops; called with the
  /// inbox lock held.
  private let wakeUpToStop: @Sendable () -> Void
  /// Whether the calling thread is the loop's, for a host whose thread is
  /// not claimed (``TimerHost/Thread/checked(_:)``); asked only when
  /// `loopThread` does not match.
  private let isHostThread: (@Sendable () -> Bool)?
  /// The host's ``TimerHost/passNeeded``, called on the loop thread when work
  /// added outside a pass is due before `table.hostWakeBy`.
  private let passNeeded: (@Sendable (Deadline) -> Void)?
  /// How many wake-ups were written, so tests can see that bursts coalesce.
  let wakeUpWrites = Atomic<Int>(0)
  /// Told when a job for an actor pinned to the loop is enqueued outside a
  /// pass, on the enqueuing thread, with whether the scheduler is shut down:
  /// ``VirtualEventLoop`` stops the program if nobody runs it in time.
  /// `nil` on other loops. Set once, before use.
  var actorJobArrivedOutsidePass: (@Sendable (_ isShutdown: Bool) -> Void)?
  /// The executors jobs run as (see ``JobExecutor``): set by the owning
  /// loop's `init` before the loop is shared, read-only afterwards.
  @_spi(TimerLoopHost) public var jobExecutor: JobExecutor?
  /// The serial executor of actors pinned to the loop.
  @_spi(TimerLoopHost) public private(set) var actorExecutor: LoopActorExecutor!
  /// Told of every pass (``passDidEnd(_:start:end:wokeUp:delegate:)``); fixed at creation.
  @_spi(TimerLoopHost) public let metricsDelegate: (any EventLoopMetricsDelegate)?
  /// Behind ``TimerEventLoop/stats``.
  let counters = LoopCounters()
  /// When the previous pass ended, for ``EventLoopPassInfo/asleep``. Loop thread only.
  var lastPassEnd: Deadline
  /// Tasks suspended in a sleep on this loop (``TimerEventLoop/sleepingTaskCount``).
  let sleepingTasks = SleepingTasks()

  init(
    clock: Clock, loopType: String, metricsDelegate: (any EventLoopMetricsDelegate)?,
    wakeUp: @escaping @Sendable () throws(SystemError) -> Void,
    wakeUpToStop: @escaping @Sendable () -> Void,
    isHostThread: (@Sendable () -> Bool)? = nil,
    passNeeded: (@Sendable (Deadline) -> Void)? = nil
  ) {
    self.clock = clock
    self.metricsDelegate = metricsDelegate
    self.wakeUp = wakeUp
    self.wakeUpToStop = wakeUpToStop
    self.isHostThread = isHostThread
    self.passNeeded = passNeeded
    let start: Deadline =
      switch clock {
      case .monotonic: .now()
      case .virtual(let virtualClock): virtualClock.now
      case .host(let read): read()
      }
    lastPassEnd = start
    table = .allocate(capacity: 1)
    table.initialize(to: TimerTable(now: start))
    actorExecutor = LoopActorExecutor(scheduler: self, loopType: loopType)
  }

  deinit {
    table.deinitialize(count: 1)
    table.deallocate()
  }

  var now: Deadline {
    switch clock {
    case .monotonic: .now()
    case .virtual(let virtualClock): virtualClock.now
    case .host(let read): read()
    }
  }

  var inLoopThread: Bool {
    loopThread.load(ordering: .relaxed) == pthread_self() || isHostThread?() == true
  }

  /// Whether a job enqueued now may go straight into the table: on the loop
  /// thread of an epoll loop; for a virtual loop, only inside its
  /// `advanceTime`, since its loop thread may be a pool thread that has
  /// moved on to other work.
  var queuesJobsDirectly: Bool {
    switch clock {
    case .monotonic, .host: inLoopThread
    case .virtual(let virtualClock): virtualClock.driver.load(ordering: .relaxed) == pthread_self()
    }
  }

  @_spi(TimerLoopHost) public var isShutdown: Bool { isShutdownFlag.load(ordering: .relaxed) }

  // MARK: Operations, from any thread

  func execute(_ task: @escaping @Sendable () -> Void) throws(TimerLoopError) {
    try enqueue(.closure(task), direct: inLoopThread)
  }

  /// Queues `work` for the next pass: straight into the table when `direct`
  /// (the caller owns it), else through the inbox. A direct call first
  /// applies the inbox (``applyRequestsFirst()``), so work enqueued on any
  /// thread runs in the order of the calls whenever one call happens before
  /// the other.
  func enqueue(_ work: Work, direct: Bool) throws(TimerLoopError) {
    guard direct, !isShutdown else { return try send(.execute(work)) }
    applyRequestsFirst()
    table.pointee.tasks.append(work)
    if .distantPast < table.pointee.hostWakeBy { hostNeedsPass(by: .distantPast) }
  }

  /// Adds a timer: queued at `deadline`, or unqueued for `nil` (a kept timer
  /// created disarmed). `extra` as in ``TimerTable/insert(deadline:mode:extra:body:)``. `body` is
  /// consumed, so that it moves into the row without a retain and a release.
  /// Inlined into each public form's entry point, so that an arm on the loop
  /// thread is one call.
  @inline(__always)
  func schedule(
    at deadline: Deadline?, mode: TimerEntry.Mode, extra: Int64?,
    body: consuming TimerBody
  ) throws(TimerLoopError) -> TimerID {
    guard inLoopThread else {
      return try request(at: deadline, mode: mode, extra: extra, body: consume body)
    }
    applyRequestsFirst()
    guard !isShutdown else { throw .shutdown }
    let id = table.pointee.insert(deadline: deadline, mode: mode, extra: extra, body: consume body)
    if let deadline, deadline < table.pointee.hostWakeBy { hostNeedsPass(by: deadline) }
    return id
  }

  /// ``schedule(at:mode:extra:body:)`` from another thread: a
  /// request under a fresh ticket.
  @inline(never)
  private func request(
    at deadline: Deadline?, mode: TimerEntry.Mode, extra: Int64?,
    body: consuming TimerBody
  ) throws(TimerLoopError) -> TimerID {
    var body = Optional(body)
    let (ticket, dropped) = try inbox.withLock {
      (inbox) throws(TimerLoopError) -> (UInt64, [Request]?) in
      guard !inbox.isShutdown else { throw .shutdown }
      let ticket = inbox.nextTicket
      inbox.nextTicket += 1
      let dropped = append(
        .schedule(
          ticket: ticket, deadline: deadline, mode: mode, extra: extra, body: body.take()!),
        to: &inbox)
      return (ticket, dropped)
    }
    if let dropped { try didFailToWakeUp(dropping: dropped) }
    return .remote(ticket: ticket)
  }

  /// Adds a repeating closure timer, every `interval` (raised to
  /// ``minimumRepeatInterval``), going on after missed ticks by `missedTicks`.
  func schedule(
    at deadline: Deadline, interval: TimeAmount, missedTicks: MissedTickBehavior,
    body: consuming TimerBody
  ) throws(TimerLoopError) -> TimerHandle {
    let mode: TimerEntry.Mode =
      switch missedTicks {
      case .skip: .fixedRate
      case .delay: .fixedDelay
      case .burst: .burst
      }
    let nanoseconds = Swift.max(interval, Self.minimumRepeatInterval).nanoseconds
    let first =
      mode == .burst
      ? Deadline(
        uptimeNanoseconds: deadline.uptimeNanoseconds.burstStart(
          now: now.uptimeNanoseconds, interval: nanoseconds))
      : deadline
    let id = try schedule(at: first, mode: mode, extra: nanoseconds, body: consume body)
    return TimerHandle(scheduler: self, id: id)
  }

  /// Adds a closure one-shot at `deadline`. Behind the inlinable
  /// ``TimerEventLoop/schedule(at:_:)-(Deadline,_)``, which reaches the scheduler
  /// without a protocol witness and makes the handle itself.
  @usableFromInline
  func schedule(
    at deadline: Deadline, once body: consuming @escaping @Sendable () -> Void
  ) throws(TimerLoopError) -> TimerID {
    try schedule(at: deadline, mode: .oneShot, extra: nil, body: .once(consume body))
  }

  /// Adds a handler timer: a one-shot at `deadline`, or a kept timer,
  /// disarmed, for `nil`. Behind the inlinable handler calls of
  /// ``TimerEventLoop``, so that they reach the scheduler without a protocol witness.
  /// On the loop thread the handler of the previous arm goes into the
  /// registry (see ``HandlerRegistry``); the handler is borrowed, so the arm
  /// retains it only if the registry does not hold it.
  @usableFromInline
  func schedule(
    handler: borrowing any TimerHandler, tag: UInt64, at deadline: Deadline?
  ) throws(TimerLoopError) -> TimerID {
    let mode: TimerEntry.Mode = deadline == nil ? .kept : .oneShot
    guard inLoopThread else {
      return try request(
        at: deadline, mode: mode, extra: Int64(bitPattern: tag), body: .object(copy handler))
    }
    applyRequestsFirst()
    guard !isShutdown else { throw .shutdown }
    let id =
      if let index = table.pointee.handlers.register(handler) {
        table.pointee.insert(
          deadline: deadline, mode: mode, extra: nil,
          body: .handler(HandlerTimer(tag: tag, index: index)))
      } else {
        table.pointee.insert(
          deadline: deadline, mode: mode, extra: Int64(bitPattern: tag), body: .object(copy handler))
      }
    if let deadline, deadline < table.pointee.hostWakeBy { hostNeedsPass(by: deadline) }
    return id
  }

  /// Cancels a timer: ends it, or disarms it if it is a kept one.
  @usableFromInline
  func cancel(_ id: TimerID) {
    stop(id, invalidating: false)
  }

  /// Ends a timer, kept or not.
  @usableFromInline
  func invalidate(_ id: TimerID) {
    stop(id, invalidating: true)
  }

  /// Inlined into `cancel` and `invalidate`, each with its own constant
  /// `invalidating`: the loop thread's path is then one call with no branch
  /// on it.
  @inline(__always)
  private func stop(_ id: TimerID, invalidating: Bool) {
    guard inLoopThread else { return request(stopping: id, invalidating: invalidating) }
    applyRequestsFirst()
    guard let slot = table.pointee.slot(of: id) else { return }
    // The body is released here, after the table change.
    _ = invalidating ? table.pointee.free(slot) : table.pointee.cancel(slot)
  }

  /// ``stop(_:invalidating:)`` from another thread: a request, then the wait
  /// for the admission window (see `admitting`).
  @inline(never)
  private func request(stopping id: TimerID, invalidating: Bool) {
    // Refused after shutdown, or dropped by a shutdown (one its own failed
    // wake-up started, too): the loop then admits no timer (see `fire`),
    // but may already be in the window, committed, so this waits either way.
    try? send(invalidating ? .invalidate(id) : .cancel(id))
    var spins = 0
    while admitting.load(ordering: .sequentiallyConsistent) {
      spins += 1
      if spins % 64 == 0 { sched_yield() }  // the loop thread was preempted in the window
    }
  }

  @usableFromInline
  func reschedule(_ id: TimerID, to deadline: Deadline) {
    guard inLoopThread else {
      try? send(.reschedule(id, deadline))
      return
    }
    applyRequestsFirst()
    guard let slot = table.pointee.slot(of: id) else { return }
    let deadline = requestedDeadline(deadline, slot: slot)
    table.pointee.reschedule(slot, to: deadline)
    if deadline < table.pointee.hostWakeBy { hostNeedsPass(by: deadline) }
  }

  /// Where a move a caller asked for puts the timer in `slot`: `deadline`,
  /// except that a burst timer moved into the past is not owed the ticks of
  /// its new grid before now (see ``MissedTickBehavior/burst``), which it
  /// would call for one per pass. The timer's own re-queue after a call does
  /// not come here: its missed ticks are owed.
  /// The check is inlined into the re-arm, where it reads the row the slot
  /// lookup just read; the burst case is not.
  @inline(__always)
  private func requestedDeadline(_ deadline: Deadline, slot: UInt32) -> Deadline {
    guard table.pointee[entry: slot].mode == .burst else { return deadline }
    return burstDeadline(deadline, slot: slot)
  }

  @inline(never)
  private func burstDeadline(_ deadline: Deadline, slot: UInt32) -> Deadline {
    Deadline(
      uptimeNanoseconds: deadline.uptimeNanoseconds.burstStart(
        now: now.uptimeNanoseconds, interval: table.pointee.extra(slot)))
  }

  /// Tells the host that work added outside a pass is due at `deadline`,
  /// before the host meant to run one (see ``TimerHost/passNeeded``). Loop thread only.
  @inline(never)
  private func hostNeedsPass(by deadline: Deadline) {
    table.pointee.hostWakeBy = deadline
    passNeeded?(deadline)
  }

  /// The timer's deadline, read on the loop thread after the requests made
  /// before the read are applied; `nil` elsewhere.
  func deadline(of id: TimerID) -> Deadline? {
    guard inLoopThread else { return nil }
    applyRequestsFirst()
    guard let slot = table.pointee.slot(of: id), table.pointee[entry: slot].phase == .queued
    else { return nil }
    return table.pointee.queue.deadline(of: slot)
  }

  /// Timers scheduled and not ended: on the loop thread, exact, counting
  /// the requests made before the read; elsewhere, the count the loop
  /// published at the end of its latest pass.
  var liveTimerCount: Int {
    guard inLoopThread else { return counters.publishedLiveTimers }
    applyRequestsFirst()
    return liveTimers
  }

  /// Timers scheduled and not ended. Loop thread only.
  var liveTimers: Int {
    table.pointee.queue.rowCount - table.pointee.freeCount - table.pointee.retiredSlotCount
  }

  /// What waits for the next pass: the earliest timer deadline (`nil` if no
  /// timer is queued) and whether tasks or requests are waiting. Loop thread only.
  @_spi(TimerLoopHost) public var pendingWork: (earliestDeadline: Deadline?, hasTasks: Bool) {
    (
      table.pointee.queue.earliestDeadline(),
      !table.pointee.tasks.isEmpty || inboxPending.load(ordering: .relaxed)
    )
  }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// How many requests the inbox has room for, so a test can see what a burst left behind.
  var testsOnly_inboxCapacity: Int { inbox.withLock { $0.capacity } }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// How many tasks the table's queue has room for. Loop thread only.
  var testsOnly_taskCapacity: Int { table.pointee.tasks.capacity }

  /// Whether tasks wait in the table for the next pass: queued on the loop
  /// thread, or taken in from the inbox during a pass (requests still in the
  /// inbox do not count). Loop thread only.
  var hasQueuedTasks: Bool { !table.pointee.tasks.isEmpty }

  // MARK: Shutdown

  /// Marks the scheduler shut down and wakes the loop (if the wake-up write
  /// fails, another way: see `markShutdown`). Requests still in the
  /// inbox are dropped (their closures released), except jobs, which stay
  /// for ``releaseTable()``; the timers already in the table are released by
  /// ``releaseTable()`` on the thread that owns it. Then, on this thread,
  /// tells the loop's attachments (``LoopAttachment``).
  /// Returns `false` if it was already shut down.
  @_spi(TimerLoopHost) @discardableResult
  public func shutdown() -> Bool {
    let dropped: [Request]? = inbox.withLock { inbox -> [Request]? in
      guard !inbox.isShutdown else { return nil }
      return markShutdown(&inbox)
    }
    guard let dropped else { return false }
    finishShutdown(dropping: dropped)
    return true
  }

  /// Marks the scheduler shut down and wakes the loop: with `wakeUp`, or with
  /// `wakeUpToStop` if that fails or already failed. Returns the inbox's
  /// requests to drop; jobs stay for ``releaseTable()``. Inbox lock held.
  private func markShutdown(_ inbox: inout Inbox) -> [Request] {
    inbox.isShutdown = true
    // Sequentially consistent: the loop loads it after it last arms its
    // timerfd, which `wakeUpToStop` sets (see EpollEventLoop).
    isShutdownFlag.store(true, ordering: .sequentiallyConsistent)
    if inbox.wakeUpFailure != nil {
      wakeUpToStop()
    } else {
      do { try wakeUp() } catch { wakeUpToStop() }
    }
    let requests = Array(inbox.takeAll().joined())
    for request in requests {
      if case .execute(let work) = request, work.isJob { inbox.append(request) }
    }
    return requests
  }

  /// The rest of a shutdown, outside the inbox lock: attachments cancel
  /// timers and release closures, whose deinit may call back in (and now gets
  /// TimerLoopError.shutdown). The dropped closures are released last.
  private func finishShutdown(dropping dropped: [Request]) {
    notifyAttachmentsOfShutdown()
    withExtendedLifetime(dropped) {}
  }

  /// The failure of a wake-up write that shut the scheduler down, if one did.
  @_spi(TimerLoopHost) public var wakeUpFailure: SystemError? {
    inbox.withLock { $0.wakeUpFailure }
  }

  /// Empties the table, releasing every timer and task closure, then hands
  /// the jobs it held, and those still in the inbox, to the fallback queue
  /// (``retireJobs(_:)``). Call it after ``shutdown()``, on the thread that
  /// owns the table, or when no thread does.
  @_spi(TimerLoopHost)
  public func releaseTable() {
    var released = table.move()
    table.initialize(to: TimerTable(now: now))
    table.pointee.release = released.release &+ 1
    let jobs = released.tasks.filter(\.isJob)
    released.tasks = []
    _ = consume released
    // After the closures are gone: a `deinit` among them may have enqueued a job.
    retireJobs(jobs)
  }

  // MARK: The inbox

  /// What applying requests leaves to release: the requests themselves and
  /// the closures of the timers they cancelled. Releasing them can run user
  /// code (a captured object's `deinit`), so the caller drops them only where
  /// that is safe: never inside the admission window, and only after the whole
  /// batch is applied, so a `deinit` that calls back in sees every request.
  struct AppliedRequests {
    var requests: [[Request]] = []
    var cancelled: [TimerBody] = []
  }

  /// Applies the inbox before a call on the loop thread acts, if
  /// `inboxPending` says it holds requests: one relaxed load otherwise (why it
  /// suffices: see the ground rules). Skipped after shutdown, when the inbox
  /// holds only jobs, for ``releaseTable()`` to retire.
  ///
  /// Runs no user code: what the batch leaves to release stays in the table
  /// (`unreleased`), and `inboxPending` stays set, so the pass's next
  /// ``applyPendingRequests()``, before its next callback, hands it over to
  /// be released there. The caller may be a callback, a closure's `deinit`,
  /// or code holding a lock; never the applying of requests or the
  /// admission window, which run no user code.
  @inline(__always)
  func applyRequestsFirst() {
    if inboxPending.load(ordering: .relaxed) { applyRequestsKeepingClosures() }
  }

  @inline(never)
  private func applyRequestsKeepingClosures() {
    guard !isShutdown else { return }
    table.pointee.unreleased = applyRequests()
    inboxPending.store(true, ordering: .relaxed)
  }

  /// Applies the requests other threads have made, in order. Loop thread only.
  /// Runs no user code; see ``AppliedRequests``.
  /// Returns `nil` when there were none: two empty arrays would still cost
  /// two releases on the firing path. The check is inlined and the work is
  /// not, since the firing path makes this call before every timer.
  @inline(__always) @discardableResult
  func applyPendingRequests() -> AppliedRequests? {
    guard inboxPending.load(ordering: .sequentiallyConsistent) else { return nil }
    return applyRequests()
  }

  /// Applies the requests other threads made, before the host runs a
  /// callback of its own on the loop thread outside a pass (a descriptor's
  /// handler), so that a cancel that has returned elsewhere holds there too.
  /// Loop thread only; O(1) when there are none.
  @_spi(TimerLoopHost)
  public func applyPendingRequestsBeforeCallback() {
    applyPendingRequests()
  }

  @inline(never)
  private func applyRequests() -> AppliedRequests {
    // With what an earlier call on the loop thread left to release.
    var applied = table.pointee.unreleased.take() ?? AppliedRequests()
    let requests = inbox.withLock { inbox in
      inboxPending.store(false, ordering: .relaxed)
      inbox.wakeupPending = false
      return inbox.takeAll()
    }
    applied.requests.append(contentsOf: requests)
    for request in requests.joined() {
      switch request {
      case .execute(let work):
        table.pointee.tasks.append(work)
      case .schedule(let ticket, let deadline, let mode, let extra, let body):
        table.pointee.insert(ticket: ticket, deadline: deadline, mode: mode, extra: extra, body: body)
      case .cancel(let id):
        if let slot = table.pointee.slot(of: id), let body = table.pointee.cancel(slot) {
          applied.cancelled.append(body)
        }
      case .invalidate(let id):
        if let slot = table.pointee.slot(of: id), let body = table.pointee.free(slot) {
          applied.cancelled.append(body)
        }
      case .reschedule(let id, let deadline):
        if let slot = table.pointee.slot(of: id) {
          table.pointee.reschedule(slot, to: requestedDeadline(deadline, slot: slot))
        }
      }
    }
    return applied
  }

  private func send(_ request: Request) throws(TimerLoopError) {
    let dropped = try inbox.withLock { (inbox) throws(TimerLoopError) -> [Request]? in
      guard !inbox.isShutdown else {
        guard case .execute(let work) = request, work.isJob else { throw .shutdown }
        acceptAfterShutdown(work, inbox: &inbox)
        return nil
      }
      return append(request, to: &inbox)
    }
    if let dropped { try didFailToWakeUp(dropping: dropped) }
  }

  /// Queues `request` and, if it is the first since the loop last looked,
  /// writes the wake-up.
  ///
  /// If that write fails (other than `EAGAIN`, a full counter, which already
  /// wakes the loop), the loop could sleep through this request and every
  /// later one, which write no wake-up. So the scheduler records the failure
  /// (``wakeUpFailure``, which the loop throws as it stops) and shuts down,
  /// waking the loop with `wakeUpToStop`; `request` is dropped with the rest
  /// of the inbox (a job stays, to retire). Returns the dropped requests for
  /// the caller to release outside the lock (`nil` if the write succeeded).
  private func append(_ request: Request, to inbox: inout Inbox) -> [Request]? {
    inbox.append(request)
    inboxPending.store(true, ordering: .sequentiallyConsistent)
    guard !inbox.wakeupPending else { return nil }
    inbox.wakeupPending = true
    wakeUpWrites.add(1, ordering: .relaxed)
    do {
      try wakeUp()
      return nil
    } catch {
      inbox.wakeUpFailure = error
      return markShutdown(&inbox)
    }
  }

  /// Ends the call whose wake-up write failed (see `append`): the request
  /// was not taken, so the caller learns it as after any shutdown.
  private func didFailToWakeUp(dropping dropped: [Request]) throws(TimerLoopError) -> Never {
    finishShutdown(dropping: dropped)
    throw .shutdown
  }
}

/// Time for a ``VirtualEventLoop``: moves only when the test says so.
final class VirtualClock: Sendable {
  private let nanoseconds: Atomic<Int64>
  /// `pthread_self()` of the thread inside `advanceTime`, or 0.
  let driver = Atomic<UInt>(0)

  init(start: Deadline) {
    nanoseconds = Atomic(start.uptimeNanoseconds)
  }

  var now: Deadline { Deadline(uptimeNanoseconds: nanoseconds.load(ordering: .acquiring)) }

  func set(_ deadline: Deadline) {
    nanoseconds.store(deadline.uptimeNanoseconds, ordering: .releasing)
  }
}
