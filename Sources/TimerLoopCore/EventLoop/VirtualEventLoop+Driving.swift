import Dispatch
import Synchronization

extension VirtualEventLoop {
  /// Who runs the loop's passes, one caller at a time, and the runs of work
  /// that other threads send while no thread holds the loop.
  ///
  /// Passes run in three ways. A synchronous ``advanceTime(to:)`` (or
  /// ``run()``) runs them on its caller's thread, which then *holds* the loop
  /// (it is the scheduler's claimed thread, as the creating thread is at
  /// first) and changes the table directly until someone takes it over. The
  /// asynchronous ``advance(to:)`` and ``runAutoAdvancing(_:)`` run them on
  /// the loop's serial `queue` and hand the loop back when each turn ends: no
  /// thread holds it then. And *drains*, on the same queue, run at the
  /// current time what other threads send while no thread holds the loop,
  /// as SwiftNIO's `NIOAsyncTestingEventLoop` runs work submitted from other
  /// threads at once. The queue serialises the last two; `driver` keeps a
  /// synchronous advance apart from them.
  final class Driving: Sendable {
    enum Driver {
      /// A synchronous advance, on its caller's thread.
      case caller
      /// A turn on the loop's queue: an asynchronous advance or a drain.
      case queue
    }

    private struct State {
      var driver: Driver?
      /// Callers waiting for the driver to finish.
      var waiters: [DispatchSemaphore] = []
      var drainQueued = false
      /// Work arrived while a driver ran: the driver queues a drain as it
      /// finishes unless a thread then holds the loop.
      var arrivedWhileDriven = false
      /// Driver turns begun so far: a stranded call's check sees whether
      /// one began since the call.
      var turns: UInt64 = 0
      /// The value of `turns` when the latest check was set off.
      var checkedTurn: UInt64?
      weak var loop: VirtualEventLoop?
    }

    private let state = Locked(State())
    /// The loop's queue: its asynchronous advances and its drains, in order.
    let queue = DispatchQueue(label: "TimerLoop.VirtualEventLoop")

    /// The task that holds the loop, by its address (see ``hold(_:)``),
    /// or 0 if none does. Changed only in a driver's turn or in `init`.
    private let holderTask = Atomic<UInt>(0)

    /// The current task's address, or 0 outside a task. A task's address
    /// is its identity while it lives; a task created after the holder
    /// ended may reuse it, and then holds the loop in its place.
    private static var currentTask: UInt {
      withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
    }

    /// Whether the caller runs in the task that holds the loop: the
    /// scheduler's check when the caller is not on its claimed thread.
    var isHeldByCurrentTask: Bool {
      let holder = holderTask.load(ordering: .relaxed)
      return holder != 0 && holder == Self.currentTask
    }

    /// Makes the caller hold the loop between runs: its task, if it runs in
    /// one, since a pool thread runs other tasks between the holder's jobs
    /// and they must not change the table beside a run on another thread;
    /// otherwise its thread. In `init`, or at the end of a synchronous
    /// advance's turn.
    func hold(_ scheduler: TimerScheduler) {
      let task = Self.currentTask
      holderTask.store(task, ordering: .relaxed)
      if task == 0 { scheduler.claimLoopThread() } else { scheduler.releaseLoopThread() }
    }

    /// Makes the calling thread the loop thread for a driver's turn, taking
    /// the loop from whoever held it.
    func take(_ scheduler: TimerScheduler) {
      holderTask.store(0, ordering: .relaxed)
      scheduler.claimLoopThread()
    }

    /// Lets drains reach `loop`; called once, at the end of its `init`.
    func attach(_ loop: VirtualEventLoop) {
      state.withLock { $0.loop = loop }
    }

    /// Whether a thread holds the loop. Called under the lock, after every
    /// claim or release, which happen inside a driver's turn or in `init`.
    private static func isHeld(_ state: State) -> Bool {
      guard let loop = state.loop else { return true }  // going away: nothing to run
      return loop.scheduler.loopThread.load(ordering: .relaxed) != 0
        || loop.driving.holderTask.load(ordering: .relaxed) != 0
    }

    /// Work arrived from another thread (the scheduler's wake-up, with its
    /// inbox lock held): queues a drain if nobody drives the loop and no
    /// thread holds it. Never waits.
    func workArrived() {
      let drain = state.withLock { state -> Bool in
        if state.driver != nil {
          state.arrivedWhileDriven = true
          return false
        }
        guard !state.drainQueued, !Self.isHeld(state) else { return false }
        state.drainQueued = true
        return true
      }
      if drain { queue.async { [self] in runDrain() } }
    }

    /// A job for an actor pinned to the loop was enqueued outside a pass.
    /// If a thread or task holds the loop and nobody drives it, nothing but
    /// a later advance would run the job. One may be on its way (a test
    /// starts tasks and then advances), so the program stops, with a
    /// message that says what to do instead of a silent hang, only if no
    /// driver's turn has begun `strandedCallGraceSeconds` later.
    func actorJobArrived(isShutdown: Bool) {
      let turn = state.withLock { state -> UInt64? in
        guard !isShutdown, state.driver == nil, Self.isHeld(state), state.checkedTurn != state.turns
        else { return nil }
        state.checkedTurn = state.turns
        return state.turns
      }
      guard let turn else { return }
      let seconds = VirtualEventLoop.strandedCallGraceSeconds.load(ordering: .relaxed)
      DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
        [weak self] in self?.stopIfStranded(since: turn, graceSeconds: seconds)
      }
    }

    /// Stops the program if no driver's turn has begun since `turn` and the
    /// loop, not shut down, is still held.
    private func stopIfStranded(since turn: UInt64, graceSeconds: Int) {
      let stranded = state.withLock { state in
        guard let loop = state.loop, !loop.scheduler.isShutdown else { return false }
        return state.turns == turn && state.driver == nil && Self.isHeld(state)
      }
      precondition(!stranded, VirtualEventLoop.strandedActorCallMessage(graceSeconds: graceSeconds))
    }

    /// Takes the turn to run passes, waiting while another driver has it.
    /// Two synchronous advances at once (from two threads) stop the program,
    /// as they always did: the caller must drive the loop from one thread.
    func begin(_ driver: Driver) {
      while true {
        let wait = state.withLock { state -> DispatchSemaphore? in
          guard let current = state.driver else {
            state.driver = driver
            state.turns &+= 1
            return nil
          }
          precondition(
            current != .caller || driver != .caller, VirtualEventLoop.nestedAdvanceMessage)
          let semaphore = DispatchSemaphore(value: 0)
          state.waiters.append(semaphore)
          return semaphore
        }
        guard let wait else { return }
        wait.wait()
      }
    }

    /// Gives the turn back; queues a drain for work that arrived meanwhile
    /// if no thread holds the loop now.
    func end() {
      let (waiters, drain) = state.withLock { state -> ([DispatchSemaphore], Bool) in
        state.driver = nil
        let waiters = state.waiters
        state.waiters = []
        var drain = false
        if state.arrivedWhileDriven, !state.drainQueued, !Self.isHeld(state) {
          state.drainQueued = true
          drain = true
        }
        state.arrivedWhileDriven = false
        return (waiters, drain)
      }
      for waiter in waiters { waiter.signal() }
      if drain { queue.async { [self] in runDrain() } }
    }

    /// A drain's turn on the queue: runs what is due at the current time,
    /// unless a driver or a holder is there to run it.
    private func runDrain() {
      let loop = state.withLock { state -> VirtualEventLoop? in
        state.drainQueued = false
        guard state.driver == nil, !Self.isHeld(state) else { return nil }
        state.driver = .queue
        return state.loop
      }
      guard let loop else { return }
      take(loop.scheduler)
      loop.drive(to: loop.now, settling: false)
      loop.scheduler.releaseLoopThread()
      end()
    }
  }

  /// Runs `body` in a turn of the loop's queue, on the thread that runs it,
  /// which holds the loop meanwhile (taking it over from any thread that held
  /// it); no thread holds it afterwards.
  func onQueue<Result: Sendable>(
    _ body: @escaping @Sendable (VirtualEventLoop) -> Result
  ) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
      driving.queue.async { [self] in
        driving.begin(.queue)
        driving.take(scheduler)
        let result = body(self)
        scheduler.releaseLoopThread()
        driving.end()
        continuation.resume(returning: result)
      }
    }
  }

  /// How long a pinned-actor call may wait for a held loop to run, in
  /// seconds of real time: far beyond a test's own steps between starting
  /// a task and advancing, even on a loaded machine. Variable only for the
  /// test of the stop, which shortens it in the child process it stops:
  /// waiting the whole grace there held up the tests running beside it
  /// (two of them waited 30 s for a call on an idle loop).
  static let strandedCallGraceSeconds = Atomic<Int>(30)

  static func strandedActorCallMessage(graceSeconds: Int) -> String {
    "VirtualEventLoop: a call on an actor pinned to this loop, made from outside the loop, has"
    + " waited \(graceSeconds) s while the thread or task that created the loop, or"
    + " last called the synchronous advanceTime or run(), holds it and has not run it since; it"
    + " would wait until it advances time. In an async test, drive the loop with"
    + " `await loop.advance(by:)`"
    + " (once, even by .zero, hands the loop over: calls from other tasks then run at once),"
    + " or run the test inside `loop.runAutoAdvancing { }`; in a synchronous test, call the"
    + " actor from a task that prefers the loop and advance time on the test's thread"
  }
}
