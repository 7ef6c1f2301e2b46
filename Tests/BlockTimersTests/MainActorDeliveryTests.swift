import BlockTimers
import Dispatch
import Foundation
import TimerLoop
import XCTest

/// UI-style code: a `@MainActor` controller that debounces a search field,
/// once with the NSTimer+Blocks idiom (invalidate and reschedule on every
/// keystroke) and once with a ``Debouncer``. No `@unchecked Sendable`.
@MainActor final class SearchController {
  let loop: VirtualEventLoop
  private(set) var searches: [String] = []
  private var text = ""
  private var timer: BlockTimer?
  private var debouncer: Debouncer<String>?

  init(loop: VirtualEventLoop) throws {
    self.loop = loop
    debouncer = try Debouncer(delay: 0.05, on: loop, deliveringOn: MainActor.self) {
      [weak self] text in self?.searches.append("debounced \(text)")
    }
  }

  func textDidChange(_ text: String) {
    self.text = text
    timer?.invalidate()
    timer = BlockTimer.scheduledTimer(
      withTimeInterval: 0.05, block: { [weak self] in self?.search() }, repeats: false, on: loop,
      deliveringOn: MainActor.self)
    debouncer?.call(text)
  }

  private func search() { searches.append(text) }
}

/// Runs every block already queued on the main queue.
@MainActor func drainMainQueue() async {
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    DispatchQueue.main.async { done.resume() }
  }
}

final class MainActorDeliveryTests: XCTestCase {
  @MainActor func testDebounceFromAMainActorClass() async throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let controller = try SearchController(loop: loop)
    for text in ["s", "sw", "swi"] {
      controller.textDidChange(text)
      loop.advanceTime(by: .ms(10))
    }
    loop.advanceTime(by: .ms(39))
    await drainMainQueue()
    XCTAssertEqual(controller.searches, [])
    loop.advanceTime(by: .ms(1))
    await drainMainQueue()
    XCTAssertEqual(controller.searches, ["swi", "debounced swi"])
  }

  @MainActor func testRepeatingMainActorTimerReceivesItself() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    var calls = 0
    let timer = BlockTimer.scheduledTimer(
      withTimeInterval: 0.01, repeats: true, on: loop, deliveringOn: MainActor.self
    ) { timer in
      calls += 1  // main-actor state, touched without a lock
      if calls == 3 { timer.invalidate() }
    }
    for _ in 0..<5 {
      loop.advanceTime(by: .ms(10))
      await drainMainQueue()
    }
    XCTAssertEqual(calls, 3)
    XCTAssertFalse(timer.isValid)
  }

  func testNSTimerBlocksFormDeliversOnTheQueue() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let queue = DispatchQueue(label: "delivery")
    let onQueue = Box(false)
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    BlockTimer.scheduledTimer(
      withTimeInterval: 0.01,
      block: { onQueue.value = DispatchQueue.getSpecific(key: key) == true },
      repeats: false, on: loop, deliveringOn: queue)
    loop.advanceTime(by: .ms(10))
    drain(queue)
    XCTAssertTrue(onQueue.value)
  }
}
