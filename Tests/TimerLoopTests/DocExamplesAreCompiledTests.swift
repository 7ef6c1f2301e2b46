import Foundation
import Testing

/// Every ```swift block of the README, of the DocC articles and of the doc
/// comments in Sources must be compiled by a test: it must appear, line for
/// line, in a file under `Tests/<target>/DocExamples/`, which `swift build
/// --build-tests` compiles. Lines are compared with their indentation, blank
/// lines and runs of spaces ignored, so an example may sit inside a function or type that
/// supplies its context; its `import` lines must be in the same file (and
/// the file's import lines are skipped when matching the rest). Editing
/// a block without its test, or the test without the block, fails here.
///
/// Doc comments and articles must also label every code block (`swift`,
/// `text`, `sh`, ...), so that no Swift code escapes the check unlabelled.
@Suite struct DocExamplesAreCompiledTests {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// A fenced code block: where it starts, its language and its lines.
  struct Block: CustomStringConvertible {
    var location: String
    var language: String
    var lines: [String]
    var description: String { location }
  }

  /// The fenced blocks of Markdown `lines`; `lineNumbers[i]` is where line i is.
  static func blocks(in lines: [String], lineNumbers: [Int], file: String) -> [Block] {
    var blocks: [Block] = []
    var open: Block?
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if var block = open {
        if trimmed == "```" {
          blocks.append(block)
          open = nil
        } else {
          block.lines.append(line)
          open = block
        }
      } else if trimmed.hasPrefix("```") {
        open = Block(
          location: "\(file):\(lineNumbers[index])",
          language: String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), lines: [])
      }
    }
    return blocks
  }

  static func markdownBlocks(_ path: String) throws -> [Block] {
    let lines = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      .components(separatedBy: "\n")
    return blocks(in: lines, lineNumbers: Array(1...lines.count), file: path)
  }

  /// The blocks in the `///` comments of a Swift file; each run of comment
  /// lines is its own Markdown document.
  static func docCommentBlocks(_ path: String) throws -> [Block] {
    let lines = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      .components(separatedBy: "\n")
    var result: [Block] = []
    var comment: [String] = []
    var numbers: [Int] = []
    for (index, line) in (lines + [""]).enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("///") {
        var text = trimmed.dropFirst(3)
        if text.first == " " { text = text.dropFirst() }
        comment.append(String(text))
        numbers.append(index + 1)
      } else if !comment.isEmpty {
        result += blocks(in: comment, lineNumbers: numbers, file: path)
        comment = []
        numbers = []
      }
    }
    return result
  }

  /// Paths under `directory` (relative to the package root) ending in `suffix`.
  static func files(under directory: String, endingIn suffix: String) -> [String] {
    let base = root.appendingPathComponent(directory)
    guard let walk = FileManager.default.enumerator(atPath: base.path) else { return [] }
    return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.sorted()
      .map { "\(directory)/\($0)" }
  }

  /// Lines with their indentation and blank lines dropped and runs of spaces
  /// collapsed, so that aligning comments differently is not a change.
  static func normalized(_ lines: [String]) -> [String] {
    lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
      .filter { !$0.isEmpty }
  }

  /// Every documented block: the README's, the articles' and the doc comments'.
  static func documentedBlocks() throws -> [Block] {
    var blocks = try markdownBlocks("README.md")
    for article in files(under: "Sources", endingIn: ".md") where article.contains(".docc/") {
      blocks += try markdownBlocks(article)
    }
    for source in files(under: "Sources", endingIn: ".swift") {
      blocks += try docCommentBlocks(source)
    }
    return blocks
  }

  /// The compiled example files, as normalised lines.
  static func examples() throws -> [(path: String, lines: [String])] {
    try files(under: "Tests", endingIn: ".swift").filter { $0.contains("/DocExamples/") }.map {
      path in
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      return (path, normalized(text.components(separatedBy: "\n")))
    }
  }

  static func isCompiled(_ block: Block, by examples: [(path: String, lines: [String])]) -> Bool {
    let lines = normalized(block.lines)
    let imports = lines.filter { $0.hasPrefix("import ") }
    let body = lines.filter { !$0.hasPrefix("import ") }
    return examples.contains { example in
      // The example's own imports are skipped too, so that a block may wrap
      // an import in `#if canImport(...)` while the file imports at its top.
      let exampleBody = example.lines.filter { !$0.hasPrefix("import ") }
      return imports.allSatisfy(example.lines.contains)
        && (body.isEmpty
          || exampleBody.indices.contains { start in
            exampleBody[start...].starts(with: body)
          })
    }
  }

  @Test func everySwiftBlockIsInACompiledExampleFile() throws {
    let examples = try Self.examples()
    let blocks = try Self.documentedBlocks().filter { $0.language == "swift" }
    #expect(blocks.count >= 20, "the scan found the documentation")
    let missing = blocks.filter { !Self.isCompiled($0, by: examples) }
    #expect(
      missing.isEmpty,
      "copy these blocks, verbatim, into a file under Tests/<target>/DocExamples/: \(missing)")
  }

  @Test func docCommentsAndArticlesLabelEveryCodeBlock() throws {
    var unlabelled: [Block] = []
    for article in Self.files(under: "Sources", endingIn: ".md") where article.contains(".docc/") {
      unlabelled += try Self.markdownBlocks(article).filter(\.language.isEmpty)
    }
    for source in Self.files(under: "Sources", endingIn: ".swift") {
      unlabelled += try Self.docCommentBlocks(source).filter(\.language.isEmpty)
    }
    #expect(unlabelled.isEmpty, "label these code blocks (swift, text, sh): \(unlabelled)")
  }

  /// The check itself can fail: a changed block is reported, while the same
  /// block indented differently, with blank lines, is found.
  @Test func aBlockNoExampleHoldsIsReported() throws {
    let examples = try Self.examples()
    // `VirtualEventLoop`'s doc-comment example.
    let readmeLines = [
      "let loop = VirtualEventLoop()",
      "try loop.schedule(after: .milliseconds(10)) { print(\"at 10 ms\") }",
      "loop.advanceTime(by: .milliseconds(10))   // prints, on this thread",
    ]
    var changed = readmeLines
    changed[2] = "loop.advanceTime(by: .milliseconds(11))   // prints, on this thread"
    let changedFound = Self.isCompiled(
      Block(location: "changed", language: "swift", lines: changed), by: examples)
    #expect(!changedFound)
    let reindented = ["    " + readmeLines[0], "", readmeLines[1], "  " + readmeLines[2]]
    let reindentedFound = Self.isCompiled(
      Block(location: "reindented", language: "swift", lines: reindented), by: examples)
    #expect(reindentedFound)
  }
}
