import Foundation
import TimerLoop

/// The clock a ``BlockTimer`` made with a fire date, or a ``CountdownTimer``,
/// counts on: what setting the machine's clock, and suspending the machine,
/// do to it.
///
/// The default is ``monotonic``, Apple's behaviour for run-loop timers:
/// CoreFoundation's `CFRunLoopTimerCreate` and `CFRunLoopTimerSetNextFireDate`
/// turn the fire date into a `mach_absolute_time` deadline (`CLOCK_MONOTONIC`
/// in swift-corelibs-foundation) when they are called, so a `Timer` does not
/// follow later changes of the wall clock. It is the default so that ported
/// code keeps the behaviour it was written for. ``wall`` is what GCD offers
/// with `dispatch_walltime`: a timer "based on gettimeofday(3)" (libdispatch's
/// `dispatch_source_set_timer` documentation), for a date that must be met on
/// the wall clock, whatever is done to it.
public enum TimerClock: Sendable, Hashable {
  /// The loop's monotonic clock. A date becomes a monotonic deadline when the
  /// timer is scheduled (or its fire date set), through the loop's anchor
  /// (see ``BlockTimer``); setting the wall clock afterwards does not move the
  /// timer, and time the machine spends suspended does not count.
  case monotonic
  /// The loop's wall clock (`CLOCK_REALTIME`; a `VirtualEventLoop`'s virtual
  /// wall clock): the timer fires when the wall clock reaches its date, never
  /// before. When the wall clock is set, the timer is re-evaluated at once: a
  /// date that has now passed fires in the loop's next pass (a repeating timer
  /// once, skipping the periods jumped over), a date now further away waits.
  /// Time the machine spends suspended counts, since the wall clock moves on
  /// meanwhile. A date before 1970 counts as 1970-01-01 00:00:00 UTC. Each firing and each move schedules one wall-clock timer on the
  /// loop (O(log n) among the loop's n wall-clock timers).
  case wall
}

extension TimerClock {
  /// The loop's time on this clock. Deadlines on the wall clock are
  /// nanoseconds since 1970-01-01 00:00:00 UTC, as `CLOCK_REALTIME` counts
  /// (before 1970: ``Deadline/distantPast``).
  func now(on loop: any TimerEventLoop) -> Deadline {
    switch self {
    case .monotonic: loop.now
    case .wall: Deadline(uptimeNanoseconds: max(loop.wallClockNanoseconds, 0))
    }
  }

  /// `date` as a deadline on this clock (rounded up to a nanosecond,
  /// saturating); `nil` for a NaN date. Monotonic deadlines go through
  /// `context`'s anchor, checked against `now` (the loop's) when it is given.
  func deadline(for date: Date, in context: LoopContext, now: Deadline?) -> Deadline? {
    switch self {
    case .monotonic: context.deadline(for: date, now: now)
    case .wall:
      date.timeIntervalSinceReferenceDate.isNaN
        ? nil : Deadline(uptimeNanoseconds: max(date.wallNanoseconds, 0))
    }
  }

  /// The date of `deadline`, the inverse of ``deadline(for:in:now:)`` to the
  /// nearest `Date`; ``Deadline/distantFuture`` is `Date.distantFuture`.
  func date(for deadline: Deadline, in context: LoopContext, now: Deadline?) -> Date {
    switch self {
    case .monotonic: context.date(for: deadline, now: now)
    case .wall:
      deadline == .distantFuture
        ? .distantFuture : Date(wallNanoseconds: deadline.uptimeNanoseconds)
    }
  }

  /// The date to give the loop for the wall-clock `deadline`: the earliest
  /// `Date` that the loop, which rounds dates up to whole nanoseconds, does
  /// not fire before `deadline`. The same date for a deadline made from a
  /// date, or a date one `Double` step earlier with the same nanosecond.
  static func wallAlarmDate(for deadline: Deadline) -> Date {
    guard deadline != .distantFuture else { return .distantFuture }
    let nanoseconds = deadline.uptimeNanoseconds
    var date = Date(wallNanoseconds: nanoseconds)
    while date.wallNanoseconds < nanoseconds { date = date.nextUp }
    while date.nextDown.wallNanoseconds >= nanoseconds { date = date.nextDown }
    return date
  }
}

extension Date {
  fileprivate var nextUp: Date {
    Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate.nextUp)
  }
  fileprivate var nextDown: Date {
    Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate.nextDown)
  }
}
