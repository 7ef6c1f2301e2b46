import BlockTimers
import Dispatch
import Foundation
import Synchronization
import TimerLoop
import XCTest

/// The semantics Apple documents for `Timer`'s block API, on virtual time.
final class BlockTimerTests: XCTestCase {
  func testFirstFireIsOneIntervalAfterCreationNotAtCreation() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Double>()
    let start = loop.now
    BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: false, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.run()
    XCTAssertEqual(calls.count, 0, "fired at creation")
    loop.advanceTime(by: .ms(999))
    XCTAssertEqual(calls.count, 0, "fired early")
    loop.advanceTime(by: .ms(1))
    XCTAssertEqual(calls.all, [1000])
  }

  func testRepeatingTimerFiresOnItsGrid() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.advanceTime(by: .ms(50))
    XCTAssertEqual(calls.all, [10, 20, 30, 40, 50])
    XCTAssertTrue(timer.isValid)
    XCTAssertEqual(timer.timeInterval, 0.01)
  }

  func testRepeatingTimerFiresOnceForMissedTicksAndStaysOnItsGrid() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
      // The second call keeps the loop busy for 25 ms: ticks at 30 and 40 are missed.
      if calls.count == 2 { loop.stall(for: .ms(25)) }
    }
    loop.advanceTime(by: .ms(70))
    XCTAssertEqual(calls.all, [10, 20, 45, 50, 60, 70])
  }

  func testFireOnARepeatingTimerRunsTheBlockWithoutMovingTheSchedule() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.advanceTime(by: .ms(5))
    timer.fire()
    XCTAssertEqual(calls.all, [5], "fire() runs the block at once, on the caller's thread")
    loop.advanceTime(by: .ms(15))
    XCTAssertEqual(calls.all, [5, 10, 20])
    XCTAssertTrue(timer.isValid)
  }

  func testFireOnAOneShotRunsItAndInvalidatesIt() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Bool>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: false, on: loop) { timer in
      calls.append(timer.isValid)
    }
    timer.fire()
    XCTAssertEqual(calls.all, [true], "valid inside its own block")
    XCTAssertFalse(timer.isValid)
    loop.advanceTime(by: .ms(2000))
    XCTAssertEqual(calls.count, 1, "the scheduled firing was cancelled")
  }

  func testNonPositiveIntervalBecomesOneTenthOfAMillisecond() {
    for interval in [0, -1, -.infinity] as [TimeInterval] {
      let loop = VirtualEventLoop()
      defer { loop.shutdown() }
      let start = loop.now
      let repeating = EventLog<Duration>()
      let oneShot = EventLog<Duration>()
      let timer = BlockTimer.scheduledTimer(withTimeInterval: interval, repeats: true, on: loop) {
        _ in
        repeating.append(loop.now - start)
      }
      BlockTimer.scheduledTimer(withTimeInterval: interval, repeats: false, on: loop) { _ in
        oneShot.append(loop.now - start)
      }
      XCTAssertEqual(timer.timeInterval, 0.0001)
      loop.advanceTime(by: .microseconds(99))
      XCTAssertEqual(oneShot.count + repeating.count, 0, "interval \(interval) fired early")
      loop.advanceTime(by: .microseconds(901))
      XCTAssertEqual(oneShot.all, [.microseconds(100)])
      XCTAssertEqual(repeating.all, (1...10).map { .microseconds(Int64($0) * 100) })
    }
  }

  func testAOneShotIsValidInsideItsBlockAndInvalidAfter() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let validInside = Box<Bool?>(nil)
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) {
      timer in
      validInside.value = timer.isValid
    }
    XCTAssertTrue(timer.isValid)
    loop.advanceTime(by: .ms(10))
    XCTAssertEqual(validInside.value, true)
    XCTAssertFalse(timer.isValid)
  }

  func testTheBlockReceivesTheVeryTimerTheFactoryReturned() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let received = Box<[ObjectIdentifier]>([])
    let scheduled = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) {
      received.value.append(ObjectIdentifier($0))
    }
    let created = BlockTimer(timeInterval: -1, repeats: false) {
      received.value.append(ObjectIdentifier($0))
    }
    created.add(to: loop)
    loop.advanceTime(by: .ms(10))
    XCTAssertEqual(received.value, [ObjectIdentifier(created), ObjectIdentifier(scheduled)])
  }

  func testInvalidatingFromInsideTheBlockStopsTheTimerAtOnce() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) {
      timer in
      calls.append(calls.count + 1)
      if calls.count == 3 {
        timer.invalidate()
        XCTAssertFalse(timer.isValid)
      }
    }
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(calls.all, [1, 2, 3])
    XCTAssertFalse(timer.isValid)
  }

  func testAnInvalidatedTimerCannotBeRevived() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(1)
    }
    timer.invalidate()
    let dateWhenInvalidated = timer.fireDate
    timer.fireDate = Date()
    XCTAssertEqual(
      timer.fireDate, dateWhenInvalidated, "setting fireDate on an invalid timer has no effect")
    timer.add(to: loop)
    timer.fire()
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(calls.count, 0)
    XCTAssertFalse(timer.isValid)
  }

  func testACreatedTimerDoesNotRunUntilAddedToALoop() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timer = BlockTimer(timeInterval: 5, repeats: false) { _ in calls.append(1) }
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(calls.count, 0)
    XCTAssertTrue(timer.isValid)
    timer.add(to: loop)
    // Its fire date was fixed at creation, 5 s of wall-clock time from then.
    loop.advanceTime(by: .seconds(4))
    XCTAssertEqual(calls.count, 0)
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(calls.count, 1)
    XCTAssertFalse(timer.isValid)
  }

  func testAddingATimerTwiceOrToASecondLoopDoesNothing() {
    let first = VirtualEventLoop()
    defer { first.shutdown() }
    let second = VirtualEventLoop()
    defer { second.shutdown() }
    let calls = EventLog<Int>()
    let timer = BlockTimer(fire: Date(timeIntervalSinceNow: -1), interval: 0, repeats: false) { _ in
      calls.append(1)
    }
    timer.add(to: first)
    timer.add(to: first)
    timer.add(to: second)
    second.run()
    XCTAssertEqual(calls.count, 0)
    first.run()
    XCTAssertEqual(calls.count, 1, "a past fire date fires in the next pass, once")
  }

  func testInitWithFireDateStartsThereAndRepeatsEveryInterval() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let timer = BlockTimer(fire: Date(timeIntervalSinceNow: 2), interval: 1, repeats: true) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    XCTAssertEqual(timer.timeInterval, 1)
    timer.add(to: loop)
    loop.advanceTime(by: .ms(1500))
    XCTAssertEqual(calls.count, 0)
    loop.advanceTime(by: .ms(2500))
    // Wall-clock time between creating and adding moves the grid earlier by
    // that much (microseconds), never later.
    XCTAssertEqual(calls.count, 3)
    XCTAssertTrue(
      zip(calls.all, [2000, 3000, 4000] as [Double]).allSatisfy { $0 <= $1 && $0 > $1 - 500 })
  }

  func testSettingTheFireDateMovesARepeatingTimerOntoANewGrid() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.advanceTime(by: .seconds(1))
    timer.fireDate = Date(timeIntervalSinceNow: 3)
    XCTAssertEqual(timer.fireDate.timeIntervalSinceNow, 3, accuracy: 0.5)
    loop.advanceTime(by: .ms(2500))
    XCTAssertEqual(calls.count, 1)
    loop.advanceTime(by: .ms(2000))
    XCTAssertEqual(calls.count, 3, "fires near 4 s and 5 s: every second from the new date")
    XCTAssertEqual(calls.all.last ?? 0, 5000, accuracy: 500)
  }

  func testSettingTheFireDateFromInsideTheBlock() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true, on: loop) { timer in
      calls.append(loop.milliseconds(since: start))
      if calls.count == 1 { timer.fireDate = Date(timeIntervalSinceNow: 10) }
    }
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(calls.all, [1000])
    loop.advanceTime(by: .ms(2500))
    XCTAssertEqual(calls.count, 3, "fires near 11 s and 12 s")
    XCTAssertEqual(calls.all[1], 11000, accuracy: 500)
  }

  func testAOneShotIsInvalidAfterItsBlockEvenIfTheBlockSetItsFireDate() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) {
      timer in
      calls.append(1)
      timer.fireDate = Date(timeIntervalSinceNow: 0.01)
    }
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(calls.count, 1, "Apple invalidates a one-shot after its callout")
    XCTAssertFalse(timer.isValid)
  }

  func testFireDateReportsTheNextFiringOnTheLoopsClock() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 10, repeats: true, on: loop) { _ in }
    XCTAssertEqual(timer.fireDate.timeIntervalSinceNow, 10, accuracy: 0.5)
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(timer.fireDate.timeIntervalSinceNow, 10, accuracy: 0.5, "the next grid point")
    loop.advanceTime(by: .seconds(4))
    XCTAssertEqual(timer.fireDate.timeIntervalSinceNow, 6, accuracy: 0.5)
  }

  func testDistantFutureNeverFiresAndParksARepeatingTimer() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let never = BlockTimer(fire: .distantFuture, interval: 1, repeats: true) { _ in calls.append(0)
    }
    never.add(to: loop)
    XCTAssertEqual(never.fireDate, .distantFuture)
    let parked = BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true, on: loop) { _ in
      calls.append(1)
    }
    parked.fireDate = .distantFuture
    loop.advanceTime(by: .seconds(100_000_000))
    XCTAssertEqual(calls.count, 0)
    XCTAssertTrue(never.isValid && parked.isValid)
    parked.fireDate = Date()
    loop.run()
    XCTAssertEqual(calls.all, [1])
  }

  func testNaNIntervalOrDateGivesAnInvalidTimerThatNeverFires() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timers = [
      BlockTimer.scheduledTimer(withTimeInterval: .nan, repeats: true, on: loop) { _ in
        calls.append(0)
      },
      BlockTimer.scheduledTimer(withTimeInterval: .nan, repeats: false, on: loop) { _ in
        calls.append(1)
      },
      BlockTimer(timeInterval: .nan, repeats: false) { _ in calls.append(2) },
      BlockTimer(fire: Date(timeIntervalSinceReferenceDate: .nan), interval: 1, repeats: true) {
        _ in
        calls.append(3)
      },
      BlockTimer(fire: Date(), interval: .nan, repeats: true) { _ in calls.append(4) },
    ]
    for timer in timers {
      XCTAssertFalse(timer.isValid)
      timer.add(to: loop)
      timer.fire()
    }
    // Setting a NaN date on a valid timer invalidates it.
    let valid = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(5)
    }
    valid.fireDate = Date(timeIntervalSinceReferenceDate: .nan)
    XCTAssertFalse(valid.isValid)
    // A spinning timer would keep this call from returning.
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(calls.count, 0)
  }

  func testToleranceOnlyDelaysAndCoalescesWakeUps() {
    // Start on a multiple of 2^23 ns (the grid a 10 ms tolerance aligns to).
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 33))
    let start = loop.now
    let fired = EventLog<(String, Duration)>()
    func timer(_ name: String, after ms: Double, tolerance: TimeInterval) -> BlockTimer {
      let timer = BlockTimer.scheduledTimer(withTimeInterval: ms / 1000, repeats: false, on: loop) {
        _ in
        fired.append((name, loop.now - start))
      }
      timer.tolerance = tolerance
      return timer
    }
    let a = timer("a", after: 1, tolerance: 0.01)
    _ = timer("exact", after: 3, tolerance: 0)
    _ = timer("b", after: 5, tolerance: 0.01)
    XCTAssertEqual(a.tolerance, 0.01)
    // Delayed, it would read about 8.4 ms; time passing only lowers it.
    let reported = a.fireDate.timeIntervalSinceNow
    XCTAssertTrue(reported < 0.002 && reported > -1, "fireDate is not delayed: \(reported)")
    loop.advanceTime(by: .ms(20))
    let times = Dictionary(uniqueKeysWithValues: fired.all)
    XCTAssertEqual(times["exact"], .ms(3))
    XCTAssertEqual(times["a"], times["b"], "one wake-up for both")
    XCTAssertEqual(times["a"], .nanoseconds(1 << 23))
    for (name, due) in [("a", 1.0), ("b", 5.0)] {
      let at = times[name]!
      XCTAssertTrue(at >= .ms(due) && at < .ms(due + 10), "\(name) at \(at) outside its window")
    }
    let negative = BlockTimer(timeInterval: 1, repeats: false) { _ in }
    negative.tolerance = -1
    XCTAssertEqual(negative.tolerance, 0)
    negative.tolerance = .nan
    XCTAssertEqual(negative.tolerance, 0)
  }

  /// Issue 10, item 13: CoreFoundation caps a repeating timer's tolerance at
  /// half its interval; every firing stays in [grid point, grid point + tolerance).
  func testToleranceOfARepeatingTimerIsCappedAtHalfItsIntervalAndNeverMakesItEarly() {
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 33))
    defer { loop.shutdown() }
    let start = loop.now
    let fired = EventLog<Duration>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      fired.append(loop.now - start)
    }
    timer.tolerance = 1
    XCTAssertEqual(timer.tolerance, 0.005)
    timer.tolerance = -1
    XCTAssertEqual(timer.tolerance, 0)
    timer.tolerance = 0.004
    XCTAssertEqual(timer.tolerance, 0.004)
    timer.tolerance = 60
    loop.advanceTime(by: .ms(105))
    XCTAssertEqual(fired.count, 10, "one firing per interval: \(fired.all)")
    for (n, at) in fired.all.enumerated() {
      let due = Duration.ms(Double(n + 1) * 10)
      XCTAssertTrue(at >= due && at < due + .ms(5), "firing \(n) at \(at), due at \(due)")
    }
    let oneShot = BlockTimer(timeInterval: 0.01, repeats: false) { _ in }
    oneShot.tolerance = 60
    XCTAssertEqual(oneShot.tolerance, 60, "a one-shot has no interval to cap it")
  }

  func testTimeIntervalIsZeroForAOneShotAndUserInfoIsKept() {
    let timer = BlockTimer(timeInterval: 5, repeats: false, userInfo: "payload") { _ in }
    XCTAssertEqual(timer.timeInterval, 0)
    XCTAssertEqual(timer.userInfo as? String, "payload")
    XCTAssertFalse(timer.repeats)
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let repeating = BlockTimer.scheduledTimer(
      withTimeInterval: 5, repeats: true, on: loop, userInfo: 42
    ) { _ in }
    XCTAssertEqual(repeating.timeInterval, 5)
    XCTAssertEqual(repeating.userInfo as? Int, 42)
  }

  func testInvalidateTwiceBeforeSchedulingAndFromAnotherThreadIsSafe() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let unscheduled = BlockTimer(timeInterval: 0.01, repeats: true) { _ in calls.append(0) }
    unscheduled.invalidate()
    unscheduled.invalidate()
    unscheduled.add(to: loop)
    let timers = (0..<50).map { i in
      BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
        calls.append(i)
      }
    }
    loop.advanceTime(by: .ms(10))
    XCTAssertEqual(calls.count, 50)
    DispatchQueue.concurrentPerform(iterations: 100) { i in timers[i % 50].invalidate() }
    loop.advanceTime(by: .ms(100))
    XCTAssertEqual(calls.count, 50)
    XCTAssertTrue(timers.allSatisfy { !$0.isValid })
  }

  func testInvalidatingReleasesTheBlockAndAFiredOneShotIsReleasedByTheLoop() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    weak var capturedByInvalidated: Canary?
    weak var oneShot: BlockTimer?
    let kept: BlockTimer
    do {
      let canary = Canary()
      capturedByInvalidated = canary
      kept = BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true, on: loop) { _ in
        _ = canary
      }
      oneShot = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) { _ in }
    }
    XCTAssertNotNil(oneShot, "the loop holds a scheduled timer")
    kept.invalidate()
    XCTAssertNil(capturedByInvalidated, "invalidate() released the block")
    loop.advanceTime(by: .ms(10))
    XCTAssertNil(oneShot, "the loop let go of the fired one-shot")
  }

  func testBlocksCanBeDeliveredOnADispatchQueue() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "delivery")
    queue.setSpecific(key: key, value: "delivery")
    let ranOn = EventLog<String?>()
    let delivered = expectation(description: "delivered on the queue")
    BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop, deliveringOn: queue)
    { _ in
      ranOn.append(DispatchQueue.getSpecific(key: key))
      delivered.fulfill()
    }
    loop.advanceTime(by: .ms(10))
    wait(for: [delivered], timeout: 30)
    XCTAssertEqual(ranOn.all, ["delivery"])
  }

  func testARepeatingTimerOnABusyQueueSkipsTicksInsteadOfQueueingABurst() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let queue = DispatchQueue(label: "busy")
    let calls = EventLog<Int>()
    let timer = BlockTimer.scheduledTimer(
      withTimeInterval: 0.01, repeats: true, on: loop, deliveringOn: queue
    ) {
      _ in calls.append(1)
    }
    queue.suspend()
    loop.advanceTime(by: .ms(50))
    queue.resume()
    drain(queue)
    XCTAssertEqual(calls.count, 1, "five ticks, one call")
    loop.advanceTime(by: .ms(10))
    drain(queue)
    XCTAssertEqual(calls.count, 2)
    // A call handed to the queue but not started does not run after invalidate().
    queue.suspend()
    loop.advanceTime(by: .ms(10))
    timer.invalidate()
    queue.resume()
    drain(queue)
    XCTAssertEqual(calls.count, 2)
  }

  func testATimerScheduledInsideABlockUsesTheSameLoop() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false, on: loop) { _ in
      BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: false) { _ in
        calls.append(loop.milliseconds(since: start))
      }
    }
    loop.advanceTime(by: .ms(30))
    XCTAssertEqual(calls.all, [20])
  }

  func testDefaultLoopCanBeScopedToAVirtualLoop() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let timer = DefaultLoop.withCurrent(loop) {
      XCTAssertTrue(DefaultLoop.current === loop)
      return BlockTimer.scheduledTimer(withTimeInterval: 0.5, repeats: false) { _ in calls.append(1)
      }
    }
    XCTAssertFalse(DefaultLoop.current === loop, "the scope ended")
    loop.advanceTime(by: .ms(500))
    XCTAssertEqual(calls.count, 1)
    XCTAssertFalse(timer.isValid)
  }

  func testSchedulingOnAShutDownLoopGivesAnInvalidTimer() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    loop.shutdown()
    let calls = EventLog<Int>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(1)
    }
    XCTAssertFalse(timer.isValid)
    timer.fire()
    XCTAssertEqual(calls.count, 0)
  }

  /// Issue 10, item 9: a `fire()` from inside the block runs it again, nested,
  /// instead of deadlocking on the one-call-at-a-time rule.
  func testFireFromInsideTheBlockRunsItNested() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<String>()
    BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { timer in
      calls.append("begin")
      if calls.count == 1 { timer.fire() }
      calls.append("end")
    }
    let oneShot = BlockTimer.scheduledTimer(withTimeInterval: 0.015, repeats: false, on: loop) {
      timer in
      calls.append("one-shot")
      if calls.all.filter({ $0 == "one-shot" }).count == 1 { timer.fire() }
    }
    loop.advanceTime(by: .ms(20))
    XCTAssertEqual(
      calls.all, ["begin", "begin", "end", "end", "one-shot", "one-shot", "begin", "end"])
    XCTAssertFalse(oneShot.isValid)
  }

  /// Issue 10, item 11: equal dates map to equal deadlines, so timers given
  /// the same fire date fire in the order they were scheduled (or moved).
  func testTimersGivenTheSameFireDateFireInTheOrderTheyWereScheduled() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let date = Date(timeIntervalSinceNow: 1)
    let order = EventLog<Int>()
    let added = (0..<101).map { i in
      let timer = BlockTimer(fire: date, interval: 0, repeats: false) { _ in order.append(i) }
      timer.add(to: loop)
      return timer
    }
    XCTAssertTrue(added.allSatisfy { $0.fireDate == date }, "the date reads back as set")
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(order.all, Array(0..<101))

    let later = Date(timeIntervalSinceNow: 1)
    let moved = (0..<101).map { i in
      BlockTimer.scheduledTimer(withTimeInterval: 5, repeats: false, on: loop) { _ in
        order.append(1000 + i)
      }
    }
    for timer in moved { timer.fireDate = later }
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(order.all.dropFirst(101), ArraySlice((0..<101).map { 1000 + $0 }))
  }

  /// Issue 10, item 12: setting `fireDate` moves a repeating timer's grid; a
  /// past date fires once, at once, and the grid counts from there.
  func testSettingTheFireDateMovesTheGridAndAPastDateCountsFromNow() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Double>()
    let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.01, repeats: true, on: loop) { _ in
      calls.append(loop.milliseconds(since: start))
    }
    loop.advanceTime(by: .ms(15))
    // From 20 ms to 18 ms (a date made from the timer's own, not from the
    // wall clock, which moves on while the virtual clock stands still).
    timer.fireDate = timer.fireDate.addingTimeInterval(-0.002)
    loop.advanceTime(by: .ms(30))
    // A date is as precise as a Double of seconds since 2001 (about 0.1 µs).
    let expected: [Double] = [10, 18, 28, 38]
    XCTAssertEqual(calls.count, expected.count, "\(calls.all)")
    for (at, due) in zip(calls.all, expected) { XCTAssertEqual(at, due, accuracy: 0.001) }

    // Reads back the moment of the set: a date between wall-clock readings
    // taken around it, give or take the 1 ms a loop's date anchor may drift
    // before it is read again. Against a single later reading, a pause of
    // this thread of over 1 ms would fail it.
    let beforeSet = Date()
    timer.fireDate = Date(timeIntervalSinceNow: -0.025)
    let readBack = timer.fireDate
    let afterRead = Date()
    XCTAssertGreaterThanOrEqual(
      readBack, beforeSet.addingTimeInterval(-0.001), "reads back the set")
    XCTAssertLessThanOrEqual(readBack, afterRead.addingTimeInterval(0.001), "reads back the set")
    loop.advanceTime(by: .ms(25))
    XCTAssertEqual(calls.all.dropFirst(4), [45, 55, 65], "once at 45 ms, then every 10 ms")

    timer.fireDate = .distantPast
    loop.stall(for: .ms(3))
    loop.advanceTime(by: .ms(12))
    XCTAssertEqual(
      calls.all.dropFirst(7), [73, 80], "fired once, late, then on the grid of the set")
  }

  func testTimersCompareByIdentity() {
    let a = BlockTimer(timeInterval: 1, repeats: false) { _ in }
    let b = BlockTimer(timeInterval: 1, repeats: false) { _ in }
    XCTAssertEqual(Set([a, a, b]).count, 2)
    XCTAssertNotEqual(a, b)
  }
}
