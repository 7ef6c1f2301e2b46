import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// An ordered record of callback events, safe to append to from any thread.
final class EventLog<Event: Sendable>: Sendable {
  private let events = Locked<[Event]>([])
  func append(_ event: Event) { events.withLock { $0.append(event) } }
  var all: [Event] { events.withLock { $0 } }
  var count: Int { events.withLock { $0.count } }
}

/// A value set from inside a callback and read by the test.
final class Box<Value: Sendable>: Sendable {
  private let stored: Locked<Value>
  init(_ value: Value) { stored = Locked(value) }
  var value: Value {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}

/// An object whose lifetime tests watch through a weak reference.
final class Canary: Sendable {}

extension VirtualEventLoop {
  /// Milliseconds of loop time since `start`, for readable expectations.
  func milliseconds(since start: Deadline) -> Double {
    Double((now - start).attoseconds) / 1e15
  }
}

extension Duration {
  /// `ms` milliseconds, fractional allowed (rounded up to a nanosecond).
  static func ms(_ ms: Double) -> Duration { try! TimeAmount(seconds: ms / 1000).duration }
}

/// Waits for every block already queued on `queue` to finish.
func drain(_ queue: DispatchQueue) { queue.sync {} }
