// swift-format-ignore-file
// The examples in BlockTimers' doc comments, verbatim (DocExamplesAreCompiledTests
// checks that they still match), each wrapped in what gives it its context.
import BlockTimers
import Foundation
import Synchronization

/// `BlockTimer`.
func blockTimerExample() {
  BlockTimer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
    print("tick", timer.fireDate)
  }
}

/// `CountdownTimer`.
func countdownTimerExample() throws {
  let countdown = try CountdownTimer(duration: 5, tickInterval: 1,
    onTick: { remaining, progress in print(remaining, progress) },
    onCompletion: { print("done") })
  countdown.start()
}

/// `Debouncer`, for navigation events carrying a URL.
func debouncerExample(url: URL, save: @escaping @Sendable (URL) -> Void) throws {
  let syncURL = try Debouncer<URL>(delay: 0.05) { url in save(url) }
  syncURL.call(url)   // on every navigation event
}

/// `Throttler`, for clipboard changes.
func throttlerExample(text: String, show: @escaping @Sendable (String) -> Void) throws {
  let clipboard = try Throttler<String>(interval: 0.1) { text in show(text) }
  clipboard.call(text)   // on every change
}

/// `WeakTargetTimer`.
enum WeakTargetTimerExample {
  final class Clock: Sendable {
    // The owner keeps its timer; the timer does not keep the owner.
    private let timer = Mutex<WeakTargetTimer<Clock>?>(nil)
    func start() {
      let ticking = WeakTargetTimer.scheduledTimer(
        withTimeInterval: 1, target: self, action: Clock.tick)
      timer.withLock { $0 = ticking }
    }
    func tick() { print("tick") }
  }
}

/// `BlockTimer`'s main-actor delivery.
enum MainActorBlockTimerExample {
  @MainActor final class SearchField {
    var timer: BlockTimer?
    func textDidChange() {
      timer?.invalidate()
      timer = BlockTimer.scheduledTimer(
        withTimeInterval: 0.3, repeats: false, deliveringOn: MainActor.self
      ) { [weak self] _ in self?.search() }
    }
    func search() {}
  }
}

/// `Debouncer`'s main-actor delivery.
enum MainActorDebouncerExample {
  @MainActor final class SearchField {
    lazy var search = try? Debouncer<String>(delay: 0.3, deliveringOn: MainActor.self) {
      [weak self] text in self?.run(query: text)
    }
    func textDidChange(_ text: String) { search?.call(text) }
    func run(query: String) {}
  }
}

/// `WeakTargetTimer`'s main-actor delivery.
enum MainActorWeakTargetExample {
  @MainActor final class Dashboard {
    var refresh: WeakTargetTimer<Dashboard>?
    func start() {
      refresh = WeakTargetTimer.scheduledTimer(
        withTimeInterval: 5, target: self, deliveringOn: MainActor.self
      ) { dashboard in dashboard.reload() }
    }
    func reload() {}
  }
}
