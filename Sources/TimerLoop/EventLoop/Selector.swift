import CShims
import Glibc

/// The kernel side of an ``EpollEventLoop``: one epoll instance watching one
/// `CLOCK_MONOTONIC` timerfd (armed at the earliest deadline, absolute) and one
/// eventfd (written by other threads to wake the loop).
///
/// Only the loop thread calls `arm`, `wait` and `close`. Other threads write
/// the eventfd through the scheduler, which does so only under its lock and
/// never after shutdown: that is what makes closing the eventfd safe.
///
/// `@unchecked Sendable`: the descriptors are immutable, and the mutable parts
/// (`armedDeadline`, the event buffer) are touched only by the loop thread.
final class Selector: @unchecked Sendable {
  let epollFD: CInt
  let timerFD: CInt
  let eventFD: CInt
  /// The deadline the timerfd is armed for; `nil` when disarmed.
  private(set) var armedDeadline: Deadline?
  private let events: UnsafeMutableBufferPointer<epoll_event>

  struct Readiness {
    var timerExpired = false
    var wokenUp = false
  }

  init() throws(SystemError) {
    var opened: [CInt] = []
    do {
      epollFD = try Epoll.create()
      opened.append(epollFD)
      timerFD = try TimerFD.create()
      opened.append(timerFD)
      eventFD = try EventFD.create()
      opened.append(eventFD)
      try Epoll.addReadable(epollFD, timerFD)
      try Epoll.addReadable(epollFD, eventFD)
    } catch {
      for fd in opened { Glibc.close(fd) }
      throw error
    }
    events = .allocate(capacity: 64)
    events.initialize(repeating: epoll_event())
  }

  deinit {
    events.deallocate()
  }

  /// Arms the timerfd for `deadline` (`nil` or ``Deadline/distantFuture``
  /// disarms it). Costs a system call only when the deadline changes.
  func arm(_ deadline: Deadline?) throws(SystemError) {
    let target = deadline == .distantFuture ? nil : deadline
    guard target != armedDeadline else { return }
    try TimerFD.setTime(timerFD, deadline: target)
    armedDeadline = target
  }

  /// Waits for the timerfd or the eventfd (or returns at once when `block` is
  /// false) and consumes what became readable.
  func wait(block: Bool) throws(SystemError) -> Readiness {
    let count = try Epoll.wait(epollFD, events, timeout: block ? -1 : 0)
    var readiness = Readiness()
    for event in events[..<count] {
      switch CInt(truncatingIfNeeded: event.data.u64) {
      case timerFD:
        try TimerFD.drain(timerFD)
        armedDeadline = nil  // expired: the next arm must reach the kernel
        readiness.timerExpired = true
      case eventFD:
        try EventFD.drain(eventFD)
        readiness.wokenUp = true
      default:
        break
      }
    }
    return readiness
  }

  func close() {
    for fd in [eventFD, timerFD, epollFD] { Glibc.close(fd) }
  }
}
