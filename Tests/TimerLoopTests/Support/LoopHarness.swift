import Dispatch
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The two kinds of loop every semantic test runs on.
enum LoopKind: CaseIterable, CustomTestStringConvertible, Sendable {
  case virtual, epoll
  var testDescription: String { self == .virtual ? "VirtualEventLoop" : "EpollEventLoop" }
}

/// Drives either kind of loop the same way: `advance(by:)` lets that much loop
/// time pass and runs everything due in it. On the virtual loop that is
/// `advanceTime(by:)`; on the real loop it waits (with a generous bound, never
/// a sleep) for a marker timer due at the end of the span, which fires after
/// every timer due before or at the same deadline, and then for one more pass,
/// so that zero-delay work those timers added has run too.
final class LoopHarness: Sendable {
  let loop: any TimerEventLoop
  let kind: LoopKind

  init(_ kind: LoopKind) throws {
    self.kind = kind
    switch kind {
    case .virtual: loop = VirtualEventLoop()
    case .epoll: loop = try EpollEventLoop.startOnNewThread(name: "test-loop")
    }
  }

  deinit { loop.shutdown() }

  func advance(by amount: Duration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    switch loop {
    case let virtual as VirtualEventLoop:
      virtual.advanceTime(by: amount)
    default:
      let done = DispatchSemaphore(value: 0)
      try loop.schedule(after: amount) { [loop] in
        _ = try? loop.schedule(after: .zero) { done.signal() }
      }
      let result = done.wait(timeout: .now() + .seconds(30))
      #expect(
        result == .success, "the loop did not reach its marker", sourceLocation: sourceLocation)
    }
  }

  /// Runs `body` on this thread while the real loop's thread is held in a
  /// task, so that nothing `body` schedules can fire before it returns,
  /// however long this thread is paused, and the work still reaches the loop
  /// from another thread. A virtual loop's time stands still meanwhile anyway.
  func whileLoopIsHeld<T>(_ body: () throws -> T) throws -> T {
    guard let epoll = loop as? EpollEventLoop else { return try body() }
    let release = try holdLoopThread(epoll)
    defer { release.signal() }
    return try body()
  }

  /// Runs `body` on the loop thread and waits for it, so that a test can set
  /// up several timers inside one pass.
  func onLoop(_ body: @escaping @Sendable () throws -> Void) throws {
    try TimerLoopTests.onLoop(loop, body)
  }
}

/// An ordered record of callback events, safe to append to from the loop thread.
final class EventLog<Event: Sendable>: Sendable {
  private let events = Locked<[Event]>([])
  func append(_ event: Event) { events.withLock { $0.append(event) } }
  var all: [Event] { events.withLock { $0 } }
}

/// Set from inside a closure to refer to the handle its schedule call returned.
final class HandleBox: Sendable {
  private let handle = Locked<TimerHandle?>(nil)
  var value: TimerHandle? {
    get { handle.withLock { $0 } }
    set { handle.withLock { $0 = newValue } }
  }
}

/// An object whose lifetime tests watch through a weak reference.
final class Canary: Sendable {}

/// A weak reference that closures running on the loop can read.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  weak let object: Object?
  init(_ object: Object) { self.object = object }
}

/// Blocks the loop's thread inside a task until the returned semaphore is
/// signalled, so that work sent meanwhile arrives while the loop is busy.
func holdLoopThread(_ loop: EpollEventLoop) throws -> DispatchSemaphore {
  let release = DispatchSemaphore(value: 0)
  let blocked = DispatchSemaphore(value: 0)
  try loop.execute {
    blocked.signal()
    release.wait()
  }
  #expect(blocked.wait(timeout: .now() + .seconds(30)) == .success)
  return release
}

/// Runs `body` on `loop`'s thread (a virtual loop is run on this one), waits
/// for it with a generous bound, and returns its result or rethrows its error.
@discardableResult
func onLoop<T: Sendable>(_ loop: any TimerEventLoop, _ body: @escaping @Sendable () throws -> T) throws
  -> T
{
  let done = DispatchSemaphore(value: 0)
  let outcome = Locked<Result<T, any Error>?>(nil)
  try loop.execute {
    outcome.withLock { $0 = Result { try body() } }
    done.signal()
  }
  if let virtual = loop as? VirtualEventLoop { virtual.run() }
  #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
  return try #require(outcome.withLock { $0 }).get()
}

/// Runs `body` on a thread other than the caller's (and so, while the
/// caller runs on a loop's thread, other than the loop's) and waits for it
/// to return.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) throws {
  let done = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    body()
    done.signal()
  }
  try #require(done.wait(timeout: .now() + .seconds(30)) == .success)
}
