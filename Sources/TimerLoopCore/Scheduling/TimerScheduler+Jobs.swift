import Dispatch

/// What waits for a loop's next pass, in one FIFO queue: a closure given to
/// `execute`, or a job of Swift concurrency (a task, or the part of one
/// between two suspensions). A job is the runtime's own allocation; queueing
/// it costs one slot of an array that keeps its capacity.
enum Work {
  case closure(@Sendable () -> Void)
  case job(UnownedJob, JobKind)

  var isJob: Bool {
    guard case .job = self else { return false }
    return true
  }
}

/// Which role of the loop a job was enqueued on, which decides how it runs.
@_spi(TimerLoopHost)
public enum JobKind: Sendable {
  /// On the loop as a task executor (task executor preference): run on it,
  /// isolated to nothing, so nonisolated code continues without a hop.
  case task
  /// On the loop's serial executor (an actor pinned to the loop): run
  /// isolated to it, so the actor's code continues without a hop.
  case actor
}

/// The executors a loop's jobs run as: the loop itself as a task executor,
/// and ``LoopActorExecutor`` as the serial executor of actors pinned to it.
///
/// Two objects, because the runtime calls one `enqueue(_:)` for both roles of
/// an object: a job must be run isolated to a serial executor only if it was
/// enqueued on one (a task preferring the loop, run isolated to it, would
/// have to hop off again before running its nonisolated code).
@_spi(TimerLoopHost)
public struct JobExecutor: Sendable {
  let serial: UnownedSerialExecutor
  let task: UnownedTaskExecutor

  /// The executors of `loop`, whose actors run on `actors`.
  public init(loop: some TaskExecutor, actors: LoopActorExecutor) {
    serial = actors.asUnownedSerialExecutor()
    task = loop.asUnownedTaskExecutor()
  }

  func run(_ job: UnownedJob, _ kind: JobKind) {
    switch kind {
    case .task: job.runSynchronously(on: task)
    case .actor: job.runSynchronously(isolatedTo: serial, taskExecutor: task)
    }
  }
}

/// The serial executor of actors pinned to a loop (what the loop's
/// `asUnownedSerialExecutor()` returns): queues their jobs on the loop,
/// which runs them isolated to this executor. Owned by the scheduler.
@_spi(TimerLoopHost)
public final class LoopActorExecutor: SerialExecutor {
  unowned let scheduler: TimerScheduler
  /// The loop's type, for the message of ``checkIsolated()``.
  let loopType: String

  init(scheduler: TimerScheduler, loopType: String) {
    self.scheduler = scheduler
    self.loopType = loopType
  }

  /// Queues an actor's job on the loop.
  public func enqueue(_ job: consuming ExecutorJob) {
    scheduler.enqueue(job: UnownedJob(job), .actor)
  }

  /// Traps unless the caller runs on the loop's thread.
  public func checkIsolated() {
    precondition(scheduler.inLoopThread, IsolationCheck.message(loopType: loopType))
  }

  /// Whether the caller runs on the loop's thread.
  public func isIsolatingCurrentContext() -> Bool? {
    scheduler.inLoopThread
  }
}

/// Jobs: queued with the closures of `execute`, run by the pass in the same
/// order. Unlike a closure, a job is never refused or dropped: that would
/// leak its task and hang whoever awaits it. After shutdown the table's owner
/// *retires* the queue (``retireJobs(_:)``): every job not yet run, and every
/// job enqueued later, runs on a serial fallback `DispatchQueue` of this
/// loop, in order, as before. (SwiftNIO drops a job enqueued on a shut-down
/// loop and prints an error; the task then never resumes.)
extension TimerScheduler {
  /// Queues `job` for the next pass (see ``enqueue(_:direct:)``); never refuses it.
  @_spi(TimerLoopHost)
  public func enqueue(job: UnownedJob, _ kind: JobKind) {
    let direct = queuesJobsDirectly
    if !direct, kind == .actor, let check = actorJobArrivedOutsidePass { check(isShutdown) }
    try? enqueue(.job(job, kind), direct: direct)  // throws for closures only
  }

  /// Runs `job` as the loop. Loop thread only.
  func run(_ job: UnownedJob, _ kind: JobKind) {
    guard let jobExecutor else { preconditionFailure("a loop's scheduler has no executor") }
    jobExecutor.run(job, kind)
  }

  /// A job sent after shutdown, under the inbox lock: straight to the
  /// fallback once the queue is retired; until then into the inbox, where
  /// the retirement finds it. (No wake-up: shutdown already woke the loop,
  /// and its descriptors may be closing.)
  func acceptAfterShutdown(_ work: Work, inbox: inout Inbox) {
    if let fallback = inbox.fallback {
      forward(work, to: fallback)
      return
    }
    inbox.append(.execute(work))
    inboxPending.store(true, ordering: .sequentiallyConsistent)
  }

  /// Hands `jobs` (the table's, oldest first), then the jobs in the inbox, to
  /// the fallback queue, and routes every later job there. Called by
  /// ``releaseTable()`` after shutdown.
  func retireJobs(_ jobs: [Work]) {
    inbox.withLock { inbox in
      let pending = inbox.takeAll().joined().compactMap { request -> Work? in
        guard case .execute(let work) = request, work.isJob else { return nil }
        return work
      }
      inboxPending.store(false, ordering: .relaxed)
      let fallback = inbox.fallback ?? DispatchQueue(label: "TimerLoop.jobs-after-shutdown")
      inbox.fallback = fallback
      for job in jobs + pending { forward(job, to: fallback) }
    }
  }

  private func forward(_ work: Work, to fallback: DispatchQueue) {
    guard case .job(let job, let kind) = work, let jobExecutor else { return }
    fallback.async { jobExecutor.run(job, kind) }
  }
}
