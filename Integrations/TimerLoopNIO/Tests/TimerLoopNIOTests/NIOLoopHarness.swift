import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing
import TimerLoop
import TimerLoopNIO

/// The NIO loops every semantic test runs on.
enum NIOLoopKind: CaseIterable, CustomTestStringConvertible, Sendable {
  /// A loop of a `MultiThreadedEventLoopGroup`: real time, its own thread.
  case posix
  /// An `EmbeddedEventLoop`: NIO's virtual time, on the test's thread.
  case embedded
  var testDescription: String { self == .posix ? "MultiThreadedEventLoopGroup" : "EmbeddedEventLoop" }
}

/// Drives either kind of NIO loop the same way. `advance(by:)` lets that
/// much loop time pass and runs everything due in it: on the embedded loop
/// with NIO's `advanceTime(by:)` only; on the real loop by waiting (with a
/// generous bound, never a sleep) for a marker timer at the end of the span,
/// which fires after every timer due before or with it, and then for one
/// more pass, so that zero-delay work those timers added has run too.
final class NIOLoopHarness: @unchecked Sendable {
  // @unchecked: the embedded loop is used from the test's thread only.
  let kind: NIOLoopKind
  let group: MultiThreadedEventLoopGroup?
  let eventLoop: any EventLoop
  let timers: NIOTimerLoop

  init(_ kind: NIOLoopKind) {
    self.kind = kind
    switch kind {
    case .posix:
      let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
      self.group = group
      eventLoop = group.next()
    case .embedded:
      group = nil
      eventLoop = EmbeddedEventLoop()
    }
    timers = eventLoop.timerLoop
  }

  /// Shuts the NIO loop down (and with it the timer loop).
  func shutdown() throws {
    if let group { try group.syncShutdownGracefully() } else { try eventLoop.syncShutdownGracefully() }
  }

  func advance(by amount: Duration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    switch eventLoop {
    case let embedded as EmbeddedEventLoop:
      embedded.advanceTime(by: TimeAmount(amount))
    default:
      let done = DispatchSemaphore(value: 0)
      let timers = self.timers
      try timers.schedule(after: amount) {
        _ = try? timers.schedule(after: .zero) { done.signal() }
      }
      #expect(
        done.wait(timeout: .now() + .seconds(30)) == .success,
        "the loop did not reach its marker", sourceLocation: sourceLocation)
    }
  }

  /// Runs `body` on the NIO loop's thread and waits for it: set-up done
  /// inside one task, so nothing it schedules fires before it returns.
  @discardableResult
  func onLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    if kind == .embedded { return try body() }
    return try eventLoop.submit(body).wait()
  }
}

/// An ordered record of callback events, safe to append to from any thread.
final class EventLog<Event: Sendable>: Sendable {
  private let events = Mutex<[Event]>([])
  func append(_ event: Event) { events.withLock { $0.append(event) } }
  var all: [Event] { events.withLock { $0 } }
}

/// An object whose lifetime tests watch through a weak reference.
final class Canary: Sendable {}

/// A weak reference that closures on the loop can read.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  weak let object: Object?
  init(_ object: Object) { self.object = object }
}
