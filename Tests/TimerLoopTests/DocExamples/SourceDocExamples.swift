// swift-format-ignore-file
// The examples in TimerLoop's doc comments, verbatim (DocExamplesAreCompiledTests
// checks that they still match), each wrapped in what gives it its context.
import Foundation
import TimerLoop

/// `EpollEventLoop`.
func epollEventLoopExample() throws {
  let loop = try EpollEventLoop.startOnNewThread()
  let timer = try loop.schedule(after: .milliseconds(250)) { print("fired") }
  timer.cancel()
  loop.shutdown()
}

/// `EpollEventLoopGroup`.
func eventLoopGroupExample() throws {
  let group = try EpollEventLoopGroup()
  let loop = group.next()          // round-robin, from any thread
  try loop.schedule(after: .seconds(30)) { print("on one of the group's threads") }
  group.shutdown()                 // every loop, waiting for each to stop
}

/// `VirtualEventLoop`.
func virtualEventLoopExample() throws {
  let loop = VirtualEventLoop()
  try loop.schedule(after: .milliseconds(10)) { print("at 10 ms") }
  loop.advanceTime(by: .milliseconds(10))   // prints, on this thread
}

/// `VirtualEventLoop.runAutoAdvancing(_:)`; returns the start and the reply.
func runAutoAdvancingExample() async throws -> (Deadline, Deadline) {
  let loop = VirtualEventLoop()
  let start = loop.now
  let reply = try await loop.runAutoAdvancing {
    try await loop.withTimeout(.seconds(2)) {
      try await loop.sleep(for: .milliseconds(1500))  // a slow server
      return loop.now
    }
  }
  // reply == start + 1.5 s of virtual time, at once, in every run
  return (start, reply)
}

/// `VirtualEventLoop.advance(to:)`; returns the wake-up times.
func asyncAdvanceExample() async throws -> [Duration] {
  let loop = VirtualEventLoop()
  let start = loop.now
  let wakes = Task(executorPreference: loop) {
    var wakes: [Duration] = []
    for _ in 0..<3 {
      try await loop.sleep(for: .seconds(1))
      wakes.append(loop.now - start)
    }
    return wakes
  }
  await loop.advance(by: .seconds(3))
  // try await wakes.value == [1 s, 2 s, 3 s], in every run
  return try await wakes.value
}

/// `EpollEventLoop` as an executor.
func epollEventLoopExecutorExample(loop: EpollEventLoop) async {
  actor Session {
    let loop: EpollEventLoop
    var requests = 0
    init(loop: EpollEventLoop) { self.loop = loop }
    // Every method of the actor runs on the loop's thread.
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
  }

  await withTaskExecutorPreference(loop) {
    // Child tasks created in here, and nonisolated async code, run on the loop.
  }
}

/// `VirtualEventLoop` as an executor.
func virtualEventLoopExecutorExample() async {
  let loop = VirtualEventLoop()
  let task = Task(executorPreference: loop) { loop.now }
  loop.run()                        // runs the task's first (and only) job
  print(await task.value)
}

/// `IsolatedEventLoop`.
enum IsolatedEventLoopExample {
  final class Connection {            // not Sendable
    var idleTimer: TimerHandle?
    func start(on loop: EpollEventLoop) throws {   // on the loop's thread
      idleTimer = try loop.assumeIsolated().schedule(after: .seconds(5)) { [self] in close() }
    }
    func close() { idleTimer?.cancel() }
  }
}

/// `EventLoopClock`, retrying a connection.
func eventLoopClockExample(loop: any TimerEventLoop, connect: () async throws -> Void) async throws {
  func retry<C: Clock<Duration>>(on clock: C, _ attempt: () async throws -> Void) async throws {
    for backoff in [Duration.milliseconds(100), .milliseconds(200), .milliseconds(400)] {
      do { return try await attempt() } catch { try await clock.sleep(for: backoff) }
    }
    try await attempt()
  }
  try await retry(on: loop.clock) { try await connect() }
}

/// `EventLoopContinuousClock`, waiting out an expiry.
func eventLoopContinuousClockExample(loop: any TimerEventLoop) async throws {
  let clock = loop.continuousClock
  let expiry = clock.now.advanced(by: .seconds(600))
  try await clock.sleep(until: expiry)  // 10 minutes, time suspended included
}

/// `ticks(every:tolerance:missedTicks:)`.
enum TicksExample {
  static func report(at tick: Deadline) {}
  static func example(loop: any TimerEventLoop) async {
    for await tick in loop.ticks(every: .seconds(1)) {
      report(at: tick)  // a slow report drops ticks (.skip) instead of queueing them
    }
  }
}

/// `EventLoopMetricsDelegate`.
func eventLoopMetricsDelegateExample() throws {
  final class SlowPassLog: EventLoopMetricsDelegate {
    func processedPass(info: EventLoopPassInfo) {  // on the loop thread, after each pass
      if info.busy > .milliseconds(5) { print("slow pass: \(info.timersFired) timers in \(info.busy)") }
    }
  }
  let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: SlowPassLog())
  loop.shutdown()
}

/// `TimerEventLoop.dates(matching:in:matchingPolicy:repeatedTimePolicy:)`.
func calendarDatesExample(
  loop: any TimerEventLoop, rotateLogs: @Sendable (Date) async -> Void
) async {
  for await night in loop.dates(matching: DateComponents(hour: 3, minute: 0)) {
    await rotateLogs(night)
  }
}
