import BlockTimers
import Dispatch

/// A 50 ms countdown ticking every 10 ms, and a one-shot timer, both on the
/// shared background loop: no run loop to spin.
func countdownExample(report: @escaping @Sendable (String) -> Void) throws {
  let finished = DispatchSemaphore(value: 0)
  let countdown = try CountdownTimer(
    duration: 0.05, tickInterval: 0.01,
    onTick: { remaining, progress in
      report("\(remaining) s left, \(Int((progress * 100).rounded()))% done")
    },
    onCompletion: {
      report("done")
      finished.signal()
    })
  countdown.start()

  BlockTimer.scheduledTimer(withTimeInterval: 0.02, repeats: false) { timer in
    report("one-shot fired; valid inside its block: \(timer.isValid)")
  }
  finished.wait()
}
