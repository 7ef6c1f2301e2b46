import BlockTimers
import Foundation
import Synchronization
import TimerLoop
import XCTest

/// A view-model owning its refresh timer in a property, as EasyTimer,
/// JCAutoInvalidateTimer and YVTimer users write it.
private final class ViewModel: Sendable {
  let ticks: EventLog<Double>
  let loop: VirtualEventLoop
  let start: Deadline
  private let refresh = Locked<WeakTargetTimer<ViewModel>?>(nil)

  init(loop: VirtualEventLoop, ticks: EventLog<Double>) {
    self.loop = loop
    self.ticks = ticks
    self.start = loop.now
  }

  func startRefreshing() {
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 1, target: self, on: loop, action: ViewModel.tick)
    refresh.withLock { $0 = timer }
  }

  var timer: BlockTimer? { refresh.withLock { $0?.timer } }

  func tick() { ticks.append(loop.milliseconds(since: start)) }
}

/// A YVTimer/EasyTimer owner whose selector takes the timer: `-tick:(NSTimer *)timer`.
private final class Poller: Sendable {
  let received = EventLog<String>()
  func tick(_ timer: BlockTimer) {
    received.append(timer.userInfo as? String ?? "none")
    if received.count == 2 { timer.invalidate() }
  }
}

final class WeakTargetTimerTests: XCTestCase {
  /// Issue 13, item 4: the wrapper forwards the timer's properties, and an
  /// action can take the timer as `-tick:(NSTimer *)` does.
  func testForwardsTheTimersPropertiesAndCanHandTheTimerToTheAction() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let poller = Poller()
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.01, target: poller, userInfo: "feed", on: loop, action: Poller.tick(_:))
    XCTAssertTrue(timer.repeats)
    XCTAssertEqual(timer.timeInterval, 0.01)
    XCTAssertEqual(timer.userInfo as? String, "feed")
    XCTAssertEqual(timer.fireDate.timeIntervalSince(timer.timer.fireDate), 0, accuracy: 0.001)
    timer.tolerance = 1
    XCTAssertEqual(timer.tolerance, 0.005, "capped at half the interval, as on the timer")
    XCTAssertEqual(timer.timer.tolerance, 0.005)
    timer.tolerance = 0
    let moved = timer.fireDate.addingTimeInterval(0.02)
    timer.fireDate = moved
    XCTAssertEqual(timer.fireDate.timeIntervalSince(moved), 0, accuracy: 0.001)
    XCTAssertEqual(timer.timer.fireDate.timeIntervalSince(moved), 0, accuracy: 0.001)
    loop.advanceTime(by: .ms(25))
    XCTAssertEqual(poller.received.count, 0, "moved 20 ms later")
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(poller.received.all, ["feed", "feed"], "the action invalidated its timer")
    XCTAssertFalse(timer.isValid)

    let yv = WeakTargetTimer.scheduledTimer(
      fireTime: 0.5, interval: 1, target: poller, repeats: false, userInfo: "yv", on: loop,
      action: Poller.tick(_:))
    XCTAssertFalse(yv.repeats)
    XCTAssertEqual(yv.timeInterval, 0)
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(poller.received.all.last, "yv")
  }

  func testAViewModelReleasedMidSeriesGetsNoMoreCallsAndItsTimerEnds() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Double>()
    var model: ViewModel? = ViewModel(loop: loop, ticks: ticks)
    weak let weakModel = model
    model?.startRefreshing()
    let timer = model?.timer
    loop.advanceTime(by: .seconds(3))
    XCTAssertEqual(ticks.all, [1000, 2000, 3000])
    XCTAssertTrue(timer?.isValid ?? false)

    model = nil
    XCTAssertNil(weakModel, "the timer does not keep its owner alive")
    XCTAssertEqual(timer?.isValid, false, "invalidated as the owner went away")
    loop.advanceTime(by: .seconds(5))
    XCTAssertEqual(ticks.all, [1000, 2000, 3000])
  }

  func testATargetGoneWhileTheTimerIsHeldElsewhereEndsItAtTheNextTick() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    var target: Canary? = Canary()
    weak let weakTarget = target
    let timer = WeakTargetTimer.scheduledTimer(withTimeInterval: 0.01, target: target!, on: loop) {
      _ in
      calls.append(1)
    }
    loop.advanceTime(by: .ms(10))
    target = nil
    XCTAssertNil(weakTarget)
    XCTAssertNil(timer.target)
    XCTAssertTrue(timer.isValid, "nothing has looked yet")
    loop.advanceTime(by: .ms(10))
    XCTAssertFalse(timer.isValid)
    timer.fire()
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(calls.count, 1, "a deallocated target is never called")
  }

  func testReleasingTheTimerObjectWhileTheTargetLivesKeepsItRunning() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let target = Canary()
    weak var wrapper: WeakTargetTimer<Canary>?
    do {
      let timer = WeakTargetTimer.scheduledTimer(withTimeInterval: 0.01, target: target, on: loop) {
        _ in
        calls.append(1)
      }
      wrapper = timer
    }
    XCTAssertNil(wrapper)
    loop.advanceTime(by: .ms(30))
    XCTAssertEqual(calls.count, 3)
    withExtendedLifetime(target) {}
  }

  func testYVTimersDelayedStartThenInterval() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let target = Canary()
    let timer = WeakTargetTimer.scheduledTimer(fireTime: 2, interval: 0.5, target: target, on: loop)
    { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.advanceTime(by: .ms(1999))
    XCTAssertEqual(calls.count, 0)
    loop.advanceTime(by: .ms(1001))
    XCTAssertEqual(calls.all, [2000, 2500, 3000])
    XCTAssertEqual(timer.timer.timeInterval, 0.5)
    let invalid = WeakTargetTimer.scheduledTimer(
      fireTime: .nan, interval: 1, target: target, on: loop
    ) { _ in
      calls.append(-1)
    }
    XCTAssertFalse(invalid.isValid)
    loop.advanceTime(by: .seconds(5))
    XCTAssertFalse(calls.all.contains(-1))
    withExtendedLifetime(target) {}
  }

  func testJCAutoInvalidateTimersBlockReceivesUserInfo() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let target = Canary()
    let received = EventLog<String>()
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.01, target: target, repeats: false, userInfo: "row 7", on: loop
    ) { _, userInfo in
      received.append(userInfo as? String ?? "none")
    }
    loop.advanceTime(by: .ms(50))
    XCTAssertEqual(received.all, ["row 7"])
    XCTAssertFalse(timer.isValid, "a one-shot ends after firing")
    withExtendedLifetime(target) {}
  }

  func testInvalidateStopsAWeakTargetTimer() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let target = Canary()
    let calls = EventLog<Int>()
    let timer = WeakTargetTimer.scheduledTimer(withTimeInterval: 0.01, target: target, on: loop) {
      _ in
      calls.append(1)
    }
    timer.fire()
    timer.invalidate()
    loop.advanceTime(by: .ms(50))
    XCTAssertEqual(calls.count, 1)
    XCTAssertTrue(timer.target === target)
  }
}
