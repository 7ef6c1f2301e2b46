import BlockTimers
import TimerLoop
import XCTest

/// Runs the README's migrated `Autosave` class on virtual time: its timer,
/// made on `DefaultLoop.current`, saves every 30 s on the main actor, late by
/// less than its 1 s tolerance.
final class ReadmeRecipeTests: XCTestCase {
  @MainActor func testTheMigratedAutosaveSavesEveryThirtySecondsUntilStopped() async {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let autosave = AfterMigration.Autosave()
    DefaultLoop.withCurrent(loop) { autosave.start() }
    loop.advanceTime(by: .seconds(29))
    await drainMainQueue()
    XCTAssertEqual(autosave.saves, 0)
    loop.advanceTime(by: .seconds(2))   // 31 s
    await drainMainQueue()
    XCTAssertEqual(autosave.saves, 1)
    // One advance at a time: a tick that comes due while the previous call
    // still waits on the main queue is skipped.
    for _ in 0..<2 {   // 61 s, 91 s
      loop.advanceTime(by: .seconds(30))
      await drainMainQueue()
    }
    XCTAssertEqual(autosave.saves, 3)
    autosave.stop()
    loop.advanceTime(by: .seconds(60))
    await drainMainQueue()
    XCTAssertEqual(autosave.saves, 3)
  }
}
