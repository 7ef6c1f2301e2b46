// swift-format-ignore-file
// The README's recipe for moving a macOS `Timer` class to BlockTimers,
// verbatim (DocExamplesAreCompiledTests checks that it still matches;
// ReadmeRecipeTests runs it), and the class it replaces, whose lines the
// recipe quotes in comments, so that those compile too.
import BlockTimers   // was: import Foundation (keep both where the file uses Date)
import Foundation

/// The class as it is on macOS.
enum BeforeMigration {
  @MainActor final class Autosave {
    private var timer: Timer?
    private(set) var saves = 0
    func start() {
      timer = Timer.scheduledTimer(withTimeInterval: 30, repeats: true) { [weak self] _ in
        MainActor.assumeIsolated { self?.saves += 1 }
      }
      timer?.tolerance = 1
    }
    func stop() { timer?.invalidate() }
  }
}

/// The same class on BlockTimers.
enum AfterMigration {
  @MainActor final class Autosave {
    private var timer: BlockTimer?   // was: Timer?
    private(set) var saves = 0
    func start() {
      // was: timer = Timer.scheduledTimer(withTimeInterval: 30, repeats: true) { [weak self] _ in
      //        MainActor.assumeIsolated { self?.saves += 1 }
      //      }
      timer = BlockTimer.scheduledTimer(
        withTimeInterval: 30, repeats: true, deliveringOn: MainActor.self
      ) { [weak self] _ in
        self?.saves += 1
      }
      timer?.tolerance = 1
    }
    func stop() { timer?.invalidate() }
  }
}
