import BlockTimers
import Dispatch
import Foundation
import Glibc
import Synchronization
import TimerLoop
import XCTest

/// `BlockTimer` changed from several threads while a real loop fires it.
/// Short (a few thousand operations) so that the ThreadSanitizer run stays quick.
final class BlockTimerConcurrencyTests: XCTestCase {
  /// Runs `body(worker)` on `count` new threads at once (each starts once
  /// all have started) and returns when all have returned.
  private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let arrived = Atomic<Int>(0)
    let finished = DispatchGroup()
    for worker in 0..<count {
      finished.enter()
      Thread {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < count { sched_yield() }
        body(worker)
        finished.leave()
      }.start()
    }
    finished.wait()
  }

  /// Waits until `loop` has run everything it had committed to when called,
  /// and `delay` more; a semaphore, not a sleep.
  private func waitForLoop(_ loop: any TimerEventLoop, after delay: Duration = .zero) throws {
    let passed = DispatchSemaphore(value: 0)
    try loop.schedule(after: delay) { passed.signal() }
    XCTAssertEqual(passed.wait(timeout: .now() + 30), .success)
  }

  /// Holds `loop`'s thread inside a task until the returned semaphore is
  /// signalled: no callback runs meanwhile.
  private func hold(_ loop: any TimerEventLoop) throws -> DispatchSemaphore {
    let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    try loop.execute {
      held.signal()
      release.wait()
    }
    XCTAssertEqual(held.wait(timeout: .now() + 30), .success)
    return release
  }

  /// Issue 10, item 2: `fireDate` set on another thread while the loop
  /// delivers the block was overwritten by the loop with the old grid.
  func testTheScheduleHasOneSourceOfTruthUnderFourThreads() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "fireDate-stress")
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    weak var captured: Canary?
    let timer: BlockTimer
    do {
      let canary = Canary()
      captured = canary
      timer = BlockTimer.scheduledTimer(withTimeInterval: 0.0001, repeats: true, on: loop) { _ in
        _ = canary
        calls.add(1, ordering: .relaxed)
      }
    }
    // Worker 0 owns the date; the others keep the timer's lock busy until it
    // is done, which widens any window in which the loop could overwrite it.
    let done = Atomic<Bool>(false)
    onThreads(4) { worker in
      var i = 0
      while worker == 0 ? i < 1000 : !done.load(ordering: .relaxed) {
        switch worker {
        case 0:
          // Only this thread sets the date, so the getter must read back what it set.
          let far = Date(timeIntervalSinceNow: 1000)
          timer.fireDate = far
          if abs(timer.fireDate.timeIntervalSince(far)) > 0.001 { lost.add(1, ordering: .relaxed) }
          timer.fireDate = .distantPast  // fires at once, then every 0.1 ms from there
        case 1: timer.tolerance = Double(i % 4) * 0.00002
        case 2: timer.fire()
        default: _ = (timer.fireDate, timer.isValid, timer.tolerance)
        }
        i += 1
      }
      if worker == 0 { done.store(true, ordering: .relaxed) }
    }
    XCTAssertEqual(lost.load(ordering: .relaxed), 0, "a fireDate set was overwritten by the loop")

    // Parked far away, then a tolerance change: it must not wake up again.
    let far = Date(timeIntervalSinceNow: 1000)
    timer.fireDate = far
    timer.tolerance = 0.00005
    XCTAssertEqual(timer.fireDate.timeIntervalSince(far), 0, accuracy: 0.001)
    try waitForLoop(loop)
    let parked = calls.load(ordering: .relaxed)
    try waitForLoop(loop, after: .milliseconds(20))
    XCTAssertEqual(calls.load(ordering: .relaxed), parked, "a parked timer fired")

    // Due now and invalidated from four threads at once: final, and the
    // block is released. The loop is held meanwhile: a call it had already
    // started would keep the block until it returned (as documented).
    let release = try hold(loop)
    timer.fireDate = Date()
    DispatchQueue.concurrentPerform(iterations: 4) { _ in timer.invalidate() }
    XCTAssertFalse(timer.isValid)
    XCTAssertNil(captured, "invalidate() released the block")
    release.signal()
    try waitForLoop(loop)
    let ended = calls.load(ordering: .relaxed)
    try waitForLoop(loop, after: .milliseconds(5))
    XCTAssertEqual(calls.load(ordering: .relaxed), ended)
  }

  /// A firing that finds a `fire()` running on another thread is skipped (the
  /// loop does not wait for it), and a `fire()` that had to wait for the
  /// loop's call of a one-shot finds it ended and does nothing.
  func testAFiringMeetingAFireOnAnotherThreadIsSkippedAndAOneShotRunsOnce() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let repeating = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) {
      _ in
      calls.append(0)
      if calls.count == 1 {
        entered.signal()
        release.wait()
      }
    }
    let fired = DispatchGroup()
    fired.enter()
    Thread {
      repeating.fire()
      fired.leave()
    }.start()
    entered.wait()
    loop.advanceTime(by: .ms(10))
    XCTAssertEqual(calls.count, 1, "the loop's firing was skipped, not run alongside")
    release.signal()
    fired.wait()
    loop.advanceTime(by: .ms(10))
    XCTAssertEqual(calls.count, 2)
    repeating.invalidate()

    let fireMade = DispatchSemaphore(value: 0)
    let oneShot = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) {
      _ in
      calls.append(1)
      entered.signal()
      fireMade.wait()
    }
    fired.enter()
    Thread {
      entered.wait()
      fireMade.signal()
      oneShot.fire()
      fired.leave()
    }.start()
    loop.advanceTime(by: .ms(10))
    fired.wait()
    XCTAssertEqual(calls.all.filter { $0 == 1 }.count, 1, "a one-shot's block ran twice")
    XCTAssertFalse(oneShot.isValid)
  }

  /// Issue 10, item 9: `fire()` on other threads overlapped the loop's call
  /// of the same block; calls are one at a time now.
  func testFireFromOtherThreadsNeverOverlapsTheLoopsCall() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "fire-stress")
    defer { loop.shutdown() }
    let inside = Atomic<Bool>(false)
    let overlaps = Atomic<Int>(0)
    let calls = Atomic<Int>(0)
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.0001, repeats: true, on: loop) { _ in
      if inside.exchange(true, ordering: .sequentiallyConsistent) {
        overlaps.add(1, ordering: .relaxed)
      }
      // Long enough (some microseconds) for calls from different threads to
      // meet if they can.
      for _ in 0..<3000 { calls.add(1, ordering: .relaxed) }
      inside.store(false, ordering: .sequentiallyConsistent)
    }
    onThreads(2) { _ in
      for _ in 0..<300 { timer.fire() }
    }
    timer.invalidate()
    XCTAssertEqual(overlaps.load(ordering: .relaxed), 0, "two calls of the block ran at once")
    XCTAssertGreaterThanOrEqual(calls.load(ordering: .relaxed), 600 * 3000)
  }
}
