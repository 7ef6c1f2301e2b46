// swift-format-ignore-file
import Foundation
import Testing
import TimerLoop

/// Runs the README examples that need no real time, and checks the manifest
/// lines of its section on adding it to a package with SwiftPM itself.
@Suite struct ReadmeExamplesTests {
  @Test func theVirtualLoopExampleRuns() throws {
    try readmeVirtualLoop()
  }

  @Test func theHandlerTimerExampleRunsOnAVirtualLoop() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    try readmeHandlerTimers(loop: loop)
    #expect(loop.liveTimerCount == 1_000)
    loop.advanceTime(by: .seconds(2))
    #expect(loop.liveTimerCount == 0)
  }

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
