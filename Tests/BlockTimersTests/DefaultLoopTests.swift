import BlockTimers
import Dispatch
import Foundation
import Synchronization
import TimerLoop
import XCTest

/// Where timers run when no loop is named, on real threads. Waits use
/// expectations and semaphores with generous bounds, never sleeps.
final class DefaultLoopTests: XCTestCase {
  func testWithNoLoopATimerRunsOnTheSharedBackgroundLoop() throws {
    XCTAssertNil(EpollEventLoop.current, "the test thread runs no loop")
    let shared = try DefaultLoop.shared()
    XCTAssertTrue(try DefaultLoop.shared() === shared, "one shared loop")
    let ranOnShared = Box<Bool?>(nil)
    let fired = expectation(description: "fired")
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false) { _ in
      ranOnShared.value = EpollEventLoop.current === shared
      fired.fulfill()
    }
    wait(for: [fired], timeout: 30)
    XCTAssertEqual(ranOnShared.value, true)
    // The one-shot is invalidated just after its block returns.
    let settled = DispatchSemaphore(value: 0)
    try shared.execute { settled.signal() }
    XCTAssertEqual(settled.wait(timeout: .now() + 30), .success)
    XCTAssertFalse(timer.isValid)
  }

  func testOnALoopsThreadATimerStaysOnThatLoop() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "bt-own-loop")
    defer { loop.shutdown() }
    let ranOnLoop = Box<Bool?>(nil)
    let fired = expectation(description: "fired")
    try loop.execute {
      BlockTimer.scheduledTimer(withTimeInterval: 0.001, repeats: false) { _ in
        ranOnLoop.value = EpollEventLoop.current === loop
        fired.fulfill()
      }
    }
    wait(for: [fired], timeout: 30)
    XCTAssertEqual(ranOnLoop.value, true)
  }

  /// Issue 3: "on the event loop of the current thread if the caller is on
  /// one", for a virtual loop too, so tests never leak onto real time.
  func testInsideAVirtualLoopsClosureATimerStaysOnThatLoop() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = Box<Bool>(false)
    try loop.execute {
      BlockTimer.scheduledTimer(withTimeInterval: 5, repeats: false) { _ in fired.value = true }
    }
    loop.run()
    XCTAssertFalse(fired.value)
    loop.advanceTime(by: .seconds(5))
    XCTAssertTrue(fired.value, "the timer went to another loop")
    XCTAssertNil(VirtualEventLoop.current, "current only while the loop runs closures")
  }

  func testAfterInvalidateReturnsOnAnotherThreadNoNewCallStarts() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "bt-invalidate")
    defer { loop.shutdown() }
    let calls = Atomic<Int>(0)
    let third = DispatchSemaphore(value: 0)
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.001, repeats: true, on: loop) { _ in
      if calls.add(1, ordering: .relaxed).newValue == 3 { third.signal() }
    }
    XCTAssertEqual(third.wait(timeout: .now() + 30), .success)
    timer.invalidate()
    let atReturn = calls.load(ordering: .relaxed)
    // Let 20 more periods pass on the loop.
    let later = DispatchSemaphore(value: 0)
    try loop.schedule(after: .milliseconds(20)) { later.signal() }
    XCTAssertEqual(later.wait(timeout: .now() + 30), .success)
    let final = calls.load(ordering: .relaxed)
    // A call admitted before invalidate() may still be finishing; none starts after.
    XCTAssertLessThanOrEqual(final - atReturn, 1)
    XCTAssertFalse(timer.isValid)
  }
}
