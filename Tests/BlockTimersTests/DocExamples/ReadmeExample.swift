import BlockTimers
import Dispatch
import Foundation
import TimerLoop

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

/// TimerLoop's Clocks article: a boot-time lease, wall-clock dates and a wall-clock `BlockTimer`.
func clocksExample(
  loop: any TimerEventLoop, alarm: Date, renewLease: @escaping @Sendable () -> Void,
  remind: @escaping @Sendable () -> Void, rotateLogs: @escaping @Sendable () -> Void,
  ring: @escaping @Sendable () -> Void, eightOClock: Date
) async throws {
  // A lease that must expire on time even if the machine sleeps meanwhile.
  let expiry = loop.continuousNow + .seconds(600)
  try loop.schedule(at: expiry) { renewLease() }
  try await loop.continuousClock.sleep(until: expiry)  // or loop.sleep(until: expiry)

  // At 8:00 by the wall clock (followed if it is set); in a minute, up to 1 s late.
  try await loop.sleep(until: eightOClock)
  try await loop.sleep(for: .seconds(60), tolerance: .seconds(1))

  // At a date on the wall clock, and every day at 03:00 in the calendar's time zone.
  try loop.schedule(at: Date(timeIntervalSinceNow: 3_600)) { remind() }
  try loop.scheduleRepeating(matching: DateComponents(hour: 3, minute: 0)) { _ in rotateLogs() }

  // BlockTimers: Apple's run-loop behaviour by default, dispatch_walltime's on request.
  BlockTimer(fire: alarm, interval: 0, repeats: false, clock: .wall) { _ in ring() }.add(to: loop)
}
