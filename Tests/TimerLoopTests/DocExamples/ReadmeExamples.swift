// swift-format-ignore-file
// The README's TimerLoop examples, verbatim (DocExamplesAreCompiledTests checks
// that they still match), each wrapped in what gives it its context.
import Dispatch
import Glibc
import TimerLoop

/// "A tour of the API".
func readmeTour() throws {
  // A loop on a thread of its own. All closures run on that thread, one at a time.
  let loop = try EpollEventLoop.startOnNewThread(name: "timers")

  // One-shot, after a delay (a Swift Duration) or at a monotonic deadline.
  let idle = try loop.schedule(after: .milliseconds(250)) { print("timed out") }   // cancelled below
  try loop.schedule(at: loop.now + .seconds(1)) { print("one second") }

  // The idle-timeout pattern: push the deadline out on every request.
  idle.reschedule(after: .milliseconds(250))

  // Repeating: on a fixed grid by default (.skip, Apple's Timer semantics), or fixed-delay.
  let lastTick = loop.now + .milliseconds(150)
  try loop.scheduleRepeating(after: .zero, every: .milliseconds(100)) { timer in
    print("tick")   // at 0, 100 and 200 ms
    if loop.now >= lastTick { timer.cancel() }   // a callback may cancel itself
  }
  try loop.scheduleRepeating(
    firstAt: loop.now + .milliseconds(50), every: .milliseconds(100), missedTicks: .delay
  ) { _ in print("fixed-delay tick") }   // 100 ms after the previous call returned

  // Run something on the loop thread soon, from any thread.
  try loop.execute { print("on the loop") }

  idle.cancel()   // idempotent, from any thread: "timed out" never prints

  // Let the timers above run for a while, then stop. shutdown() releases every
  // pending closure at once (it does not wait for deadlines) and closes the fds.
  let done = DispatchSemaphore(value: 0)
  try loop.schedule(after: .milliseconds(1_500)) { done.signal() }
  done.wait()
  loop.shutdown()
}

/// Tests use `VirtualEventLoop`.
func readmeVirtualLoop() throws {
  let loop = VirtualEventLoop()
  try loop.schedule(after: .milliseconds(10)) { print("at 10 ms") }
  loop.advanceTime(by: .milliseconds(10))   // runs it, on this thread, with no sleeping
}

/// Handler timers, on any loop.
func readmeHandlerTimers(loop: any TimerEventLoop) throws {
  final class IdleTimeouts: TimerHandler {
    func timerFired(tag: UInt64) { print("connection \(tag) idle") }   // on the loop thread
  }
  let timeouts = IdleTimeouts()   // one handler for every connection

  // Per connection: made once (kept, disarmed), re-armed on every request.
  let idleTimer = try loop.makeTimer(handler: timeouts, tag: 7)
  loop.arm(idleTimer, after: .seconds(30))   // arms it, or moves it if armed
  loop.arm(idleTimer, after: .seconds(30))   // the next request
  loop.disarm(idleTimer)                     // stays, to be armed again
  loop.invalidate(idleTimer)                 // ends it; the key goes stale

  // The bulk form: one-shots that end when they fire, told apart by their tags.
  for connection in 0..<1_000 {
    try loop.schedule(after: .seconds(2), handler: timeouts, tag: UInt64(connection))
  }
}

/// "Using the loop in a server", for a connected socket `fd`.
func readmeServer(fd: CInt) throws {
  let group = try EpollEventLoopGroup()                 // one loop per core, each on its own thread
  let loop = group.next()                          // round-robin
  try loop.execute {
    // On the loop thread, for a connected non-blocking socket `fd`:
    do {
      let idleTimer = try loop.schedule(after: .seconds(5)) { /* close the connection */ }
      let registration = try loop.register(fd, for: .readable) { readiness in
        // read until EAGAIN (or a budget), answer, and push the idle timeout out:
        idleTimer.reschedule(after: .seconds(5))
      }
      // later: try registration.setInterest([.readable, .writable])
      // closing: try registration.deregister(); idleTimer.cancel(); close(fd)
      _ = registration
    } catch {
      // wrongThread, shutdown, or the SystemError of epoll_ctl
    }
  }
}

/// "Observability".
enum ReadmeObservability {
  static func example() throws {
    final class SlowPassLog: EventLoopMetricsDelegate {
      func processedPass(info: EventLoopPassInfo) {   // on the loop thread, after each pass
        if info.busy > .milliseconds(5) { print("slow pass: \(info.timersFired) timers in \(info.busy)") }
      }
    }
    let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: SlowPassLog())
    loop.onTermination { error in print("the loop stopped: \(error)") }
    let stats = loop.stats   // from any thread
    print(stats.passes, stats.wakeUps, stats.liveTimers, stats.latenessHistogram)
    loop.shutdown()
  }
}

/// "Executors and the isolated view".
func readmeExecutors(loop: EpollEventLoop) async {
  actor Session {
    let loop: EpollEventLoop
    var requests = 0
    init(loop: EpollEventLoop) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func touch() throws {
      requests += 1
      // A timer whose callback uses the actor's state directly: it runs on the actor's executor.
      try loop.assumeIsolated().schedule(after: .seconds(5)) { self.requests = 0 }
    }
  }

  let answer = await Task(executorPreference: loop) { loop.inEventLoop }.value  // true
  await withTaskExecutorPreference(loop) { /* child tasks created here run on the loop */ }
  _ = answer
}

/// The isolated view: a connection that is not `Sendable`.
enum ReadmeIsolatedConnection {
  final class Connection {                 // not Sendable: it lives on its loop's thread
    var idleTimer: TimerHandle?
    func start() throws {                  // on the loop thread
      idleTimer = try loop.assumeIsolated().schedule(after: config.idleTimeout) { [self] in
        close(.idle)
      }
    }
  }
}

extension ReadmeIsolatedConnection.Connection {
  enum Reason { case idle }
  var loop: EpollEventLoop { EpollEventLoop.current! }
  var config: (idleTimeout: Duration, Void) { (.seconds(5), ()) }
  func close(_ reason: Reason) { idleTimer?.cancel() }
}

/// "async/await": what the examples call, as stand-ins.
enum ReadmeAsync {
  static func fetch() async throws -> String { "page" }
  static func report(at tick: Deadline) {}
  static func retry<C: Clock<Duration>>(on clock: C) async throws {
    try await clock.sleep(for: .milliseconds(100))
  }

  static func example() async throws {
    let loop = try EpollEventLoop.startOnNewThread()

    try await loop.sleep(for: .milliseconds(250))          // or sleep(until: Deadline)

    let page = try await loop.withTimeout(.seconds(2)) {   // throws TimerLoopError.timedOut
      try await fetch()                                    // cancelled at the deadline
    }

    for await tick in loop.ticks(every: .seconds(1)) {     // Deadlines on a fixed-rate grid
      report(at: tick)                                     // ends when this task is cancelled
    }

    try await retry(on: loop.clock)                        // any generic Clock<Duration> code
    _ = page
  }

  static func virtualTime() async {
    let loop = VirtualEventLoop()
    let worker = Task { try await retry(on: loop.clock) }  // sleeps 100 ms between attempts
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .milliseconds(100))               // the sleeping task resumes
    worker.cancel()
  }
}
