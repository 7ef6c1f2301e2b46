import CShims
import Glibc
@_spi(TimerLoopHost) import TimerLoopCore

// Namespaced wrappers over the Linux calls of the loop, one per call, each
// going through `retryingOnInterrupt`. Names and argument order mirror C.

/// `timerfd_*`: a kernel timer readable as a file descriptor.
enum TimerFD {
  /// A non-blocking, close-on-exec timerfd on `CLOCK_MONOTONIC`.
  /// The corresponding C function is `timerfd_create`.
  static func create() throws(SystemError) -> CInt {
    try retryingOnInterrupt("timerfd_create") {
      CShims_timerfd_create(CShims_CLOCK_MONOTONIC(), CShims_TFD_CLOEXEC() | CShims_TFD_NONBLOCK())
    }
  }

  /// Arms `fd` to expire at the absolute monotonic `deadline` and then every
  /// `period` (once when `period` is `nil`), or disarms it when `deadline` is
  /// `nil`. The corresponding C function is `timerfd_settime`.
  static func setTime(_ fd: CInt, deadline: Deadline?, period: TimeAmount? = nil)
    throws(SystemError)
  {
    func timespecOf(_ ns: Int64) -> timespec {
      timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
    }
    var spec = itimerspec()
    if let deadline {
      // An all-zero it_value disarms the timer; the earliest real deadline is 1 ns.
      spec.it_value = timespecOf(Swift.max(deadline.uptimeNanoseconds, 1))
      spec.it_interval = timespecOf(period?.nanoseconds ?? 0)
    }
    _ = try retryingOnInterrupt("timerfd_settime") {
      CShims_timerfd_settime(fd, CShims_TFD_TIMER_ABSTIME(), &spec, nil)
    }
  }

  /// Consumes the expiration count so the descriptor stops being readable.
  /// `EAGAIN` (nothing expired since the last read) is not an error.
  /// The corresponding C function is `read`.
  static func drain(_ fd: CInt) throws(SystemError) {
    var expirations: UInt64 = 0
    do {
      _ = try retryingOnInterrupt("read(timerfd)") { read(fd, &expirations, 8) }
    } catch  where error.errno == EAGAIN {}
  }
}

/// The timerfds of the boot-time and wall clocks (``ClockTimerHandle``), beside
/// the loop's own monotonic one.
extension TimerFD {
  /// What a read of a clock's timerfd found.
  enum ReadOutcome {
    /// The timer expired (or nothing had: `EAGAIN`); run what is due.
    case expired
    /// `ECANCELED`: the wall clock was set while the timer was armed with
    /// `TFD_TIMER_CANCEL_ON_SET` (timerfd_create(2)).
    case clockWasSet
  }

  /// A non-blocking, close-on-exec timerfd on `clockID` (`CLOCK_BOOTTIME` or
  /// `CLOCK_REALTIME`). The corresponding C function is `timerfd_create`.
  static func create(clockID: CInt) throws(SystemError) -> CInt {
    try retryingOnInterrupt("timerfd_create") {
      CShims_timerfd_create(clockID, CShims_TFD_CLOEXEC() | CShims_TFD_NONBLOCK())
    }
  }

  /// Arms `fd` to expire once at `nanoseconds` on its clock (absolute; raised
  /// to 1 ns, since an all-zero time disarms), or disarms it for `nil`.
  /// `cancelOnSet` adds `TFD_TIMER_CANCEL_ON_SET`, so that setting the wall
  /// clock makes the descriptor readable and its read fail with `ECANCELED`.
  /// The corresponding C function is `timerfd_settime`.
  ///
  /// - Returns: whether the wall clock was set since `fd` last reported it:
  ///   then the call fails with `ECANCELED` instead of the next read, yet
  ///   arms the timer (timerfd_create(2), NOTES), so it is news, not a failure.
  static func setTime(
    _ fd: CInt, nanoseconds: Int64?, cancelOnSet: Bool
  ) throws(SystemError) -> Bool {
    var spec = itimerspec()
    if let nanoseconds {
      let clamped = Swift.max(nanoseconds, 1)
      spec.it_value = timespec(
        tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
    }
    let flags = CShims_TFD_TIMER_ABSTIME() | (cancelOnSet ? CShims_TFD_TIMER_CANCEL_ON_SET() : 0)
    do {
      _ = try retryingOnInterrupt("timerfd_settime") {
        CShims_timerfd_settime(fd, flags, &spec, nil)
      }
    } catch  where error.errno == ECANCELED {
      return true
    }
    return false
  }

  /// Consumes the expiration count. `EAGAIN` counts as ``ReadOutcome/expired``
  /// (the loop then finds nothing due, or what became due meanwhile).
  /// The corresponding C function is `read`; faults are injected as
  /// `"read(clock timerfd)"`, apart from the loop's own timerfd.
  static func consume(_ fd: CInt) throws(SystemError) -> ReadOutcome {
    var expirations: UInt64 = 0
    do {
      _ = try retryingOnInterrupt("read(clock timerfd)") { read(fd, &expirations, 8) }
    } catch  where error.errno == ECANCELED {
      return .clockWasSet
    } catch  where error.errno == EAGAIN {}
    return .expired
  }
}

/// `eventfd`: a counter other threads write to wake the loop.
enum EventFD {
  /// A non-blocking, close-on-exec eventfd at 0. The corresponding C function is `eventfd`.
  static func create() throws(SystemError) -> CInt {
    try retryingOnInterrupt("eventfd") {
      CShims_eventfd(0, CShims_EFD_CLOEXEC() | CShims_EFD_NONBLOCK())
    }
  }

  /// Adds 1. `EAGAIN` (the counter is full) means the loop is already woken.
  /// The corresponding C function is `eventfd_write`.
  static func signal(_ fd: CInt) throws(SystemError) {
    do {
      _ = try retryingOnInterrupt("eventfd_write") { CShims_eventfd_write(fd, 1) }
    } catch  where error.errno == EAGAIN {}
  }

  /// Resets the counter to 0. `EAGAIN` (it was 0) is not an error.
  /// The corresponding C function is `eventfd_read`.
  static func drain(_ fd: CInt) throws(SystemError) {
    var value: eventfd_t = 0
    do {
      _ = try retryingOnInterrupt("eventfd_read") { CShims_eventfd_read(fd, &value) }
    } catch  where error.errno == EAGAIN {}
  }
}

/// `epoll_*`: readiness of many descriptors in one wait.
enum Epoll {
  /// A close-on-exec epoll instance. The corresponding C function is `epoll_create1`.
  static func create() throws(SystemError) -> CInt {
    try retryingOnInterrupt("epoll_create1") { CShims_epoll_create1(CShims_EPOLL_CLOEXEC()) }
  }

  /// Adds, changes (`EPOLL_CTL_MOD`) or removes (`EPOLL_CTL_DEL`) the watch on
  /// `fd`: `events` is the epoll mask, `data` comes back with each event.
  /// The corresponding C function is `epoll_ctl`.
  static func control(
    _ epollFD: CInt, _ operation: CInt, _ fd: CInt, events: UInt32, data: UInt64
  ) throws(SystemError) {
    var event = epoll_event()
    event.events = events
    event.data.u64 = data
    _ = try retryingOnInterrupt("epoll_ctl") { CShims_epoll_ctl(epollFD, operation, fd, &event) }
  }

  /// Watches `fd` for readability, tagging its events with `fd` itself.
  static func addReadable(_ epollFD: CInt, _ fd: CInt) throws(SystemError) {
    try control(
      epollFD, CShims_EPOLL_CTL_ADD(), fd, events: CShims_EPOLLIN(),
      data: UInt64(UInt32(bitPattern: fd)))
  }

  /// Waits for events: `timeout` is 0 to poll or -1 to block (the loop never
  /// passes a relative timeout, so retrying on `EINTR` cannot stretch one).
  /// The corresponding C function is `epoll_wait`.
  static func wait(
    _ epollFD: CInt, _ events: UnsafeMutableBufferPointer<epoll_event>, timeout: CInt
  ) throws(SystemError) -> Int {
    Int(
      try retryingOnInterrupt("epoll_wait") {
        CShims_epoll_wait(epollFD, events.baseAddress, CInt(events.count), timeout)
      })
  }
}
