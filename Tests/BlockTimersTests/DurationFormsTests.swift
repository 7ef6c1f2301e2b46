import BlockTimers
import Foundation
import TimerLoop
import XCTest

/// A target for the weak-target forms, with one method of each shape.
private final class Counter: Sendable {
  let calls = EventLog<String>()
  func refresh() { calls.append("refresh") }
  func tick(_ timer: BlockTimer) { calls.append("tick(timer)") }
}

/// Every initialiser and factory that takes `TimeInterval` seconds also takes
/// a `Duration`: `.milliseconds(100) * 2` compiles against each (this file
/// would not build otherwise) and means what 0.2 s means.
final class DurationFormsTests: XCTestCase {
  func testBlockTimerFormsTakeADuration() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let fired = EventLog<Double>()
    let scheduled = BlockTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, repeats: true, on: loop
    ) { _ in fired.append(loop.milliseconds(since: start)) }
    XCTAssertEqual(scheduled.timeInterval, 0.2)
    let created = BlockTimer(timeInterval: .milliseconds(100) * 2, repeats: true) { _ in }
    XCTAssertEqual(created.timeInterval, 0.2)
    let dated = BlockTimer(fire: .distantFuture, interval: .milliseconds(100) * 2, repeats: true) {
      _ in
    }
    XCTAssertEqual(dated.timeInterval, 0.2)
    let blocks = DefaultLoop.withCurrent(loop) {
      BlockTimer.scheduledTimer(withTimeInterval: .milliseconds(100) * 2, block: {}, repeats: true)
    }
    XCTAssertEqual(blocks.timeInterval, 0.2)
    let unscheduled = BlockTimer.timer(
      withTimeInterval: .milliseconds(100) * 2, block: {}, repeats: true)
    XCTAssertEqual(unscheduled.timeInterval, 0.2)
    loop.advanceTime(by: .milliseconds(400))
    XCTAssertEqual(fired.all, [200, 400])
    for timer in [scheduled, created, dated, blocks, unscheduled] { timer.invalidate() }
  }

  /// The main-actor forms are only created here: their calls need a main
  /// queue that something services, which an XCTest process does not.
  func testDeliveryFormsTakeADuration() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let queue = DispatchQueue(label: "duration-forms")
    let calls = EventLog<String>()
    let onQueue = BlockTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, block: { calls.append("queue") }, repeats: false,
      on: loop, deliveringOn: queue)
    let mainActorTimer = BlockTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, repeats: true, on: loop,
      deliveringOn: MainActor.self
    ) { _ in }
    let mainActorBlock = BlockTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, block: {}, repeats: true, on: loop,
      deliveringOn: MainActor.self)
    let mainActorDebouncer = try Debouncer<Int>(
      delay: .milliseconds(100) * 2, on: loop, deliveringOn: MainActor.self
    ) { _ in }
    XCTAssertEqual(mainActorTimer.timeInterval, 0.2)
    XCTAssertEqual(mainActorBlock.timeInterval, 0.2)
    mainActorTimer.invalidate()
    mainActorBlock.invalidate()
    XCTAssertFalse(mainActorDebouncer.isPending)
    loop.advanceTime(by: .milliseconds(200))
    drain(queue)
    XCTAssertEqual(calls.all, ["queue"])
    XCTAssertFalse(onQueue.isValid)
  }

  func testWeakTargetTimerFormsTakeADuration() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let counter = Counter()
    let every200ms: Duration = .milliseconds(100) * 2
    let closure = WeakTargetTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, target: counter, on: loop
    ) { $0.calls.append("closure") }
    let method = WeakTargetTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, target: counter, on: loop, action: Counter.refresh)
    let methodTakingTheTimer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, target: counter, on: loop,
      action: Counter.tick(_:))
    let userInfo = WeakTargetTimer.scheduledTimer(
      withTimeInterval: .milliseconds(100) * 2, target: counter, userInfo: "info", on: loop
    ) { counter, info in counter.calls.append(info as? String ?? "none") }
    let yvClosure = WeakTargetTimer.scheduledTimer(
      fireTime: every200ms, interval: every200ms, target: counter, on: loop
    ) { $0.calls.append("yv closure") }
    let yvMethod = WeakTargetTimer.scheduledTimer(
      fireTime: .milliseconds(100) * 2, interval: .milliseconds(100) * 2, target: counter,
      on: loop, action: Counter.refresh)
    let yvMethodTakingTheTimer = WeakTargetTimer.scheduledTimer(
      fireTime: every200ms, interval: every200ms, target: counter, on: loop,
      action: Counter.tick(_:))
    let timers: [WeakTargetTimer<Counter>] = [
      closure, method, methodTakingTheTimer, userInfo, yvClosure, yvMethod, yvMethodTakingTheTimer,
    ]
    XCTAssertEqual(timers.map(\.timeInterval), Array(repeating: 0.2, count: 7))
    loop.advanceTime(by: .milliseconds(199))
    XCTAssertEqual(counter.calls.count, 0)
    loop.advanceTime(by: .milliseconds(1))
    XCTAssertEqual(
      counter.calls.all.sorted(),
      ["closure", "info", "refresh", "refresh", "tick(timer)", "tick(timer)", "yv closure"])
    for timer in timers { timer.invalidate() }
  }

  func testCountdownDebouncerAndThrottlerTakeADuration() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let events = EventLog<String>()
    let countdown = try CountdownTimer(
      duration: .milliseconds(100) * 4, tickInterval: .milliseconds(100) * 2, on: loop,
      onTick: { remaining, _ in events.append("tick \(remaining)") },
      onCompletion: { events.append("done at \(loop.milliseconds(since: start))") })
    XCTAssertEqual(countdown.duration, 0.4)
    XCTAssertEqual(countdown.tickInterval, 0.2)
    let debouncer = try Debouncer<Int>(delay: .milliseconds(100) * 2, on: loop) {
      events.append("debounced \($0) at \(loop.milliseconds(since: start))")
    }
    let throttler = try Throttler<Int>(interval: .milliseconds(100) * 2, on: loop) {
      events.append("throttled \($0) at \(loop.milliseconds(since: start))")
    }
    countdown.start()
    debouncer.call(1)
    throttler.call(2)
    loop.advanceTime(by: .milliseconds(400))
    XCTAssertEqual(
      events.all,
      [
        "tick 0.2", "debounced 1 at 200.0", "throttled 2 at 200.0", "tick 0.0", "done at 400.0",
      ])
  }

  /// "100 ms is exactly 0.1": a `Duration` becomes the `TimeInterval` a
  /// reader would write.
  func testAWholeNumberOfMillisecondsConvertsToTheDoubleItSpells() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    for ms in [1, 3, 7, 10, 100, 300, 1_000, 123_456] {
      let timer = BlockTimer(timeInterval: .milliseconds(ms), repeats: true) { _ in }
      XCTAssertEqual(timer.timeInterval, Double(ms) / 1000, "\(ms) ms")
    }
  }

  /// Durations beyond what `Duration.components` can hold (2^63 s) neither
  /// trap nor fire: like an infinite `TimeInterval`, they mean "never".
  func testTheExtremeDurationsNeverFireAndNeverTrap() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<String>()
    let huge = Duration(attoseconds: .max)
    let timer = BlockTimer.scheduledTimer(withTimeInterval: huge, repeats: true, on: loop) { _ in
      calls.append("timer")
    }
    let countdown = try CountdownTimer(
      duration: huge, tickInterval: huge, on: loop, onTick: { _, _ in calls.append("tick") },
      onCompletion: { calls.append("done") })
    countdown.start()
    let debouncer = try Debouncer<Int>(delay: huge, on: loop) { _ in calls.append("debounced") }
    debouncer.call(1)
    let negative = BlockTimer.scheduledTimer(
      withTimeInterval: Duration(attoseconds: .min), repeats: false, on: loop
    ) { _ in calls.append("negative one-shot") }
    loop.advanceTime(by: .seconds(100_000_000))
    XCTAssertEqual(calls.all, ["negative one-shot"], "≤ 0 is raised to 0.1 ms, as for 0 s")
    XCTAssertTrue(timer.isValid)
    XCTAssertFalse(negative.isValid)
    timer.invalidate()
    countdown.cancel()
    debouncer.cancel()
  }
}
