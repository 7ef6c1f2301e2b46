// swift-format-ignore-file
// The test of the BlockTimers article "Testing with virtual time", verbatim
// (DocExamplesAreCompiledTests checks that it still matches); it runs with the suite.
import BlockTimers
import Synchronization
import TimerLoop
import XCTest

/// The code under test: it names no loop.
final class AutoSave: Sendable {
  private let save: Debouncer<String>
  init(write: @escaping @Sendable (String) -> Void) throws {
    save = try Debouncer(delay: 2) { text in write(text) }
  }
  func textDidChange(_ text: String) { save.call(text) }
}

/// What the test's fake writer received, from the loop's thread.
final class Written: Sendable {
  let texts = Mutex<[String]>([])
}

final class AutoSaveTests: XCTestCase {
  func testSavesTwoSecondsAfterTheLastChange() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let written = Written()
    let autoSave = try DefaultLoop.withCurrent(loop) {
      try AutoSave { text in written.texts.withLock { $0.append(text) } }
    }
    autoSave.textDidChange("a")
    loop.advanceTime(by: .seconds(1))
    autoSave.textDidChange("ab")
    loop.advanceTime(by: .milliseconds(1_999))
    XCTAssertEqual(written.texts.withLock { $0 }, [])
    loop.advanceTime(by: .milliseconds(1))
    XCTAssertEqual(written.texts.withLock { $0 }, ["ab"])
  }
}
