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

final class WeakTargetTimerTests: XCTestCase {
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
