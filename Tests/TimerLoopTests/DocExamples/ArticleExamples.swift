// swift-format-ignore-file
// The examples of the TimerLoop documentation catalog's articles, verbatim
// (DocExamplesAreCompiledTests checks that they still match).
import Glibc
import Testing
import TimerLoop

/// Getting started: a loop on its own thread.
func gettingStartedOwnThread() throws {
  let loop = try EpollEventLoop.startOnNewThread(name: "timers")
  let timeout = try loop.schedule(after: .seconds(5)) { print("timed out") }
  timeout.reschedule(after: .seconds(5))   // a request came in: push the timeout out
  try loop.scheduleRepeating(after: .zero, every: .milliseconds(100)) { timer in
    print("tick at", loop.now)   // on the loop's thread, every 100 ms
  }
  timeout.cancel()   // from any thread; "timed out" never prints
  loop.shutdown()    // releases every pending closure and closes the loop's descriptors
}

/// Getting started: a loop on the calling thread.
func gettingStartedCallingThread() throws {
  let loop = try EpollEventLoop()
  try loop.execute { print("the loop's first pass") }
  try loop.schedule(after: .milliseconds(10)) { loop.shutdown() }
  try loop.run()   // on this thread, until the timer above shuts the loop down
}

/// Getting started: time.
func gettingStartedTime(loop: EpollEventLoop) throws {
  let budget: Duration = .milliseconds(100) * 2
  let deadline = loop.now + budget
  try loop.schedule(at: deadline - .milliseconds(50)) { print("150 ms from now") }
  try loop.schedule(after: .seconds(1) / 4) { print("250 ms from now") }
}

// Choosing a missed-tick behavior.
func fireTimes(_ missedTicks: MissedTickBehavior) throws -> [Int] {
  let loop = VirtualEventLoop()
  defer { loop.shutdown() }
  let isolated = loop.assumeIsolated()   // this thread drives the virtual loop
  let start = loop.now
  var fired: [Int] = []
  try isolated.scheduleRepeating(
    firstAt: start, every: .milliseconds(10), missedTicks: missedTicks
  ) { _ in
    fired.append(Int((loop.now - start) / .milliseconds(1)))
  }
  try isolated.schedule(after: .milliseconds(12)) { loop.stall(for: .milliseconds(23)) }
  loop.advanceTime(by: .milliseconds(55))
  return fired   // .skip: [0, 10, 35, 40, 50]; .burst: [0, 10, 35, 35, 40, 50]; .delay: [0, 10, 35, 45, 55]
}

// Embedding in a host loop.
/// A host loop built on poll(2): it runs until `keepRunning()` says stop.
func runHostLoop(_ loop: EpollEventLoop, while keepRunning: () -> Bool) throws {
  while keepRunning() {
    var watched = pollfd(fd: loop.backendDescriptor, events: Int16(POLLIN), revents: 0)
    _ = poll(&watched, 1, -1)   // a real host watches its own descriptors in the same call
    if watched.revents & Int16(POLLIN) != 0 {
      try loop.runOnce()   // what is due, on this thread, without blocking
    }
  }
}

/// How long a host may sleep before the loop needs runOnce(), for poll(2):
/// whole milliseconds rounded up, or -1 (no timeout) when no timer is pending.
func pollTimeout(for loop: EpollEventLoop) -> Int32 {
  guard let next = loop.nextDeadline else { return -1 }
  let wait = max(next - .now(), .zero)
  return Int32(clamping: Int64((wait / .milliseconds(1)).rounded(.up)))
}

/// Testing with virtual time: the article's test, run as written.
@Suite struct TestingWithVirtualTimeArticle {
  @Test func anIdleConnectionTimesOutFiveSecondsAfterItsLastRequest() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let idle = try loop.schedule(after: .seconds(5)) { print("closing the idle connection") }
    loop.advanceTime(by: .seconds(4))
    idle.reschedule(after: .seconds(5))   // a request came in
    loop.advanceTime(by: .seconds(4))
    #expect(idle.deadline == loop.now + .seconds(1))   // not yet
    loop.advanceTime(by: .seconds(1))
    #expect(idle.deadline == nil)   // fired: the timer has ended
  }

  @Test func aSlowServerTimesOut() async throws {
    let loop = VirtualEventLoop()
    let result = await Task {
      try await loop.runAutoAdvancing {
        try await loop.withTimeout(.seconds(2)) { try await loop.sleep(for: .seconds(5)) }
      }
    }.result
    #expect((try? result.get()) == nil)   // timed out at 2 s of virtual time, at once
  }
}

/// The code under test: a session that closes five seconds after its last request.
actor IdleSession {
  let loop: VirtualEventLoop
  private(set) var isOpen = true
  private var idleTimer: TimerHandle?
  init(loop: VirtualEventLoop) { self.loop = loop }
  nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

  func touch() throws {
    idleTimer?.cancel()
    idleTimer = try loop.schedule(after: .seconds(5)) { [self] in
      assumeIsolated { $0.isOpen = false }   // the timer fires on the loop: isolated to it
    }
  }
}

@Test func aSessionClosesFiveSecondsAfterItsLastRequest() async throws {
  let loop = VirtualEventLoop()
  let session = IdleSession(loop: loop)
  await loop.advance(by: .zero)   // hands the loop over: calls on the actor run at once
  try await session.touch()
  await loop.advance(by: .seconds(4))
  try await session.touch()       // a request came in
  await loop.advance(by: .seconds(4))
  #expect(await session.isOpen)
  await loop.advance(by: .seconds(1))
  #expect(await session.isOpen == false)   // closed at 9 s of virtual time
}
