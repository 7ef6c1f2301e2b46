import CShims
import Dispatch
import Foundation
import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

extension LoopHarness {
  /// The loop's boot-time clock `amount` from now.
  func bootInstant(after amount: Duration) -> ContinuousClock.Instant {
    loop.continuousNow.advanced(by: amount)
  }

  /// Lets the boot-time clock reach `instant` and runs what is due by then,
  /// and what that adds for the next pass. On the real loop it waits (with
  /// a generous bound) for a marker timer at `instant`, scheduled last, so
  /// it runs after every timer due then, and which adds one more for the
  /// next pass.
  func advance(
    toBootInstant instant: ContinuousClock.Instant,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    if let virtual = loop as? VirtualEventLoop {
      let remaining = loop.continuousNow.duration(to: instant)
      virtual.advanceTime(by: max(remaining, .zero))
      return
    }
    let done = DispatchSemaphore(value: 0)
    try loop.schedule(at: instant) { [loop] in
      _ = try? loop.schedule(at: ContinuousClock.Instant(bootNanoseconds: 0)) { done.signal() }
    }
    let result = done.wait(timeout: .now() + .seconds(30))
    #expect(
      result == .success, "the loop did not reach its marker", sourceLocation: sourceLocation)
  }

  /// ``advance(toBootInstant:sourceLocation:)`` for the wall clock.
  func advance(toWallDate date: Date, sourceLocation: SourceLocation = #_sourceLocation) throws {
    if let virtual = loop as? VirtualEventLoop {
      // In nanoseconds: `wallClockNow` is rounded to a Double.
      let remaining = date.wallNanoseconds - virtual.nanoseconds(on: .wall)
      virtual.advanceTime(by: .nanoseconds(max(remaining, 0)))
      return
    }
    let done = DispatchSemaphore(value: 0)
    try loop.schedule(at: date) { [loop] in
      _ = try? loop.schedule(at: Date.distantPast) { done.signal() }
    }
    let result = done.wait(timeout: .now() + .seconds(30))
    #expect(
      result == .success, "the loop did not reach its marker", sourceLocation: sourceLocation)
  }
}

/// Set from inside a closure to refer to the handle its schedule call returned.
final class ClockHandleBox: Sendable {
  private let handle = Locked<ClockTimerHandle?>(nil)
  var value: ClockTimerHandle? {
    get { handle.withLock { $0 } }
    set { handle.withLock { $0 = newValue } }
  }
}

/// The descriptors an epoll instance watches, from its `/proc/self/fdinfo`
/// entry (one `tfd:` line per watched descriptor).
func watchedDescriptors(ofEpoll epollFD: CInt) throws -> [CInt] {
  let info = try String(contentsOfFile: "/proc/self/fdinfo/\(epollFD)", encoding: .utf8)
  return info.split(separator: "\n").compactMap { line in
    guard line.hasPrefix("tfd:") else { return nil }
    return CInt(line.split(separator: " ", omittingEmptySubsequences: true)[1])
  }
}

/// The descriptors `loop`'s epoll set watches besides its own two: its
/// boot-time and wall-clock timerfds, once it has opened them.
func clockTimerFDs(of loop: EpollEventLoop) throws -> [CInt] {
  try watchedDescriptors(ofEpoll: loop.selector.epollFD).filter {
    $0 != loop.selector.timerFD && $0 != loop.selector.eventFD
  }
}

/// How long until the timerfd `fd` expires (`timerfd_gettime(2)`), or `nil`
/// if it is disarmed.
func timeUntilExpiry(ofTimerFD fd: CInt) throws -> TimeAmount? {
  var setting = itimerspec()
  try #require(timerfd_gettime(fd, &setting) == 0, "timerfd_gettime: errno \(errno)")
  let remaining = TimeAmount.seconds(Int64(setting.it_value.tv_sec))
    + .nanoseconds(Int64(setting.it_value.tv_nsec))
  return remaining == .zero ? nil : remaining
}

/// Whether `remaining`, a timerfd's time left read just now, is that of a
/// timer due `delay` after a call made at or after `start`: no more than
/// `delay`, and no less than `delay` less the time since `start` (and a
/// millisecond for the skew between two clocks' readings), however long the
/// test was held up meanwhile.
func isRemaining(_ remaining: TimeAmount?, of delay: Duration, since start: Deadline) -> Bool {
  guard let remaining = remaining?.duration else { return false }
  return remaining <= delay && remaining >= delay - (Deadline.now() - start) - .milliseconds(1)
}

/// A timerfd's `/proc/self/fdinfo` fields (`clockid`, `settime flags`, ...).
func timerFDInfo(_ fd: CInt) throws -> [String: String] {
  let info = try String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
  var fields: [String: String] = [:]
  for line in info.split(separator: "\n") {
    guard let colon = line.firstIndex(of: ":") else { continue }
    fields[String(line[..<colon])] = line[line.index(after: colon)...]
      .trimmingCharacters(in: .whitespaces)
  }
  return fields
}
