import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Async code driven by a ``VirtualEventLoop``: the same code gives the same
/// interleaving, at the same virtual times, on every run.
@Suite(.timeLimit(.minutes(1))) struct VirtualTimeTests {
  /// Three tasks (a tick consumer, a sleeper, a backoff on the clock) run for
  /// 150 virtual ms, the test moving time 1 ms at a time once all three sleep.
  private func runScenario() async -> [String] {
    let loop = VirtualEventLoop()
    let start = loop.now
    let log = EventLog<String>()
    func record(_ name: String) {
      log.append("\(name)\((loop.now - start).wholeNanoseconds / 1_000_000)")
    }
    let tasks = [
      Task {
        for await _ in loop.ticks(every: .milliseconds(30)) { record("A") }
      },
      Task {
        do {
          try await loop.sleep(for: .milliseconds(45))
          while true {
            record("B")
            try await loop.sleep(for: .milliseconds(20))
          }
        } catch {}
      },
      Task {
        let clock: any Clock<Duration> = loop.clock
        var backoff = Duration.milliseconds(25)
        do {
          while true {
            try await clock.sleep(for: backoff)
            record("C")
            backoff *= 3
          }
        } catch {}
      },
    ]
    for _ in 0..<150 {
      await loop.waitForSleepingTasks(atLeast: 3)
      loop.advanceTime(by: .milliseconds(1))
    }
    await loop.waitForSleepingTasks(atLeast: 3)
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
    return log.all
  }

  @Test func theSameAsyncCodeGivesTheSameOrderEveryTime() async {
    let expected = [
      "C25", "A30", "B45", "A60", "B65", "B85", "A90", "C100", "B105", "A120", "B125", "B145",
      "A150",
    ]
    for _ in 0..<10 {
      #expect(await runScenario() == expected)
    }
  }
}
