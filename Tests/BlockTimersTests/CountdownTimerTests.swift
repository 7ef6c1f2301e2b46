import BlockTimers
import Dispatch
import Foundation
import TimerLoop
import XCTest

private struct Tick: Equatable, Sendable {
  var at: Double
  var remaining: TimeInterval
  var progress: Double
}

final class CountdownTimerTests: XCTestCase {
  private func countdown(
    _ duration: TimeInterval, tick: TimeInterval, on loop: VirtualEventLoop, ticks: EventLog<Tick>,
    completions: EventLog<Double>
  ) throws -> CountdownTimer {
    let start = loop.now
    return try CountdownTimer(
      duration: duration, tickInterval: tick, on: loop,
      onTick: {
        ticks.append(Tick(at: loop.milliseconds(since: start), remaining: $0, progress: $1))
      },
      onCompletion: { completions.append(loop.milliseconds(since: start)) })
  }

  /// TTTimer's scenario: a 5-second countdown ticking every second, suspended
  /// mid-tick for a while, then resumed.
  func testTTTimersFiveSecondCountdownWithSuspendAndResume() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let timer = try countdown(5, tick: 1, on: loop, ticks: ticks, completions: completions)
    XCTAssertEqual(timer.status, .idle)
    loop.advanceTime(by: .seconds(3))
    XCTAssertEqual(ticks.count, 0, "nothing before start()")
    // Loop time is now 3000 ms.
    timer.start()
    loop.advanceTime(by: .ms(2500))
    XCTAssertEqual(
      ticks.all,
      [Tick(at: 4000, remaining: 4, progress: 0.2), Tick(at: 5000, remaining: 3, progress: 0.4)])

    timer.suspend()
    XCTAssertEqual(timer.status, .suspended)
    XCTAssertEqual(timer.remaining, 2.5)
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(ticks.count, 2, "frozen while suspended")
    XCTAssertEqual(timer.remaining, 2.5)

    // Loop time is now 15500 ms; 2.5 s of countdown left.
    timer.resume()
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(
      ticks.all.suffix(3),
      [
        Tick(at: 16000, remaining: 2, progress: 0.6), Tick(at: 17000, remaining: 1, progress: 0.8),
        Tick(at: 18000, remaining: 0, progress: 1),
      ], "no burst on resume: the next tick is the next grid point")
    XCTAssertEqual(completions.all, [18000])
    XCTAssertEqual(timer.status, .finished)
    XCTAssertEqual(timer.remaining, 0)
  }

  func testADurationThatIsNotAMultipleOfTheTickEndsWithAFinalTick() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let timer = try countdown(5, tick: 2, on: loop, ticks: ticks, completions: completions)
    timer.start()
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(ticks.all.map(\.remaining), [3, 1, 0])
    XCTAssertEqual(ticks.all.map(\.at), [2000, 4000, 5000])
    XCTAssertEqual(completions.all, [5000])
  }

  func testSuspendResumeStartAndCancelAreIdempotent() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let timer = try countdown(3, tick: 1, on: loop, ticks: ticks, completions: completions)
    timer.suspend()
    timer.resume()
    XCTAssertEqual(timer.status, .idle, "suspend and resume before start do nothing")
    timer.start()
    timer.start()
    timer.resume()
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(ticks.count, 1, "one tick, not one per start()")
    timer.suspend()
    timer.suspend()
    timer.resume()
    timer.resume()
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(ticks.count, 2)
    timer.cancel()
    timer.cancel()
    timer.resume()
    timer.start()
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(ticks.count, 2)
    XCTAssertEqual(timer.status, .cancelled)
    XCTAssertEqual(timer.remaining, 1)
    XCTAssertEqual(completions.count, 0, "cancel() does not complete")
  }

  func testCompletionRunsExactlyOnceWhileOtherThreadsSuspendAndResume() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let timer = try countdown(0.1, tick: 0.001, on: loop, ticks: ticks, completions: completions)
    timer.start()
    let hammer = DispatchGroup()
    DispatchQueue.global().async(group: hammer) {
      DispatchQueue.concurrentPerform(iterations: 4_000) { i in
        i.isMultiple(of: 2) ? timer.suspend() : timer.resume()
        if i.isMultiple(of: 7) { timer.start() }
      }
    }
    while hammer.wait(timeout: .now()) == .timedOut {
      loop.advanceTime(by: .microseconds(500))
    }
    timer.resume()
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(timer.status, .finished)
    XCTAssertEqual(completions.count, 1)
    XCTAssertEqual(ticks.all.last?.remaining, 0)
    let remainders = ticks.all.map(\.remaining)
    XCTAssertTrue(
      zip(remainders, remainders.dropFirst()).allSatisfy { $0 > $1 },
      "ticks count down, never repeat")
  }

  func testTicksMissedWhileTheLoopWasBusyAreSkipped() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let ticks = EventLog<Tick>()
    let timer = try CountdownTimer(
      duration: 10, tickInterval: 1, on: loop,
      onTick: { remaining, progress in
        ticks.append(
          Tick(at: loop.milliseconds(since: start), remaining: remaining, progress: progress))
        if remaining == 8 { loop.stall(for: .ms(3500)) }
      }, onCompletion: {})
    timer.start()
    loop.advanceTime(by: .seconds(7))
    XCTAssertEqual(ticks.all.map(\.at), [1000, 2000, 5500, 6000, 7000])
    XCTAssertEqual(
      ticks.all.map(\.remaining), [9, 8, 5, 4, 3], "a late tick reports the tick it stands for")
  }

  func testCallbacksCanControlTheCountdownFromInside() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<TimeInterval>()
    let box = Box<CountdownTimer?>(nil)
    let timer = try CountdownTimer(
      duration: 5, tickInterval: 1, on: loop,
      onTick: { remaining, _ in
        ticks.append(remaining)
        if remaining == 3 { box.value?.suspend() }
      }, onCompletion: {})
    box.value = timer
    timer.start()
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(ticks.all, [4, 3])
    XCTAssertEqual(timer.status, .suspended)
    XCTAssertEqual(timer.remaining, 3)
  }

  /// The doc promises no completion after `cancel()`, also when the final
  /// tick's own callback is the one that cancels.
  func testCancellingFromTheFinalTickSuppressesTheCompletion() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let completions = EventLog<Int>()
    let box = Box<CountdownTimer?>(nil)
    let timer = try CountdownTimer(
      duration: 2, tickInterval: 1, on: loop,
      onTick: { remaining, _ in
        if remaining == 0 { box.value?.cancel() }
      }, onCompletion: { completions.append(1) })
    box.value = timer
    timer.start()
    loop.advanceTime(by: .seconds(5))
    XCTAssertEqual(completions.all, [])
    XCTAssertEqual(timer.status, .cancelled)
  }

  func testBadInput() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    XCTAssertThrowsError(
      try CountdownTimer(
        duration: .nan, tickInterval: 1, on: loop, onTick: { _, _ in }, onCompletion: {})
    ) { XCTAssertEqual($0 as? TimerLoopError, .invalidInterval) }
    XCTAssertThrowsError(
      try CountdownTimer(
        duration: 1, tickInterval: .nan, on: loop, onTick: { _, _ in }, onCompletion: {})
    ) { XCTAssertEqual($0 as? TimerLoopError, .invalidInterval) }

    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let empty = try countdown(-3, tick: 0, on: loop, ticks: ticks, completions: completions)
    XCTAssertEqual(empty.duration, 0)
    XCTAssertEqual(empty.tickInterval, 0.0001)
    empty.start()
    loop.run()
    XCTAssertEqual(ticks.all, [Tick(at: 0, remaining: 0, progress: 1)])
    XCTAssertEqual(completions.all, [0])
  }

  /// Issue 10, item 8: a positive tick below 0.1 ms is raised to 0.1 ms, as
  /// ``BlockTimer`` raises its interval, instead of ticking every nanosecond.
  func testATinyTickIsRaisedToOneTenthOfAMillisecond() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Tick>()
    let completions = EventLog<Double>()
    let countdown = try countdown(
      0.0003, tick: 1e-9, on: loop, ticks: ticks, completions: completions)
    XCTAssertEqual(countdown.tickInterval, 0.0001)
    countdown.start()
    loop.advanceTime(by: .ms(1))
    XCTAssertEqual(ticks.all.prefix(4).map(\.at), [0.1, 0.2, 0.3])
    XCTAssertEqual(completions.count, 1)
  }

  func testACountdownOnAShutDownLoopEndsCancelled() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let timer = try CountdownTimer(
      duration: 1, tickInterval: 0.1, on: loop, onTick: { _, _ in }, onCompletion: {})
    loop.shutdown()
    timer.start()
    XCTAssertEqual(timer.status, .cancelled)
  }
}
