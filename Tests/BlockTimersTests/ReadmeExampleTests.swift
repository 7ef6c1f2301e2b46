import XCTest

/// Runs the countdown example of BlockTimers' Behaviour article
/// (ReadmeExample.swift, copied verbatim into the article; it began in the
/// README) on the shared background loop.
final class ReadmeExampleTests: XCTestCase {
  func testTheReadmeExampleRunsAsWritten() throws {
    let lines = EventLog<String>()
    let returned = expectation(description: "the example returned")
    DispatchQueue.global().async {
      try? countdownExample { lines.append($0) }
      returned.fulfill()
    }
    wait(for: [returned], timeout: 60)
    let ticks = lines.all.filter { $0.contains("left") }
    let expected = [
      "0.04 s left, 20% done", "0.03 s left, 40% done", "0.02 s left, 60% done",
      "0.01 s left, 80% done", "0.0 s left, 100% done",
    ]
    // On a busy machine the real loop may skip ticks, never reorder or repeat them.
    XCTAssertEqual(ticks.last, expected.last)
    XCTAssertEqual(ticks, expected.filter(ticks.contains), "\(ticks)")
    XCTAssertEqual(lines.all.last, "done")
    XCTAssertTrue(lines.all.contains("one-shot fired; valid inside its block: true"))
  }
}
