import Synchronization

/// Virtual boot time is the loop's virtual monotonic time plus the time
/// ``VirtualEventLoop/suspend(for:)`` simulated; virtual wall-clock time is
/// the monotonic time plus an offset that ``VirtualEventLoop/setWallClock(to:)``
/// and `suspend(for:)` move. Each queue's driver is a monotonic timer of the
/// loop at the translated deadline, moved whenever the translation changes.
@_spi(TimerLoopHost)
extension VirtualEventLoop: ClockTimerHost {

  public func nanoseconds(on clock: TimerClock) -> Int64 {
    let offset =
      switch clock {
      case .boot: suspendedNanoseconds.load(ordering: .acquiring)
      case .wall: wallClockOffset.load(ordering: .acquiring)
      }
    return now.uptimeNanoseconds.addingSaturated(offset)
  }

  public func makeClockDriver(for queue: ClockTimerQueue) throws(SystemError) -> any ClockDriver {
    VirtualClockDriver(loop: self, queue: queue)
  }

  public func stop(dueTo error: SystemError) {
    shutdown()
  }

  public var clockTimerLeeway: Int64 { 0 }
}

extension VirtualEventLoop {
  /// Simulates the machine sleeping for `amount` (nanoseconds): the
  /// boot-time clock (``TimerEventLoop/continuousNow``) and the wall clock
  /// (``TimerEventLoop/wallClockNow``) move forward by `duration` (rounded up
  /// to a whole nanosecond); the monotonic
  /// clock (``TimerEventLoop/now``) does not, as `CLOCK_BOOTTIME`,
  /// `CLOCK_REALTIME` and `CLOCK_MONOTONIC` do on Linux. Timers on those two
  /// clocks that this makes due run before it returns, each once (a
  /// repeating timer that missed ticks goes on by its
  /// ``MissedTickBehavior``); called from a
  /// callback, they run in a later pass of the running
  /// ``advanceTime(by:)``. Wall-clock timers are re-evaluated as
  /// after ``setWallClock(to:)``. Zero or negative amounts do nothing. A
  /// clock that this would take past `Int64.max` nanoseconds stays there: it
  /// saturates, never traps.
  ///
  /// Call it from the thread that drives the loop, like
  /// ``advanceTime(by:)``.
  public func suspend(for duration: Duration) {
    let amount = TimeAmount(duration)
    guard amount > .zero else { return }
    suspendedNanoseconds.addSaturated(amount.nanoseconds)
    wallClockOffset.addSaturated(amount.nanoseconds)
    clocksDidMove()
  }

  /// ``setWallClock(to:)`` with the date in nanoseconds since 1970.
  package func setWallClock(toWallNanoseconds nanoseconds: Int64) {
    wallClockOffset.store(
      nanoseconds.subtractingSaturated(now.uptimeNanoseconds), ordering: .releasing)
    clocksDidMove()
  }

  /// Re-arms the drivers for the moved clocks, in a task of the next pass,
  /// and runs that pass unless a pass is running (a callback called).
  private func clocksDidMove() {
    try? execute { [self] in
      for queue in clockTimers.existingQueues {
        queue.clockWasSet()
        queue.rearm()
      }
    }
    if VirtualEventLoop.current !== self { run() }
  }
}

extension Atomic where Value == Int64 {
  /// Adds `amount`, saturating at the range of `Int64`: `add` traps on
  /// overflow (two suspends of `Int64.max` nanoseconds did). Only for a value
  /// that one thread writes.
  fileprivate func addSaturated(_ amount: Int64) {
    store(load(ordering: .acquiring).addingSaturated(amount), ordering: .releasing)
  }
}

/// Wakes a virtual loop for one queue with a monotonic timer of the loop.
final class VirtualClockDriver: ClockDriver {
  private unowned let loop: VirtualEventLoop
  private weak let queue: ClockTimerQueue?
  /// The monotonic timer standing for the armed deadline. Loop thread only.
  /// Its id, not a ``TimerHandle``: a handle holds the scheduler, which holds
  /// this driver through the queue, and that cycle kept a loop let go
  /// without a shutdown alive.
  private let wakeUp = Locked<TimerID?>(nil)

  init(loop: VirtualEventLoop, queue: ClockTimerQueue) {
    self.loop = loop
    self.queue = queue
  }

  func arm(_ deadline: Int64?) throws(SystemError) -> Bool {
    if let previous = wakeUp.withLock({ $0 }) { loop.scheduler.cancel(previous) }
    // The loop's clock controls run the re-evaluation themselves, and so
    // hear of every step without a wake-up armed for "never" (Int64.max).
    guard let deadline, deadline != .max, let queue else { return false }
    let offset = loop.nanoseconds(on: queue.clock).subtractingSaturated(
      loop.now.uptimeNanoseconds)
    let monotonic = Deadline(uptimeNanoseconds: max(deadline.subtractingSaturated(offset), 0))
    // Throws only after shutdown, which has ended the queue's timers.
    let handle = try? loop.schedule(at: monotonic) { [weak queue] in queue?.runPass() }
    wakeUp.withLock { $0 = handle?.id }
    return false
  }

  /// Nothing to watch: the wake-up timer runs on the loop already.
  func watch() {}
}
