import Synchronization

/// Virtual boot time: the loop's virtual monotonic time plus the time
/// ``VirtualEventLoop/suspend(for:)`` simulated. Each queue's driver is a
/// monotonic timer of the loop at the translated deadline, moved whenever
/// the translation changes.
extension VirtualEventLoop: ClockTimerHost {
  func nanoseconds(on clock: TimerClock) -> Int64 {
    switch clock {
    case .boot:
      now.uptimeNanoseconds.addingSaturated(suspendedNanoseconds.load(ordering: .acquiring))
    }
  }

  func makeClockDriver(for queue: ClockTimerQueue) throws(SystemError) -> any ClockDriver {
    VirtualClockDriver(loop: self, queue: queue)
  }

  func stop(dueTo error: SystemError) {
    shutdown()
  }

  /// Simulates the machine sleeping for `amount`: the boot-time clock
  /// (``EventLoop/continuousNow``) moves forward by `amount`, the monotonic
  /// clock (``EventLoop/now``) does not, as `CLOCK_BOOTTIME` and
  /// `CLOCK_MONOTONIC` do on Linux. Boot-time timers that this makes due run
  /// before it returns, each once (a fixed-rate timer gets one call for the
  /// ticks it missed); called from a callback, they run in a later pass of
  /// the running ``advanceTime(by:)-(TimeAmount)``. Negative or zero amounts
  /// do nothing.
  ///
  /// Call it from the thread that drives the loop, like
  /// ``advanceTime(by:)-(TimeAmount)``.
  public func suspend(for amount: TimeAmount) {
    guard amount > .zero else { return }
    suspendedNanoseconds.add(amount.nanoseconds, ordering: .acquiringAndReleasing)
    for queue in clockTimers.existingQueues { queue.driverMustRearm() }
    if VirtualEventLoop.current !== self { run() }
  }
}

/// Wakes a virtual loop for one queue with a monotonic timer of the loop.
final class VirtualClockDriver: ClockDriver {
  private unowned let loop: VirtualEventLoop
  private weak let queue: ClockTimerQueue?
  /// The monotonic timer standing for the armed deadline. Loop thread only.
  private let wakeUp = Locked<TimerHandle?>(nil)

  init(loop: VirtualEventLoop, queue: ClockTimerQueue) {
    self.loop = loop
    self.queue = queue
  }

  func arm(_ deadline: Int64?) throws(SystemError) {
    wakeUp.withLock { $0 }?.cancel()
    guard let deadline, let queue else { return }
    let offset = loop.nanoseconds(on: queue.clock).subtractingSaturated(
      loop.now.uptimeNanoseconds)
    let monotonic = Deadline(uptimeNanoseconds: max(deadline.subtractingSaturated(offset), 0))
    // Throws only after shutdown, which has ended the queue's timers.
    let handle = try? loop.schedule(at: monotonic) { [weak queue] in queue?.runPass() }
    wakeUp.withLock { $0 = handle }
  }
}
