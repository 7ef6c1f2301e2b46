import CClock
import CShims
import Glibc
@_spi(TimerLoopHost) import TimerLoopCore

/// The real clocks: each queue's driver is a timerfd on its clock, armed
/// with `TFD_TIMER_ABSTIME` (and `TFD_TIMER_CANCEL_ON_SET` for the wall
/// clock) and watched by the loop's epoll set like a registered descriptor,
/// so the monotonic timers' timerfd and passes are untouched.
@_spi(TimerLoopHost)
extension EpollEventLoop: ClockTimerHost {
  public func nanoseconds(on clock: TimerClock) -> Int64 {
    CClock_clock_gettime_ns(clock.clockID)
  }

  public func makeClockDriver(for queue: ClockTimerQueue) throws(SystemError) -> any ClockDriver {
    hasClockTimers.store(true, ordering: .relaxed)
    return try TimerFDClockDriver(loop: self, queue: queue)
  }

  /// The earliest boot-time or wall-clock deadline, as a monotonic deadline:
  /// the time left on its clock added to a monotonic reading taken just
  /// after it, so that the estimate is never early (late by the nanoseconds
  /// between the two readings), and exact unless the machine suspends or
  /// the wall clock is set before it, which the timerfds report through the
  /// epoll set. (Added to the reading taken after the pass, before the
  /// timerfd was armed, it was early by the time in between: a millisecond
  /// and more under ThreadSanitizer.) Loop thread only; `nil` when none is
  /// pending.
  func earliestClockTimerDeadline() -> Deadline? {
    guard hasClockTimers.load(ordering: .relaxed) else { return nil }
    var earliest: Deadline?
    for queue in clockTimers.existingQueues {
      guard let deadline = queue.earliestDeadline, deadline != .max else { continue }
      let wait = max(deadline.subtractingSaturated(nanoseconds(on: queue.clock)), 0)
      let monotonic = Deadline.now() + TimeAmount(nanoseconds: wait)
      earliest = min(earliest ?? monotonic, monotonic)
    }
    return earliest
  }

  public func stop(dueTo error: SystemError) {
    failure.withLock { failure in failure = failure ?? error }
    shutdown()
  }

  public var clockTimerLeeway: Int64 { leewayAmount.nanoseconds }
}

/// A timerfd on a queue's clock. Closes its descriptor when released.
final class TimerFDClockDriver: ClockDriver {
  let fd: CInt
  /// Armed with `TFD_TIMER_CANCEL_ON_SET` (wall clock): a clock change
  /// wakes the loop, and the read says so with `ECANCELED`.
  let cancelOnSet: Bool
  private unowned let loop: EpollEventLoop
  private weak let queue: ClockTimerQueue?

  init(loop: EpollEventLoop, queue: ClockTimerQueue) throws(SystemError) {
    fd = try TimerFD.create(clockID: queue.clock.clockID)
    cancelOnSet = queue.clock.canBeSet
    self.loop = loop
    self.queue = queue
  }

  deinit {
    Glibc.close(fd)
  }

  func arm(_ deadline: Int64?) throws(SystemError) -> Bool {
    try TimerFD.setTime(fd, nanoseconds: deadline, cancelOnSet: cancelOnSet)
  }

  /// Adds the timerfd to the loop's epoll set, level-triggered, so that an
  /// expiry or a clock change from before is seen in the next wait. The
  /// registration owns the driver, so its timerfd stays open until the loop
  /// drops its registrations at shutdown, on the loop thread.
  func watch() throws(SystemError) {
    _ = try loop.selector.register(fd, interest: .readable, mode: .level) { [self] _ in
      do throws(SystemError) {
        if try TimerFD.consume(fd) == .clockWasSet { queue?.clockWasSet() }
        queue?.runPass()
      } catch {
        loop.stop(dueTo: error)
      }
    }
  }
}
