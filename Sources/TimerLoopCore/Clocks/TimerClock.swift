import Glibc

/// The clocks a ``ClockTimerHandle`` timer can be on, beside the loop's
/// monotonic one. Times on them are Int64 nanoseconds since the clock's
/// epoch: the machine's boot for ``boot``, 1970-01-01 00:00:00 UTC for ``wall``.
@_spi(TimerLoopHost)
public enum TimerClock: Hashable, Sendable {
  /// `CLOCK_BOOTTIME`: monotonic, and counts time the machine spent
  /// suspended (Swift's `ContinuousClock` on Linux).
  case boot
  /// `CLOCK_REALTIME`: the wall clock, which NTP or a user can set forward
  /// or back (`Date()` reads it).
  case wall

  /// The Linux id of the clock, for `clock_gettime` and `timerfd_create`.
  public var clockID: CInt {
    switch self {
    case .boot: CLOCK_BOOTTIME
    case .wall: CLOCK_REALTIME
    }
  }

  /// Whether the clock can be set, so its timers must follow clock changes.
  public var canBeSet: Bool { self == .wall }
}

/// What a loop provides so that timers on the other clocks can run on it.
/// ``EpollEventLoop`` and ``VirtualEventLoop`` conform.
@_spi(TimerLoopHost)
public protocol ClockTimerHost: TimerEventLoop {
  /// `clock`'s reading now (see ``TimerClock``); any thread.
  func nanoseconds(on clock: TimerClock) -> Int64

  /// Makes what runs `queue`'s passes when its clock reaches a deadline,
  /// not yet watched by the loop. Any thread.
  func makeClockDriver(for queue: ClockTimerQueue) throws(SystemError) -> any ClockDriver

  /// Shuts the loop down after a system call of a driver failed on its thread.
  func stop(dueTo error: SystemError)

  /// How late the loop may wake for a deadline on these clocks so that
  /// wake-ups coalesce, nanoseconds: ``EpollEventLoop/leeway``; 0 on a
  /// virtual loop, which does not wake.
  var clockTimerLeeway: Int64 { get }
}

extension ClockTimerHost {
  /// The reading of `target` at the moment `source` reads `value`, if
  /// neither clock jumps before then: `value` shifted by the two clocks'
  /// readings now, saturating. `Int64.max` ("never") stays "never".
  func nanoseconds(_ value: Int64, from source: TimerClock, to target: TimerClock) -> Int64 {
    guard source != target, value != .max else { return value }
    let (from, to) = (nanoseconds(on: source), nanoseconds(on: target))
    return to.addingSaturated(value.subtractingSaturated(from))
  }
}

/// Wakes the loop for one clock's queue: a timerfd on that clock, or a
/// monotonic timer of a virtual loop.
@_spi(TimerLoopHost)
public protocol ClockDriver: AnyObject, Sendable {
  /// Makes the queue's next pass run once the clock reads `deadline`
  /// nanoseconds (at once if that has passed, and once the loop watches the
  /// driver); `nil` disarms. Under the queue's lock, on the loop thread (or
  /// on the thread that makes the driver, see ``ClockTimerQueue``).
  /// Returns whether the clock was set since the driver last said so (a
  /// `TFD_TIMER_CANCEL_ON_SET` timerfd can tell it here instead of on a read).
  func arm(_ deadline: Int64?) throws(SystemError) -> Bool

  /// Has the loop run the queue's passes when the driver fires, from now
  /// on. Once, on the loop thread.
  func watch() throws(SystemError)
}
