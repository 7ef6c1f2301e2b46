import BlockTimers
import Foundation
import TimerLoop
import XCTest

final class DebouncerTests: XCTestCase {
  /// Dash syncs the browser's URL 50 ms after the last navigation event.
  func testDashsFiftyMillisecondURLSyncDebounce() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let synced = EventLog<(Double, URL)>()
    let sync = try Debouncer<URL>(delay: 0.05, on: loop) { url in
      synced.append((loop.milliseconds(since: start), url))
    }
    for page in 1...4 {
      sync.call(URL(string: "dash://page/\(page)")!)
      loop.advanceTime(by: .ms(10))
    }
    // Last call at 30 ms: quiet from then on.
    loop.advanceTime(by: .ms(39))
    XCTAssertEqual(synced.count, 0)
    XCTAssertTrue(sync.isPending)
    loop.advanceTime(by: .ms(1))
    XCTAssertEqual(synced.all.map(\.0), [80])
    XCTAssertEqual(synced.all.map(\.1), [URL(string: "dash://page/4")!])
    XCTAssertFalse(sync.isPending)
    loop.advanceTime(by: .seconds(1))
    XCTAssertEqual(synced.count, 1)
  }

  func testABurstOfAHundredEventsGivesOneCallWithTheLastValue() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let debouncer = try Debouncer<Int>(delay: 0.1, on: loop) { calls.append($0) }
    for i in 0..<100 {
      debouncer.call(i)
      loop.advanceTime(by: .ms(0.5))
    }
    loop.advanceTime(by: .ms(200))
    XCTAssertEqual(calls.all, [99])
  }

  func testFlushRunsNowAndCancelDrops() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<String>()
    let debouncer = try Debouncer<String>(delay: 1, on: loop) { calls.append($0) }
    debouncer.call("a")
    debouncer.flush()
    XCTAssertEqual(calls.all, ["a"], "flush() runs the action on the caller's thread")
    debouncer.flush()
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(calls.all, ["a"], "flushed values do not fire again")
    debouncer.call("b")
    debouncer.cancel()
    XCTAssertFalse(debouncer.isPending)
    loop.advanceTime(by: .seconds(2))
    XCTAssertEqual(calls.all, ["a"])
  }

  func testAVoidDebouncerAndBadInput() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let calls = EventLog<Int>()
    let save = try Debouncer<Void>(delay: 0, on: loop) { calls.append(1) }
    save.call()
    save.call()
    loop.run()
    XCTAssertEqual(calls.count, 1)
    XCTAssertThrowsError(try Debouncer<Int>(delay: .nan, on: loop) { _ in }) {
      XCTAssertEqual($0 as? TimerLoopError, .invalidInterval)
    }
  }
}
