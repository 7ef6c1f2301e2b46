import Glibc
import Synchronization

/// The timer and task state shared by every kind of loop: the timer table, the
/// queue that orders it, the tasks waiting for ``EventLoop/execute(_:)``, and
/// the code that decides what runs in a pass.
///
/// Both ``EpollEventLoop`` and ``VirtualEventLoop`` drive one of these; they
/// differ only in where "now" comes from and how they wait. You never create
/// one; reach it through ``EventLoop/scheduler``.
///
/// Ground rules:
/// - All state sits behind one `Mutex`. It is held only for table and queue
///   updates, never while user code runs and never while a closure is released
///   (a captured object's `deinit` may call back into the loop).
/// - Scheduling from a thread other than the loop's wakes the loop only when
///   the new timer becomes the earliest one or a task is queued, and only the
///   first such call between two passes writes the wake-up (`wakeupPending`).
///   The write happens under the lock, so it can never reach a descriptor that
///   shutdown has closed.
/// - After shutdown every closure has been released and every call that would
///   add work throws ``TimerLoopError/shutdown``.
public final class TimerScheduler: Sendable {
  enum Clock {
    case monotonic
    case virtual(VirtualClock)
  }

  struct State {
    var queue = TimerQueue()
    var entries: [TimerEntry] = []
    var freeSlots: [UInt32] = []
    var tasks: [@Sendable () -> Void] = []
    var isShutdown = false
    var wakeupPending = false
  }

  /// The shortest repeat interval: 0.1 ms, the minimum Apple's `Timer` applies.
  /// A repeating timer asked for less (zero or negative) repeats at this rate,
  /// so it can never spin the loop.
  static let minimumRepeatInterval = TimeAmount.microseconds(100)

  let clock: Clock
  let state = Mutex(State())
  /// `pthread_self()` of the thread running the loop, or 0.
  let loopThread = Atomic<UInt>(0)
  /// Wakes the loop's thread; called with the lock held.
  private let wakeUp: @Sendable () -> Void
  /// How many wake-ups were written, so tests can see that bursts coalesce.
  let wakeUpWrites = Atomic<Int>(0)

  init(clock: Clock, wakeUp: @escaping @Sendable () -> Void) {
    self.clock = clock
    self.wakeUp = wakeUp
  }

  var now: Deadline {
    switch clock {
    case .monotonic: .now()
    case .virtual(let virtualClock): virtualClock.now
    }
  }

  var inLoopThread: Bool {
    loopThread.load(ordering: .relaxed) == pthread_self()
  }

  // MARK: Adding work

  func execute(_ task: @escaping @Sendable () -> Void) throws(TimerLoopError) {
    let onLoop = inLoopThread
    try state.withLock { (state) throws(TimerLoopError) in
      guard !state.isShutdown else { throw .shutdown }
      state.tasks.append(task)
      if !onLoop { wakeIfNeeded(&state) }
    }
  }

  func schedule(
    at deadline: Deadline, interval: TimeAmount?, policy: RepeatPolicy, body: TimerBody
  ) throws(TimerLoopError) -> TimerHandle {
    let onLoop = inLoopThread
    let interval = interval.map { Swift.max($0, Self.minimumRepeatInterval) }
    let (slot, generation) = try state.withLock { (state) throws(TimerLoopError) in
      guard !state.isShutdown else { throw .shutdown }
      let slot = state.freeSlots.popLast() ?? state.appendEntry()
      let generation = state.entries[Int(slot)].generation
      state.entries[Int(slot)] = TimerEntry(
        generation: generation, phase: .queued, deadline: deadline, interval: interval,
        policy: policy, body: body)
      state.queue.push(slot: slot, deadline: deadline)
      if !onLoop && state.queue.first?.slot == slot { wakeIfNeeded(&state) }
      return (slot, generation)
    }
    return TimerHandle(scheduler: self, slot: slot, generation: generation)
  }

  // MARK: Changing a timer

  func cancel(slot: UInt32, generation: UInt32) -> Bool {
    let onLoop = inLoopThread
    let released: TimerBody? = state.withLock { state in
      guard state.isLive(slot, generation) else { return nil }
      // The loop sleeps until the earliest deadline; let it re-arm for the next one.
      if !onLoop && state.queue.first?.slot == slot { wakeIfNeeded(&state) }
      return state.free(slot)
    }
    return released != nil  // the closure is released here, outside the lock
  }

  func reschedule(slot: UInt32, generation: UInt32, to deadline: Deadline) -> Bool {
    let onLoop = inLoopThread
    return state.withLock { state in
      guard state.isLive(slot, generation) else { return false }
      state.queue.remove(slot: slot)
      state.entries[Int(slot)].phase = .queued
      state.entries[Int(slot)].firePending = false
      state.entries[Int(slot)].deadline = deadline
      state.queue.push(slot: slot, deadline: deadline)
      if !onLoop && state.queue.first?.slot == slot { wakeIfNeeded(&state) }
      return true
    }
  }

  func deadline(slot: UInt32, generation: UInt32) -> Deadline? {
    state.withLock { state in
      guard state.isLive(slot, generation), state.entries[Int(slot)].phase == .queued else {
        return nil
      }
      return state.entries[Int(slot)].deadline
    }
  }

  // MARK: Loop-side bookkeeping

  /// What waits for the next pass: the earliest timer deadline (`nil` if no
  /// timer is queued) and whether any task is queued.
  var pendingWork: (earliestDeadline: Deadline?, hasTasks: Bool) {
    state.withLock { state in (state.queue.first?.deadline, !state.tasks.isEmpty) }
  }

  /// Called by the loop once it has consumed a wake-up, before it looks for work,
  /// so that any later cross-thread call writes a new one.
  func acknowledgeWakeUp() {
    state.withLock { $0.wakeupPending = false }
  }

  var isShutdown: Bool { state.withLock { $0.isShutdown } }

  /// Marks the scheduler shut down, wakes the loop, and releases every pending
  /// timer and task closure. Returns `false` if it was already shut down.
  @discardableResult
  func shutdown() -> Bool {
    let released: (timers: [TimerBody], tasks: [@Sendable () -> Void])? = state.withLock { state in
      guard !state.isShutdown else { return nil }
      state.isShutdown = true
      wakeUp()
      var bodies: [TimerBody] = []
      for slot in state.entries.indices where state.entries[slot].phase != .free {
        bodies.append(contentsOf: state.free(UInt32(slot)).map { [$0] } ?? [])
      }
      defer { state.tasks = [] }
      return (bodies, state.tasks)
    }
    return released != nil  // closures are released here, outside the lock
  }

  private func wakeIfNeeded(_ state: inout State) {
    guard !state.wakeupPending else { return }
    state.wakeupPending = true
    wakeUpWrites.add(1, ordering: .relaxed)
    wakeUp()
  }
}

extension TimerScheduler.State {
  func isLive(_ slot: UInt32, _ generation: UInt32) -> Bool {
    Int(slot) < entries.count && entries[Int(slot)].generation == generation
      && entries[Int(slot)].phase != .free
  }

  mutating func appendEntry() -> UInt32 {
    precondition(entries.count < Int(UInt32.max), "more than 2^32 - 1 timers")
    entries.append(TimerEntry())
    return UInt32(entries.count - 1)
  }

  /// Ends the timer in `slot` and returns its body, for the caller to release
  /// after unlocking.
  mutating func free(_ slot: UInt32) -> TimerBody? {
    queue.remove(slot: slot)
    let body = entries[Int(slot)].body
    entries[Int(slot)] = TimerEntry(generation: entries[Int(slot)].generation &+ 1)
    freeSlots.append(slot)
    return body
  }
}

/// Time for a ``VirtualEventLoop``: moves only when the test says so.
final class VirtualClock: Sendable {
  private let nanoseconds: Atomic<Int64>

  init(start: Deadline) {
    nanoseconds = Atomic(start.uptimeNanoseconds)
  }

  var now: Deadline { Deadline(uptimeNanoseconds: nanoseconds.load(ordering: .acquiring)) }

  func set(_ deadline: Deadline) {
    nanoseconds.store(deadline.uptimeNanoseconds, ordering: .releasing)
  }
}
