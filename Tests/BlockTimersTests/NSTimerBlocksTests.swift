import BlockTimers
import Foundation
import TimerLoop
import XCTest

/// The NSTimer+Blocks seed's own scenarios, ported by changing the type name.
final class NSTimerBlocksTests: XCTestCase {
  func testTheTwoLineOneShot() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let fired = EventLog<Double>()
    let start = loop.now
    DefaultLoop.withCurrent(loop) {
      // As in the category's README:
      // [NSTimer scheduledTimerWithTimeInterval:2.0 block:^{ ... } repeats:NO];
      BlockTimer.scheduledTimer(
        withTimeInterval: 2.0, block: { fired.append(loop.milliseconds(since: start)) },
        repeats: false)
    }
    loop.advanceTime(by: .ms(1999))
    XCTAssertEqual(fired.count, 0)
    loop.advanceTime(by: .seconds(10))
    XCTAssertEqual(fired.all, [2000])
  }

  func testARepeatingTimerMadeUnscheduledAndAdded() {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let ticks = EventLog<Int>()
    let timer = BlockTimer.timer(withTimeInterval: 0.5, block: { ticks.append(1) }, repeats: true)
    XCTAssertTrue(timer.isValid)
    XCTAssertEqual(timer.timeInterval, 0.5)
    timer.add(to: loop)
    // The fire date was fixed at creation, so the grid sits microseconds before 0.5 s steps.
    loop.advanceTime(by: .ms(2000))
    XCTAssertEqual(ticks.count, 4)
    timer.invalidate()
    loop.advanceTime(by: .ms(2000))
    XCTAssertEqual(ticks.count, 4)
  }
}
