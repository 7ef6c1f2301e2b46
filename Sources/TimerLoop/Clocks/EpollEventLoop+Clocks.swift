import CShims
import Glibc

/// The real clocks: each queue's driver is a timerfd on its clock, armed
/// with `TFD_TIMER_ABSTIME` (and `TFD_TIMER_CANCEL_ON_SET` for the wall
/// clock) and watched by the loop's epoll set like a registered descriptor,
/// so the monotonic timers' timerfd and passes are untouched.
extension EpollEventLoop: ClockTimerHost {
  func nanoseconds(on clock: TimerClock) -> Int64 {
    CShims_clock_gettime_ns(clock.clockID)
  }

  func makeClockDriver(for queue: ClockTimerQueue) throws(SystemError) -> any ClockDriver {
    let driver = TimerFDClockDriver(
      fd: try TimerFD.create(clockID: queue.clock.clockID), cancelOnSet: queue.clock.canBeSet)
    // The registration owns the driver, so its timerfd stays open until the
    // loop drops its registrations at shutdown, on the loop thread.
    _ = try selector.register(driver.fd, interest: .readable, mode: .level) {
      [unowned self, driver, weak queue] _ in
      do throws(SystemError) {
        if try TimerFD.consume(driver.fd) == .clockWasSet { queue?.clockWasSet() }
        queue?.runPass()
      } catch {
        self.stop(dueTo: error)
      }
    }
    return driver
  }

  func stop(dueTo error: SystemError) {
    failure.withLock { failure in failure = failure ?? error }
    shutdown()
  }
}

/// A timerfd on a queue's clock. Closes its descriptor when released.
final class TimerFDClockDriver: ClockDriver {
  let fd: CInt
  /// Armed with `TFD_TIMER_CANCEL_ON_SET` (wall clock): a clock change
  /// wakes the loop, and the read says so with `ECANCELED`.
  let cancelOnSet: Bool

  init(fd: CInt, cancelOnSet: Bool) {
    self.fd = fd
    self.cancelOnSet = cancelOnSet
  }

  deinit {
    Glibc.close(fd)
  }

  func arm(_ deadline: Int64?) throws(SystemError) {
    try TimerFD.setTime(fd, nanoseconds: deadline, cancelOnSet: cancelOnSet)
  }
}
