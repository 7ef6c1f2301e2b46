import BlockTimers
import Dispatch
import Foundation
import Synchronization
import TimerLoop
import XCTest

/// A `@MainActor` owner of weak-target timers. Each call checks that it runs
/// on the main actor (a call off it stops the test process, as it stopped
/// the program: Swift's own check on entering a main-actor method
/// traps first) and announces itself on `called`.
@MainActor final class MainActorOwner {
  private var count = 0
  nonisolated let called: AsyncStream<Void>
  private nonisolated let announce: AsyncStream<Void>.Continuation

  init() {
    (called, announce) = AsyncStream.makeStream()
  }

  func tick() {
    MainActor.preconditionIsolated()
    count += 1  // main-actor state
    announce.yield()
  }

  func tickOnce(_ timer: BlockTimer) {
    tick()
    timer.invalidate()
  }

  var callCount: Int { count }
}

/// ``WeakTargetTimer`` with a `@MainActor` owner (issue 19, item 3): its
/// method references run on the main actor, and the
/// `deliveringOn: MainActor.self` form takes a main-actor closure. The
/// timers are timed on a real loop whose thread is not the main thread; each
/// test waits for the calls it expects.
final class WeakTargetMainActorTests: XCTestCase {
  /// Returns once `owner` has been called `calls` times; suspended meanwhile,
  /// so the main actor is free to run the calls.
  /// Returns once `loop` has run a pass that began after this call.
  private static func passEnded(on loop: EpollEventLoop) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      do { try loop.execute { done.resume() } } catch { done.resume() }
    }
  }

  @MainActor private func waitForCalls(_ calls: Int, of owner: MainActorOwner) async {
    var iterator = owner.called.makeAsyncIterator()
    for _ in 0..<calls { await iterator.next() }
  }

  @MainActor func testAMainActorMethodReferenceRunsOnTheMainActor() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "weak-target")
    defer { loop.shutdown() }
    let owner = MainActorOwner()
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.001, target: owner, repeats: false, on: loop,
      action: MainActorOwner.tick)
    await waitForCalls(1, of: owner)
    XCTAssertEqual(owner.callCount, 1)
    // The loop invalidates the one-shot when its callback, which only starts
    // the main-actor task, returns: possibly after the method ran. A task
    // queued now runs in a later pass than that callback.
    await Self.passEnded(on: loop)
    XCTAssertFalse(timer.isValid)
  }

  @MainActor func testAMainActorMethodReceivingTheTimerRunsOnTheMainActor() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "weak-target")
    defer { loop.shutdown() }
    let owner = MainActorOwner()
    let timer = WeakTargetTimer.scheduledTimer(
      fireTime: 0.001, interval: 0.001, target: owner, repeats: false, on: loop,
      action: MainActorOwner.tickOnce(_:))
    await waitForCalls(1, of: owner)
    XCTAssertEqual(owner.callCount, 1)
    XCTAssertFalse(timer.isValid)
  }

  @MainActor func testTheMainActorFormTakesAMainActorClosure() async throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "weak-target")
    defer { loop.shutdown() }
    let owner = MainActorOwner()
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.001, target: owner, repeats: false, on: loop,
      deliveringOn: MainActor.self
    ) { owner in owner.tick() }
    await waitForCalls(1, of: owner)
    XCTAssertEqual(owner.callCount, 1)
    timer.invalidate()  // may still read valid, as above
  }

  /// A method that is not isolated still runs on the loop's thread, at once.
  func testANonisolatedMethodReferenceRunsOnTheLoopThread() throws {
    final class Owner: Sendable {
      let threads = Mutex<[Bool]>([])
      func tick() { threads.withLock { $0.append(Thread.isMainThread) } }
    }
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let owner = Owner()
    let timer = WeakTargetTimer.scheduledTimer(
      withTimeInterval: 0.01, target: owner, on: loop, action: Owner.tick)
    let done = DispatchSemaphore(value: 0)
    Thread {  // a thread that is not the main thread drives the loop
      loop.advanceTime(by: .milliseconds(30))
      done.signal()
    }.start()
    XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
    XCTAssertEqual(owner.threads.withLock { $0 }, [false, false, false])
    timer.invalidate()
  }
}
