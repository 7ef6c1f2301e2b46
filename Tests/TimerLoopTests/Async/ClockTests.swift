import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// ``EventLoopClock``: a `Clock` on the loop's time, the same type on real and
/// virtual loops, with exact conversions to `SuspendingClock`.
@Suite(.timeLimit(.minutes(1))) struct ClockTests {
  @Test func deadlinesConvertToSuspendingClockInstantsAndBackExactly() {
    for nanoseconds: Int64 in [0, 1, 999, 1_000_000_007, 86_400_000_000_000 + 3, .max / 2] {
      let deadline = Deadline(uptimeNanoseconds: nanoseconds)
      let instant = deadline.suspendingClockInstant
      #expect(Deadline(instant) == deadline)
      #expect(instant.advanced(by: .nanoseconds(1)) > instant)
      #expect(
        Deadline(instant.advanced(by: .nanoseconds(5)))
          == Deadline(uptimeNanoseconds: nanoseconds + 5))
    }
  }

  /// Both read `CLOCK_MONOTONIC`: SuspendingClock's now lies between two
  /// readings of ``Deadline/now()`` taken around it, to the nanosecond.
  @Test func suspendingClockNowIsTheLoopsMonotonicTime() {
    for _ in 0..<1_000 {
      let before = Deadline.now()
      let instant = SuspendingClock.now
      let after = Deadline.now()
      #expect(before <= Deadline(instant) && Deadline(instant) <= after)
      #expect(
        before.suspendingClockInstant <= instant && instant <= after.suspendingClockInstant)
    }
  }

  @Test func subNanosecondInstantsRoundUpSoAConvertedDeadlineIsNeverEarly() {
    let instant = Deadline(uptimeNanoseconds: 100).suspendingClockInstant
    #expect(Deadline(instant.advanced(by: .nanoseconds(1) / 3)) == Deadline(uptimeNanoseconds: 101))
    #expect(Deadline(instant.advanced(by: .seconds(-1))) == .distantPast)
  }

  @Test func deadlineInstantArithmeticSaturates() {
    let deadline = Deadline(uptimeNanoseconds: 5)
    #expect(deadline.advanced(by: .seconds(3)) == Deadline(uptimeNanoseconds: 3_000_000_005))
    #expect(deadline.advanced(by: .seconds(-1)) == .distantPast)
    #expect(deadline.advanced(by: .seconds(Int64.max)) == .distantFuture)
    #expect(deadline.duration(to: Deadline(uptimeNanoseconds: 2)) == .nanoseconds(-3))
    #expect(Deadline.distantPast.duration(to: .distantFuture) == .nanoseconds(Int64.max))
  }

  @Test func theClockTellsTheLoopsTime() throws {
    let virtual = VirtualEventLoop()
    #expect(virtual.clock.now == virtual.now)
    virtual.advanceTime(by: .seconds(2))
    #expect(virtual.clock.now == virtual.now)
    let real = try EpollEventLoop()
    defer { real.shutdown() }
    let before = Deadline.now()
    let now = real.clock.now
    #expect(before <= now && now <= Deadline.now())
    #expect(real.clock.minimumResolution == .nanoseconds(1))
  }

  @Test func toleranceOnlyDelaysByLessThanItself() {
    for tolerance: Int64 in [2, 3, 1_000, 1_000_000, 10_000_000, 1 << 40] {
      for nanoseconds: Int64 in [1, 1_000_000_000, 1_234_567_891, Int64.max - (1 << 41)] {
        let deadline = Deadline(uptimeNanoseconds: nanoseconds)
        let delayed = deadline.delayed(within: .nanoseconds(tolerance))
        #expect(delayed >= deadline && delayed - deadline < .nanoseconds(tolerance))
      }
    }
    let near = Deadline(uptimeNanoseconds: .max - 3)
    #expect(near.delayed(within: .seconds(1)) == near)
    #expect(near.delayed(within: .nanoseconds(1)) == near)
    #expect(near.delayed(within: .nanoseconds(-7)) == near)
  }

  @Test func sleepsWithToleranceShareAWakeUpAndNeverEndEarly() async throws {
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 30))
    let first = loop.now + .milliseconds(1)
    let second = loop.now + .milliseconds(3)
    let woke = EventLog<Deadline>()
    let sleepers = [first, second].map { deadline in
      Task {
        try await loop.clock.sleep(until: deadline, tolerance: .milliseconds(10))
        woke.append(loop.now)
      }
    }
    await loop.waitForSleepingTasks(atLeast: 2)
    // Both deadlines move to the same point of the 8.39 ms (2^23 ns) grid.
    let grid = Deadline(uptimeNanoseconds: (1 << 30) + (1 << 23))
    loop.advanceTime(to: Deadline(uptimeNanoseconds: grid.uptimeNanoseconds - 1))
    #expect(loop.sleepingTaskCount == 2)
    loop.advanceTime(to: grid)
    #expect(loop.sleepingTaskCount == 0)
    for sleeper in sleepers { try await sleeper.value }
    #expect(woke.all == [grid, grid])
  }

  @Test func theLoopsSleepForWithToleranceSharesTheClocksGridAndNeverEndsEarly() async throws {
    let loop = VirtualEventLoop(start: Deadline(uptimeNanoseconds: 1 << 30))
    let start = loop.now
    func sleeper(_ duration: Duration, _ tolerance: Duration?) -> Task<Deadline, any Error> {
      Task {
        try await loop.sleep(for: duration, tolerance: tolerance)
        return loop.now
      }
    }
    let (negative, exact) = (
      sleeper(.milliseconds(-3), .milliseconds(10)), sleeper(.milliseconds(1), nil)
    )
    let shared = [
      sleeper(.milliseconds(1), .milliseconds(10)), sleeper(.milliseconds(3), .milliseconds(10)),
    ]
    await loop.waitForSleepingTasks(atLeast: 4)
    // The negative duration sleeps from now, which is on the grid already.
    loop.run()
    #expect(try await negative.value == start)
    loop.advanceTime(by: .milliseconds(1))
    #expect(try await exact.value == start + .milliseconds(1))
    // 1 ms and 3 ms move to the same point of the 8.39 ms (2^23 ns) grid.
    let grid = Deadline(uptimeNanoseconds: (1 << 30) + (1 << 23))
    loop.advanceTime(to: Deadline(uptimeNanoseconds: grid.uptimeNanoseconds - 1))
    #expect(loop.sleepingTaskCount == 2)
    loop.advanceTime(to: grid)
    for sleeper in shared { #expect(try await sleeper.value == grid) }
  }

  @Test func sleepForOnTheClockUsesTheLoopsTimers() async throws {
    let loop = VirtualEventLoop()
    let clock: any Clock<Duration> = loop.clock
    let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
    await loop.waitForSleepingTasks(atLeast: 1)
    loop.advanceTime(by: .seconds(5))
    try await sleeper.value
    #expect(loop.sleepingTaskCount == 0)
  }

  /// Generic code written against `any Clock<Duration>`: a retry with
  /// exponential backoff, run on virtual time.
  @Test func genericRetryWithBackoffRunsOnVirtualTime() async throws {
    let loop = VirtualEventLoop()
    let start = loop.now
    let attempts = EventLog<Duration>()
    let worker = Task {
      try await retry(on: loop.clock, attempts: 4) {
        attempts.append(loop.now - start)
        if attempts.all.count < 4 { throw CancellationError() }
      }
    }
    for backoff: Int64 in [100, 200, 400] {
      await loop.waitForSleepingTasks(atLeast: 1)
      loop.advanceTime(by: .milliseconds(backoff - 1))
      #expect(loop.sleepingTaskCount == 1)
      loop.advanceTime(by: .milliseconds(1))
    }
    try await worker.value
    #expect(attempts.all == [0, 100, 300, 700].map { Duration.milliseconds($0) })
  }
}

/// Retries `body` up to `attempts` times, sleeping 100 ms, 200 ms, 400 ms, ...
/// between tries on `clock`.
func retry(
  on clock: any Clock<Duration>, attempts: Int, _ body: () async throws -> Void
) async throws {
  var backoff = Duration.milliseconds(100)
  for _ in 1..<attempts {
    do { return try await body() } catch {}
    try await clock.sleep(for: backoff)
    backoff *= 2
  }
  try await body()
}
