import BlockTimers
import Dispatch
import Foundation
import TimerLoop
import XCTest

/// Issue 10, item 6: a loop's shutdown ends every BlockTimers object on it at
/// once, releases what their closures capture, and none of them keeps the
/// loop object alive.
final class ShutdownTests: XCTestCase {
  /// One of each kind, each holding a canary in its closures.
  private struct Objects {
    let timer: BlockTimer
    let weakTarget: WeakTargetTimer<Canary>
    let running: CountdownTimer
    let suspended: CountdownTimer
    let debouncer: Debouncer<Canary>
    let throttler: Throttler<Canary>

    func assertEnded(file: StaticString = #filePath, line: UInt = #line) {
      XCTAssertFalse(timer.isValid, file: file, line: line)
      XCTAssertFalse(weakTarget.isValid, file: file, line: line)
      XCTAssertEqual(running.status, .cancelled, file: file, line: line)
      XCTAssertEqual(suspended.status, .cancelled, file: file, line: line)
      XCTAssertFalse(debouncer.isPending, file: file, line: line)
      XCTAssertFalse(throttler.isPending, file: file, line: line)
    }
  }

  /// Makes the objects on `loop`; `canaries` gets one weak reference per
  /// closure that must be released. No closure captures the loop.
  private func makeObjects(on loop: any TimerEventLoop, target: Canary, canaries: inout [() -> Canary?])
    throws -> Objects
  {
    func canary() -> Canary {
      let canary = Canary()
      canaries.append { [weak canary] in canary }
      return canary
    }
    let inTimer = canary()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      _ = inTimer
    }
    let inWeakTarget = canary()
    let weakTarget = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.01, target: target, on: loop
    ) { _ in _ = inWeakTarget }
    let inRunning = canary()
    let running = try CountdownTimer(
      duration: 10, tickInterval: 1, on: loop, onTick: { _, _ in _ = inRunning },
      onCompletion: {})
    running.start()
    let inSuspended = canary()
    let suspended = try CountdownTimer(
      duration: 10, tickInterval: 1, on: loop, onTick: { _, _ in },
      onCompletion: { _ = inSuspended })
    suspended.start()
    suspended.suspend()
    let inDebouncer = canary()
    let debouncer = try Debouncer<Canary>(delay: 10, on: loop) { _ in _ = inDebouncer }
    debouncer.call(canary())
    let inThrottler = canary()
    let throttler = try Throttler<Canary>(interval: 10, on: loop) { _ in _ = inThrottler }
    throttler.call(canary())
    return Objects(
      timer: timer, weakTarget: weakTarget, running: running, suspended: suspended,
      debouncer: debouncer, throttler: throttler)
  }

  func testShutdownEndsEveryKindAtOnceAndReleasesTheirClosures() throws {
    var loop: VirtualEventLoop? = VirtualEventLoop()
    weak let weakLoop = loop
    let target = Canary()
    var canaries: [() -> Canary?] = []
    let objects = try makeObjects(on: loop!, target: target, canaries: &canaries)
    loop!.advanceTime(by: .ms(15))
    XCTAssertTrue(objects.timer.isValid && objects.weakTarget.isValid)
    XCTAssertTrue(objects.debouncer.isPending && objects.throttler.isPending)
    XCTAssertEqual(canaries.count, 8)

    loop!.shutdown()
    objects.assertEnded()
    for (index, canary) in canaries.enumerated() {
      XCTAssertNil(canary(), "closure \(index) still holds what it captured")
    }
    loop = nil
    XCTAssertNil(weakLoop, "an object of BlockTimers keeps its loop alive")

    // Calls after the shutdown do nothing and trap nothing.
    objects.debouncer.call(Canary())
    objects.throttler.call(Canary())
    objects.running.resume()
    objects.timer.fireDate = Date()
    objects.assertEnded()
  }

  func testShutdownFromAnotherThreadEndsThemBeforeItReturns() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "shutdown-test")
    let target = Canary()
    var canaries: [() -> Canary?] = []
    let objects = try makeObjects(on: loop, target: target, canaries: &canaries)
    loop.shutdown()
    objects.assertEnded()
    for (index, canary) in canaries.enumerated() {
      XCTAssertNil(canary(), "closure \(index) still holds what it captured")
    }
  }

  func testObjectsMadeOnALoopThatHasShutDownAreEndedFromTheStart() throws {
    let loop = VirtualEventLoop()
    loop.shutdown()
    let target = Canary()
    var canaries: [() -> Canary?] = []
    let objects = try makeObjects(on: loop, target: target, canaries: &canaries)
    objects.assertEnded()
    for (index, canary) in canaries.enumerated() {
      XCTAssertNil(canary(), "closure \(index) still holds what it captured")
    }
  }
}
