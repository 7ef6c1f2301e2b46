import Dispatch
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TimerLoop
import TimerLoopNIO

/// Many threads at once on one NIO-hosted timer loop, while the NIO loop's
/// own thread schedules and moves timers too; `.ci/run` runs this suite
/// under ThreadSanitizer, which must report nothing.
@Suite struct NIOStormTests {
  @Test func crossThreadStormKeepsEveryPromise() throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let timers = loop.timerLoop
    let fired = Atomic<Int>(0)
    let lateCalls = Atomic<Int>(0)
    let earlyCalls = Atomic<Int>(0)
    let perWorker = 2_000
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for i in 0..<perWorker {
        if worker == 0 {
          // The loop's own thread: straight into the wheel, and moved once.
          loop.execute {
            guard let handle = try? timers.schedule(after: .milliseconds(1), { fired.add(1, ordering: .relaxed) })
            else { return }
            handle.reschedule(after: .microseconds(Int64(i % 100)))
          }
        } else if i % 2 == 0 {
          // Never early under load: each checks the loop's time when it runs.
          let deadline = timers.now + .microseconds(Int64(i % 100))
          _ = try? timers.schedule(at: deadline) {
            if timers.now < deadline { earlyCalls.add(1, ordering: .relaxed) }
            fired.add(1, ordering: .relaxed)
          }
        } else {
          // The cancel promise: once cancel() has returned, the loop commits to no
          // call. A call it had committed to may still start (cancel() does not
          // wait for it), but in the pass that committed to it, before the loop
          // runs a task queued after cancel() returned.
          let returned = CancelReturned()
          let handle = try? timers.schedule(after: .zero) {
            if returned.flag.load(ordering: .acquiring) { lateCalls.add(1, ordering: .relaxed) }
          }
          handle?.cancel()
          loop.execute { returned.flag.store(true, ordering: .releasing) }
        }
      }
    }
    // After every closure worker 0 queued has run (NIO runs tasks in order),
    // a marker due after every timer they and the others scheduled.
    try loop.submit {}.wait()
    let done = DispatchSemaphore(value: 0)
    try timers.schedule(after: .milliseconds(20)) { done.signal() }
    #expect(done.wait(timeout: .now() + .seconds(60)) == .success)
    #expect(lateCalls.load(ordering: .relaxed) == 0)
    #expect(earlyCalls.load(ordering: .relaxed) == 0)
    // Every kept timer fired once: worker 0's 2,000 and half of the others' 6,000.
    #expect(fired.load(ordering: .relaxed) == perWorker + 3 * perWorker / 2)
  }
}

/// Set by a task the loop runs after a test thread's `cancel()` has returned.
final class CancelReturned: Sendable {
  let flag = Atomic<Bool>(false)
}
