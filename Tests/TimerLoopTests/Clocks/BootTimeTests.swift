import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Timers on the boot-time clock (`CLOCK_BOOTTIME`): the rules of
/// ``TimerEventLoop`` on both loops, and suspend on the virtual one.
@Suite struct BootTimeTests {
  @Test(arguments: LoopKind.allCases)
  func aBootTimerFiresAtItsInstantNeverBefore(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let instant = harness.bootInstant(after: .milliseconds(20))
    let firedAt = EventLog<ContinuousClock.Instant>()
    let handle = try harness.loop.schedule(at: instant) { [loop = harness.loop] in
      firedAt.append(loop.continuousNow)
    }
    if kind == .virtual {
      try harness.advance(by: .milliseconds(19))
      #expect(firedAt.all.isEmpty)
    }
    try harness.advance(toBootInstant: instant)
    #expect(firedAt.all.count == 1)
    #expect(firedAt.all.allSatisfy { $0 >= instant }, "fired early")
    #expect(!handle.isValid, "a one-shot that fired is still valid")
  }

  @Test(arguments: LoopKind.allCases)
  func equalInstantsFireInSchedulingOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    let instant = harness.bootInstant(after: .milliseconds(10))
    for i in [3, 1, 4, 1, 5, 9, 2, 6] {
      try harness.loop.schedule(at: instant) { log.append(i) }
    }
    try harness.advance(toBootInstant: instant)
    #expect(log.all == [3, 1, 4, 1, 5, 9, 2, 6])
  }

  @Test(arguments: LoopKind.allCases)
  func differentInstantsDueTogetherFireInInstantOrder(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<Int>()
    try harness.onLoop {
      let base = harness.loop.continuousNow
      for ms in [30, 10, 20, 0, 5] {
        try harness.loop.schedule(at: base.advanced(by: .milliseconds(ms))) { log.append(ms) }
      }
    }
    try harness.advance(toBootInstant: harness.bootInstant(after: .milliseconds(40)))
    #expect(log.all == [0, 5, 10, 20, 30])
  }

  /// One pass collects every due timer first: a callback cancelling a
  /// sibling due with it stops it; a timer it adds, even already due, runs
  /// after the pass's own timers.
  @Test(arguments: LoopKind.allCases)
  func passRules(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    defer { harness.loop.shutdown() }
    let log = EventLog<String>()
    let sibling = ClockHandleBox()
    let instant = harness.bootInstant(after: .milliseconds(10))
    try harness.onLoop {
      try harness.loop.schedule(at: instant) { [loop = harness.loop] in
        log.append("first")
        sibling.value?.cancel()
        _ = try? loop.schedule(at: ContinuousClock.Instant(bootNanoseconds: 0)) {
          log.append("added")
        }
      }
      sibling.value = try harness.loop.schedule(at: instant) { log.append("sibling") }
      try harness.loop.schedule(at: instant) { log.append("third") }
    }
    try harness.advance(toBootInstant: instant)
    #expect(log.all == ["first", "third", "added"])
  }

  @Test(arguments: LoopKind.allCases)
  func aShutdownInACallbackStopsThePassAndReleasesTheRest(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    let log = EventLog<String>()
    weak var weakCanary: Canary?
    // Both scheduled while the loop is held, so a pause of this thread cannot
    // let the first fire, and shut the loop down, before the second exists.
    let handle = try harness.whileLoopIsHeld {
      let canary = Canary()
      weakCanary = canary
      let instant = harness.bootInstant(after: .milliseconds(5))
      try harness.loop.schedule(at: instant) { [loop = harness.loop] in
        log.append("first")
        loop.shutdown()
      }
      return try harness.loop.schedule(at: instant) {
        _ = canary
        log.append("second")
      }
    }
    if let virtual = harness.loop as? VirtualEventLoop {
      virtual.advanceTime(by: .milliseconds(5))
    } else {
      let loop = try #require(harness.loop as? EpollEventLoop)
      #expect(loop.testsOnly_waitUntilStopped(timeout: .now() + .seconds(30)))
    }
    #expect(log.all == ["first"])
    #expect(!handle.isValid)
    #expect(weakCanary == nil, "a shut-down loop still holds a closure")
  }

  @Test func suspendMovesBootTimeButNotMonotonicTime() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    let now = loop.now
    let bootNow = loop.continuousNow
    try loop.schedule(at: bootNow.advanced(by: .seconds(600))) { log.append("boot") }
    try loop.schedule(at: now + .seconds(600)) { log.append("monotonic") }
    loop.suspend(for: .seconds(600))
    #expect(log.all == ["boot"])
    #expect(loop.now == now)
    #expect(loop.continuousNow == bootNow.advanced(by: .seconds(600)))
    loop.suspend(for: .seconds(-5))
    loop.suspend(for: .zero)
    #expect(loop.continuousNow == bootNow.advanced(by: .seconds(600)))
    loop.advanceTime(by: .seconds(600))
    #expect(log.all == ["boot", "monotonic"])
  }

  /// A suspend over several ticks: one call for all of them, then the grid.
  @Test func aSkipTimerGetsOneCallForTicksMissedDuringASuspend() throws {
    let loop = VirtualEventLoop()
    // The closure captures the loop: only a shutdown ends that cycle.
    defer { loop.shutdown() }
    let start = loop.continuousNow
    let calls = EventLog<Duration>()
    try loop.scheduleRepeating(firstAt: start.advanced(by: .seconds(1)), every: .seconds(1)) {
      [loop] _ in calls.append(start.duration(to: loop.continuousNow))
    }
    loop.advanceTime(by: .seconds(1))
    loop.suspend(for: .milliseconds(5_500))
    #expect(calls.all == [.seconds(1), .milliseconds(6_500)])
    loop.advanceTime(by: .milliseconds(500))
    #expect(calls.all == [.seconds(1), .milliseconds(6_500), .seconds(7)])
  }

  @Test func aDelayTimerCountsFromTheCallAfterASuspend() throws {
    let loop = VirtualEventLoop()
    // The closure captures the loop: only a shutdown ends that cycle.
    defer { loop.shutdown() }
    let start = loop.continuousNow
    let calls = EventLog<Duration>()
    try loop.scheduleRepeating(
      firstAt: start.advanced(by: .seconds(1)), every: .seconds(1), missedTicks: .delay
    ) { [loop] _ in
      calls.append(start.duration(to: loop.continuousNow))
    }
    loop.advanceTime(by: .seconds(1))
    loop.suspend(for: .milliseconds(5_500))
    #expect(calls.all == [.seconds(1), .milliseconds(6_500)])
    loop.advanceTime(by: .seconds(1))
    #expect(calls.all == [.seconds(1), .milliseconds(6_500), .milliseconds(7_500)])
  }

  @Test func aBurstTimerGetsACallForEveryTickMissedDuringASuspend() throws {
    let loop = VirtualEventLoop()
    // The closure captures the loop: only a shutdown ends that cycle.
    defer { loop.shutdown() }
    let start = loop.continuousNow
    let calls = EventLog<Duration>()
    try loop.scheduleRepeating(
      firstAt: start.advanced(by: .seconds(1)), every: .seconds(1), missedTicks: .burst
    ) { [loop] _ in
      calls.append(start.duration(to: loop.continuousNow))
    }
    loop.advanceTime(by: .seconds(1))
    loop.suspend(for: .milliseconds(3_500))
    // The ticks of 2, 3 and 4 s, each in its own pass, at 4.5 s; then the grid.
    #expect(calls.all == [.seconds(1)] + Array(repeating: .milliseconds(4_500), count: 3))
    loop.advanceTime(by: .milliseconds(500))
    #expect(calls.all.last == .seconds(5))
    #expect(calls.all.count == 5)
  }

  /// A burst timer pays back at most the latest 1,000 ticks a suspend made
  /// it miss, as a monotonic one does (``MissedTickBehavior/burst``): a
  /// 10 s suspend of a 1 ms timer gives the call due first, then the
  /// latest 1,000, not 10,000 calls (a year's suspend never returned).
  @Test func aBurstTimerPaysBackAtMostTheLatestThousandTicksOfASuspend() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.continuousNow
    let calls = EventLog<Duration>()
    try loop.scheduleRepeating(
      firstAt: start.advanced(by: .milliseconds(1)), every: .milliseconds(1), missedTicks: .burst
    ) { [loop] _ in
      calls.append(start.duration(to: loop.continuousNow))
    }
    loop.advanceTime(by: .milliseconds(1))
    loop.suspend(for: .seconds(10))
    #expect(calls.all.count == 1 + 1 + 1_000)
    loop.advanceTime(by: .milliseconds(1))
    #expect(calls.all.last == .milliseconds(10_002), "back on its grid")
    #expect(calls.all.count == 1 + 1 + 1_000 + 1)
  }

  @Test func aSuspendInsideACallbackRunsWhatItMakesDueInALaterPass() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(60))) { log.append("boot") }
    try loop.schedule(after: .milliseconds(1)) {
      log.append("suspending")
      loop.suspend(for: .seconds(60))
      log.append("resumed")
    }
    loop.advanceTime(by: .milliseconds(1))
    #expect(log.all == ["suspending", "resumed", "boot"])
  }

  @Test func repeatIntervalsBelowATenthOfAMillisecondAreRaised() throws {
    let loop = VirtualEventLoop()
    let calls = Atomic<Int>(0)
    for interval in [Duration.zero, .nanoseconds(-5), .microseconds(1)] {
      try loop.scheduleRepeating(firstAt: loop.continuousNow, every: interval) { _ in
        calls.add(1, ordering: .relaxed)
      }
    }
    loop.advanceTime(by: .milliseconds(1))
    // At 0, 0.1, ..., 1.0 ms: 11 calls each.
    #expect(calls.load(ordering: .relaxed) == 33)
  }

  @Test func extremeInstantsSaturate() throws {
    let loop = VirtualEventLoop()
    let log = EventLog<String>()
    let epoch = ContinuousClock().systemEpoch
    try loop.schedule(at: epoch.advanced(by: .seconds(Int64.max))) { log.append("never") }
    try loop.schedule(at: epoch.advanced(by: .seconds(-Int64.max))) { log.append("past") }
    #expect(loop.liveTimerCount == 1, "a far instant armed a wake-up")
    loop.advanceTime(by: .seconds(1_000_000))
    loop.suspend(for: .seconds(1_000_000_000))
    #expect(log.all == ["past"])
  }

  @Test func conversionsAreExactAndRoundUp() {
    for nanoseconds: Int64 in [0, 1, 1_000_000_007, -3, .max] {
      #expect(ContinuousClock.Instant(bootNanoseconds: nanoseconds).bootNanoseconds == nanoseconds)
    }
    let epoch = ContinuousClock().systemEpoch
    #expect(epoch.advanced(by: .nanoseconds(5) + .seconds(1e-12)).bootNanoseconds == 6)
    #expect(epoch.advanced(by: .seconds(Int64.max)).bootNanoseconds == .max)
    #expect(epoch.advanced(by: .seconds(-Int64.max)).bootNanoseconds == .min)
  }

  @Test func theRealLoopReadsContinuousClock() throws {
    let loop = try EpollEventLoop()
    defer { loop.shutdown() }
    let before = ContinuousClock.now
    let reading = loop.continuousNow
    let after = ContinuousClock.now
    #expect(before <= reading && reading <= after)
  }

  @Test(arguments: LoopKind.allCases)
  func schedulingAfterShutdownThrowsAndReleasesTheClosure(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    harness.loop.shutdown()
    weak var weakCanary: Canary?
    #expect(throws: TimerLoopError.shutdown) {
      let canary = Canary()
      weakCanary = canary
      try harness.loop.schedule(at: harness.loop.continuousNow) { _ = canary }
    }
    #expect(throws: TimerLoopError.shutdown) {
      try harness.loop.scheduleRepeating(firstAt: harness.loop.continuousNow, every: .seconds(1)) {
        _ in
      }
    }
    #expect(weakCanary == nil)
  }

  @Test(arguments: LoopKind.allCases)
  func shutdownEndsPendingTimersAndReleasesTheirClosures(kind: LoopKind) throws {
    let harness = try LoopHarness(kind)
    weak var weakCanary: Canary?
    let handle = try {
      let canary = Canary()
      weakCanary = canary
      return try harness.loop.schedule(at: harness.bootInstant(after: .seconds(3600))) {
        _ = canary
      }
    }()
    #expect(handle.isValid)
    harness.loop.shutdown()
    #expect(!handle.isValid)
    #expect(weakCanary == nil)
  }

  @Test func cancelIsIdempotentAndReleasesTheClosureAtOnce() throws {
    let loop = VirtualEventLoop()
    weak var weakCanary: Canary?
    let handle = try {
      let canary = Canary()
      weakCanary = canary
      return try loop.schedule(at: loop.continuousNow.advanced(by: .seconds(1))) { _ = canary }
    }()
    #expect(handle == handle && handle.isValid)
    handle.cancel()
    #expect(weakCanary == nil)
    handle.cancel()
    #expect(!handle.isValid)
    loop.advanceTime(by: .seconds(2))
  }

  @Test func aRepeatingTimerCancelledFromItsClosureDoesNotRepeat() throws {
    let loop = VirtualEventLoop()
    let calls = Atomic<Int>(0)
    try loop.scheduleRepeating(firstAt: loop.continuousNow, every: .milliseconds(1)) { handle in
      calls.add(1, ordering: .relaxed)
      handle.cancel()
      #expect(!handle.isValid)
    }
    loop.advanceTime(by: .milliseconds(10))
    #expect(calls.load(ordering: .relaxed) == 1)
  }

  /// After `cancel()` returns on another thread, the closure never starts
  /// again, whatever the loop was doing. Run under ThreadSanitizer in CI.
  @Test func cancelFromAnotherThreadIsExact() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    for _ in 0..<50 {
      let calls = Atomic<Int>(0)
      let running = DispatchSemaphore(value: 0)
      let handle = try loop.scheduleRepeating(
        firstAt: loop.continuousNow, every: .microseconds(100)
      ) { _ in
        if calls.add(1, ordering: .relaxed).newValue == 3 { running.signal() }
      }
      #expect(running.wait(timeout: .now() + .seconds(30)) == .success)
      handle.cancel()
      let atCancel = calls.load(ordering: .relaxed)
      // Two monotonic passes later, with the timer due every 0.1 ms meanwhile.
      try onLoop(loop) {}
      try LoopHarness.wait(on: loop, for: .milliseconds(2))
      #expect(calls.load(ordering: .relaxed) <= atCancel + 1)
      let afterwards = calls.load(ordering: .relaxed)
      try LoopHarness.wait(on: loop, for: .milliseconds(2))
      #expect(calls.load(ordering: .relaxed) == afterwards)
    }
  }

  @Test func scheduleAndCancelFromManyThreads() throws {
    let loop = try EpollEventLoop.startOnNewThread()
    defer { loop.shutdown() }
    let fired = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for i in 0..<200 {
        let handle = try? loop.schedule(at: loop.continuousNow.advanced(by: .microseconds(i * 10)))
        { fired.add(1, ordering: .relaxed) }
        if i.isMultiple(of: 2) { handle?.cancel() }
      }
    }
    let done = DispatchSemaphore(value: 0)
    try loop.schedule(at: loop.continuousNow.advanced(by: .milliseconds(5))) { done.signal() }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(fired.load(ordering: .relaxed) >= 400 && fired.load(ordering: .relaxed) <= 800)
  }
}

extension LoopHarness {
  /// Waits until `amount` of `loop`'s monotonic time has passed on it.
  static func wait(on loop: EpollEventLoop, for amount: Duration) throws {
    let done = DispatchSemaphore(value: 0)
    try loop.schedule(after: amount) { done.signal() }
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
  }
}
