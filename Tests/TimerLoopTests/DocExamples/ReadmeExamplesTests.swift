// swift-format-ignore-file
import Foundation
import Testing
import TimerLoop

/// Checks the manifest lines of the README's section on adding TimerLoop to a
/// package with SwiftPM itself.
@Suite struct ReadmeExamplesTests {
  /// The `Package.swift` lines of "Adding it to a package", in a manifest that
  /// `swift package dump-package` must accept.
  @Test func theManifestLinesAreAValidManifest() throws {
    let manifestLines = """
      // Package.swift, with this repository cloned next to yours as `TimerLoop`
      // (a path dependency's identity is its directory name; a URL's, its last part).
      dependencies: [.package(path: "../TimerLoop")],
      targets: [
        .executableTarget(name: "MyServer", dependencies: [
          .product(name: "TimerLoop", package: "TimerLoop", condition: .when(platforms: [.linux])),
          .product(name: "BlockTimers", package: "TimerLoop", condition: .when(platforms: [.linux])),
        ]),
      ]
      """
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("timerloop-readme-manifest-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let manifest = """
      // swift-tools-version:6.2
      import PackageDescription

      let package = Package(
        name: "MyServer",
      \(manifestLines)
      )

      """
    try manifest.write(
      to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    let swift = Process()
    swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    swift.arguments = ["swift", "package", "--package-path", directory.path, "dump-package"]
    let output = Pipe()
    swift.standardOutput = output
    swift.standardError = output
    try swift.run()
    let json = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    swift.waitUntilExit()
    #expect(swift.terminationStatus == 0, "\(json)")
    #expect(json.contains("\"BlockTimers\""))
  }
}
