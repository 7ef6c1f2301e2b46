// swift-format-ignore-file
// The examples of the BlockTimers documentation catalog's articles, verbatim
// (DocExamplesAreCompiledTests checks that they still match).
import BlockTimers
import Dispatch
import Foundation
import Synchronization

/// Getting started: a block timer with no run loop.
func gettingStartedBlockTimer() {
  let fired = DispatchSemaphore(value: 0)
  let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.1, repeats: true) { timer in
    print("tick, next at", timer.fireDate)   // on the loop's thread, every 100 ms
    fired.signal()
  }
  fired.wait()
  timer.invalidate()   // from any thread; final, and the block is released
}

/// Getting started: the other timer types.
func gettingStartedOtherTypes() throws {
  final class Poller: Sendable {
    func refresh() { print("refresh") }
  }
  let poller = Poller()
  // Holds the poller weakly and ends itself once the poller is gone.
  let polling = WeakTargetTimer.scheduledTimer(
    withTimeInterval: 30, target: poller, action: Poller.refresh)

  // Ticks every second for ten seconds, then completes once.
  let countdown = try CountdownTimer(
    duration: 10, tickInterval: 1,
    onTick: { remaining, _ in print(remaining, "s left") },
    onCompletion: { print("done") })
  countdown.start()

  // Saves once typing has paused for 300 ms, with the last text.
  let save = try Debouncer<String>(delay: 0.3) { text in print("saving", text) }
  save.call("hello")
  polling.invalidate()
  countdown.cancel()
}

/// Migrating: Foundation's `Timer`, before.
func migratingTimerBefore() {
  let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
    print("tick", timer.fireDate)
  }
  RunLoop.current.run(until: Date(timeIntervalSinceNow: 3))   // someone must spin the run loop
  timer.invalidate()
}

/// Migrating: Foundation's `Timer`, after.
func migratingTimerAfter() {
  let timer = BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
    print("tick", timer.fireDate)
  }
  // ... later, from any thread:
  timer.invalidate()
}

/// Migrating: a GCD timer, before.
func migratingGCDBefore() {
  let queue = DispatchQueue(label: "poll")
  let source = DispatchSource.makeTimerSource(queue: queue)
  source.schedule(deadline: .now() + 0.5, repeating: 0.5, leeway: .milliseconds(10))
  source.setEventHandler { print("poll") }
  source.resume()
  // ... later:
  source.cancel()
}

/// Migrating: a GCD timer, after.
func migratingGCDAfter() {
  let queue = DispatchQueue(label: "poll")
  let timer = BlockTimer.scheduledTimer(withTimeInterval: 0.5, repeats: true, deliveringOn: queue) {
    _ in print("poll")
  }
  timer.tolerance = 0.01
  // ... later:
  timer.invalidate()
}

/// Migrating: a weak-target timer helper.
enum MigratingWeakTarget {
  final class FeedViewModel: Sendable {
    private let refreshTimer = Mutex<WeakTargetTimer<FeedViewModel>?>(nil)
    func startRefreshing() {
      let timer = WeakTargetTimer.scheduledTimer(
        withTimeInterval: 30, target: self, action: FeedViewModel.refresh)
      refreshTimer.withLock { $0 = timer }
    }
    func refresh() { print("refreshing") }
    // No deinit needed: releasing the model invalidates its timer.
  }
}

/// Migrating: a countdown.
func migratingCountdown() throws {
  let countdown = try CountdownTimer(
    duration: 60, tickInterval: 1,
    onTick: { remaining, progress in print("\(remaining) s left, \(Int(progress * 100))%") },
    onCompletion: { print("time is up") })
  countdown.start()
  countdown.suspend()
  countdown.suspend()   // idempotent: no unbalanced-suspend crash
  countdown.resume()
}

/// Migrating: debouncing and throttling.
func migratingCoalescing() throws {
  let search = try Debouncer<String>(delay: 0.3) { query in print("searching for", query) }
  search.call("swi")
  search.call("swift")   // one search, for "swift", 300 ms after the last keystroke

  let clipboard = try Throttler<String>(interval: 0.1) { text in print("clipboard:", text) }
  clipboard.call("a")
  clipboard.call("ab")   // one update per 100 ms window, with the last value
}
