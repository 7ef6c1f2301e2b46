import Dispatch
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// A counter pinned to a loop. `value` and `busy` are plain stored properties:
/// if an actor method and a timer callback ever ran at the same time,
/// ThreadSanitizer would report it and `busy` would catch it.
actor PinnedCounter {
  let loop: EpollEventLoop
  private(set) var value = 0
  private(set) var overlaps = 0
  private(set) var offLoop = 0
  private var busy = false

  init(loop: EpollEventLoop) {
    self.loop = loop
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

  func increment() {
    if busy { overlaps += 1 }
    busy = true
    if !loop.inEventLoop { offLoop += 1 }
    value += 1
    busy = false
  }
}

/// Swift concurrency on the loop: the loop as a serial and a task executor.
@Suite("Executor")
struct ExecutorTests {
  /// Jobs and `execute` closures enqueued alternately run in one FIFO order.
  @Test func jobsAndClosuresShareOneFIFOQueue() async throws {
    let loop = VirtualEventLoop()
    let log = EventLog<Int>()
    var tasks: [Task<Void, Never>] = []
    for i in 0..<200 {
      if i % 3 == 0 {
        try loop.execute { log.append(i) }
      } else {
        tasks.append(Task(executorPreference: loop) { log.append(i) })
      }
    }
    #expect(log.all.isEmpty)  // nothing runs until the test runs the loop
    loop.run()
    #expect(log.all == Array(0..<200))
    for task in tasks { await task.value }
  }

  /// The same across threads on a real loop: enqueued from another thread
  /// while the loop is busy, jobs and closures keep the order of the calls;
  /// a job enqueued on the loop's thread after a cross-thread one that
  /// happened before it runs after it.
  @Test func fifoAcrossThreadsOnARealLoop() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "exec-fifo")
    defer { loop.shutdown() }
    let log = EventLog<Int>()
    let release = try holdLoopThread(loop)
    var tasks: [Task<Void, Never>] = []
    for i in 0..<100 {
      if i.isMultiple(of: 2) {
        try loop.execute { log.append(i) }
      } else {
        tasks.append(Task(executorPreference: loop) { log.append(i) })
      }
    }
    // Enqueued on the loop's thread, after everything above happened.
    try loop.execute {
      _ = Task(executorPreference: loop) { log.append(100) }
    }
    release.signal()
    // The job above is enqueued before the first of these returns, so it
    // runs before the second.
    try onLoop(loop) {}
    try onLoop(loop) {}
    for task in tasks { await task.value }
    #expect(log.all == Array(0...100))
  }

  /// An actor pinned to the loop: its methods, called from many tasks on
  /// the global executor, and timer callbacks that use `assumeIsolated`, all
  /// run on the loop thread and never at the same time.
  @Test func pinnedActorMethodsAndTimerCallbacksNeverOverlap() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "exec-actor")
    defer { loop.shutdown() }
    let counter = PinnedCounter(loop: loop)
    let callbacks = 2_000
    let fired = Atomic<Int>(0)
    let callers = Task.detached {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
          group.addTask {
            for _ in 0..<250 { await counter.increment() }
          }
        }
      }
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      _ = try? loop.scheduleRepeating(after: .zero, every: .microseconds(100)) { handle in
        for _ in 0..<10 {
          counter.assumeIsolated { $0.increment() }
        }
        if fired.add(1, ordering: .relaxed).newValue == callbacks / 10 {
          handle.cancel()
          done.resume()
        }
      }
    }
    await callers.value
    #expect(await counter.value == callbacks + 8 * 250)
    #expect(await counter.overlaps == 0)
    #expect(await counter.offLoop == 0)
  }

  /// `assumeIsolated` in a plain callback: the loop says it isolates its own
  /// thread, and no other.
  @Test func isolationIsTheLoopThread() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "exec-iso")
    defer { loop.shutdown() }
    #expect(loop.isIsolatingCurrentContext() == false)
    #expect(try onLoop(loop) { loop.isIsolatingCurrentContext() } == true)
    let counter = PinnedCounter(loop: loop)
    try onLoop(loop) { counter.assumeIsolated { $0.increment() } }
    #expect(await counter.value == 1)
    let virtual = VirtualEventLoop()
    #expect(virtual.isIsolatingCurrentContext() == true)  // its creating thread
    #expect(IsolationCheck.violation(of: virtual) == nil)
    #expect(IsolationCheck.violation(of: loop)?.contains("must run on the thread of") == true)
  }

  /// Task executor preference: the task, and child tasks created in a
  /// `withTaskExecutorPreference` scope, run on the loop thread.
  @Test func taskExecutorPreferenceRunsOnTheLoop() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "exec-pref")
    defer { loop.shutdown() }
    #expect(await Task(executorPreference: loop) { loop.inEventLoop }.value)
    let children = await withTaskExecutorPreference(loop) {
      await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<16 { group.addTask { loop.inEventLoop } }
        return await group.reduce(into: [Bool]()) { $0.append($1) }
      }
    }
    #expect(children == Array(repeating: true, count: 16))
  }

  /// On virtual time, a task that waits for a timer resumes when the test
  /// advances past the deadline, at the deadline, inside `advanceTime`.
  @Test func virtualLoopRunsAsyncCodeOnVirtualTime() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let log = EventLog<String>()
    let task = Task(executorPreference: loop) {
      log.append("start")
      await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
        _ = try? loop.schedule(after: .milliseconds(5)) { resumed.resume() }
      }
      log.append("resumed at \((loop.now - start).wholeNanoseconds / 1_000_000) ms")
    }
    loop.run()
    #expect(log.all == ["start"])
    loop.advanceTime(by: .milliseconds(4))
    #expect(log.all == ["start"])
    loop.advanceTime(by: .milliseconds(1))
    #expect(log.all == ["start", "resumed at 5 ms"])
    await task.value
  }

  /// A task on the loop's executor, asleep on the loop when it shuts down,
  /// ends with ``TimerLoopError/shutdown`` instead of hanging: the job that
  /// resumes it runs on the fallback queue. Sleeps on virtual time resume in
  /// deadline order, and run on the loop.
  @Test func tasksOnTheLoopSleepOnItAndEndWhenItShutsDown() async throws {
    let virtual = VirtualEventLoop()
    let log = EventLog<Int>()
    let sleepers = [30, 10, 20].map { ms in
      Task(executorPreference: virtual) {
        try await virtual.sleep(for: .milliseconds(Int64(ms)))
        if virtual.inEventLoop { log.append(ms) }
      }
    }
    virtual.run()
    virtual.advanceTime(by: .milliseconds(30))
    for sleeper in sleepers { try await sleeper.value }
    #expect(log.all == [10, 20, 30])

    let loop = try EpollEventLoop.startOnNewThread(name: "exec-sleep")
    let sleeper = Task(executorPreference: loop) { () async -> (any Error)? in
      do {
        try await loop.sleep(for: .seconds(3600))
        return nil
      } catch {
        return error
      }
    }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.shutdown()
    #expect(await sleeper.value as? TimerLoopError == .shutdown)
  }

  /// Jobs are never dropped: those queued when the loop shuts down, and
  /// those enqueued after, run on the fallback queue, in order.
  @Test func jobsPendingAtAndAfterShutdownStillRun() async throws {
    let loop = VirtualEventLoop()
    let log = EventLog<Int>()
    let pending = (0..<3).map { i in Task(executorPreference: loop) { log.append(i) } }
    try loop.execute { log.append(-1) }  // a closure: dropped at shutdown
    loop.shutdown()
    let later = Task(executorPreference: loop) { log.append(3) }
    for task in pending { await task.value }
    await later.value
    #expect(log.all == [0, 1, 2, 3])

    let real = try EpollEventLoop.startOnNewThread(name: "exec-down")
    let counter = PinnedCounter(loop: real)
    real.shutdown()
    await counter.increment()  // runs on the fallback queue, serially
    #expect(await counter.value == 1)
    // Off the loop's thread, where loop.assumeIsolated() and checkIsolated() trap.
    #expect(await counter.offLoop == 1)
    #expect(await Task(executorPreference: real) { 42 }.value == 42)
  }
}
