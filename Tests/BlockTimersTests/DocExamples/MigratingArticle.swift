// swift-format-ignore-file
// The examples of the migration guide (Migrating.md) that use TimerLoop
// directly, verbatim; DocExamplesAreCompiledTests checks that they still
// match. Its block-timer examples are in ArticleExamples.swift.
import TimerLoop

struct MigratingArticle {
  /// SwiftNIO: an idle timeout that a request pushes out.
  func idleTimeout() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "connections")
    let idle = try loop.schedule(after: .seconds(30)) { print("closing the idle connection") }
    idle.reschedule(after: .seconds(30))   // a request came in
    idle.cancel()                          // the connection closed first
    loop.shutdown()
  }

  /// Task.sleep: before.
  func pollUntilCancelled(_ poll: () async -> Void) async throws {
    while true {
      await poll()
      try await Task.sleep(for: .seconds(1))
    }
  }

  /// Task.sleep: after.
  func pollUntilCancelled(on loop: any TimerEventLoop, _ poll: () async -> Void) async throws {
    while true {
      await poll()
      try await loop.sleep(for: .seconds(1))
    }
  }
}
