import CShims
import Glibc
@_spi(TimerLoopHost) import TimerLoopCore

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
  /// When the timerfd expires (first, while periodic); `nil` when disarmed.
  private(set) var armedDeadline: Deadline?
  /// The timerfd's period while it ticks periodically.
  private var armedPeriod: TimeAmount?
  private let events: UnsafeMutableBufferPointer<epoll_event>
  /// Descriptors registered by users of the loop (``EpollEventLoop/register(_:for:mode:_:)``).
  var registry = DescriptorRegistry()
  /// Readiness of registered descriptors found by the last `wait`, for the loop to dispatch.
  private(set) var ready: [(id: UInt64, readiness: Readiness)] = []

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

  /// Arms the timerfd so that the loop wakes no earlier than `earliest` and
  /// no later than `earliest + leeway` (`nil` or ``Deadline/distantFuture``
  /// disarms it). `now` is the loop's current time.
  ///
  /// A new arming is for `earliest` itself, so a timer on its own fires on
  /// time, and costs a system call only when the armed wake-up falls outside
  /// the window. While timers come due within a few leeways of each other the
  /// timerfd ticks periodically, every `leeway`: any window of that length
  /// holds a tick, so the loop needs no re-arming at all, and each wake-up
  /// serves every timer due since the last one. (A wake-up costs a context
  /// switch, tens of microseconds on a VM, and `timerfd_settime` for a
  /// deadline microseconds away ~14 µs on the machines this was measured on.)
  /// When the next deadline is further away the timerfd goes back to a single
  /// expiry, so an idle loop does not tick.
  func arm(_ earliest: Deadline?, leeway: TimeAmount, now: Deadline) throws(SystemError) {
    guard let earliest, earliest != .distantFuture else {
      if armedDeadline != nil { try setTime(nil, period: nil) }
      return
    }
    let latest = earliest + leeway
    let dense =
      leeway > .zero
      && earliest.timeAmount(since: now) <= TimeAmount(nanoseconds: 4 * leeway.nanoseconds)
    if armedPeriod != nil && dense, let first = armedDeadline, first <= latest {
      // Ticking `leeway` apart from `first`, and earliest > now: a tick falls
      // in [earliest, latest]. (A first tick still beyond `latest` would not.)
      return
    }
    if armedPeriod == nil && !dense, let armed = armedDeadline, armed >= earliest, armed <= latest {
      return
    }
    // Armed for the deadline itself: a timer on its own fires on time; only
    // timers due close together wait, at most one leeway, for a shared tick.
    try setTime(earliest, period: dense ? leeway : nil)
  }

  private func setTime(_ deadline: Deadline?, period: TimeAmount?) throws(SystemError) {
    try TimerFD.setTime(timerFD, deadline: deadline, period: period)
    armedDeadline = deadline
    armedPeriod = deadline == nil ? nil : period
  }

  /// Waits for the timerfd or the eventfd (or returns at once when `block` is
  /// false) and consumes what became readable. What woke the loop does not
  /// matter to it: every pass looks at both timers and requests.
  func wait(block: Bool) throws(SystemError) {
    let count = try Epoll.wait(epollFD, events, timeout: block ? -1 : 0)
    ready.removeAll(keepingCapacity: true)
    for event in events[..<count] {
      if DescriptorRegistry.isRegistration(event.data.u64) {
        ready.append((event.data.u64, Readiness(epollEvents: event.events)))
        continue
      }
      switch CInt(truncatingIfNeeded: event.data.u64) {
      case timerFD:
        try TimerFD.drain(timerFD)
        // A single expiry is spent; a periodic grid moves on (see `arm`).
        if armedPeriod == nil { armedDeadline = nil }
      case eventFD:
        try EventFD.drain(eventFD)
      default:
        break
      }
    }
  }

  /// Watches `fd` and returns its registration id.
  func register(
    _ fd: CInt, interest: Readiness, mode: TriggerMode, handler: @escaping (Readiness) -> Void
  ) throws(SystemError) -> UInt64 {
    let id = registry.add(fd, interest: interest, mode: mode, handler: handler)
    do {
      try Epoll.control(
        epollFD, CShims_EPOLL_CTL_ADD(), fd, events: interest.epollEvents(mode), data: id)
    } catch {
      _ = registry.remove(id)
      throw error
    }
    return id
  }

  func setInterest(_ id: UInt64, _ interest: Readiness) throws(SystemError) {
    guard let registration = registry.registration(id) else { return }
    try Epoll.control(
      epollFD, CShims_EPOLL_CTL_MOD(), registration.fd,
      events: interest.epollEvents(registration.mode), data: id)
    registry.setInterest(id, interest)
  }

  /// Stops watching; returns the handler for the caller to release.
  ///
  /// - Throws: the `epoll_ctl` failure, except `EBADF` and `ENOENT` (epoll
  ///   watches the descriptor no more either way). The registration then
  ///   stays, still dispatched: dropped while epoll still watched the
  ///   descriptor, its events would wake the loop with nobody to handle them.
  func deregister(_ id: UInt64) throws(SystemError) -> ((Readiness) -> Void)? {
    guard let registration = registry.registration(id) else { return nil }
    do {
      try Epoll.control(epollFD, CShims_EPOLL_CTL_DEL(), registration.fd, events: 0, data: 0)
    } catch  where error.errno == EBADF || error.errno == ENOENT {
      // EBADF: the descriptor was closed while registered, a programmer error
      // (epoll may still report a duplicate of it). Caught in debug builds.
      assert(error.errno != EBADF, "fd \(registration.fd) was closed while still registered")
    }
    return registry.remove(id)
  }

  func close() {
    for fd in [eventFD, timerFD, epollFD] { Glibc.close(fd) }
  }
}
