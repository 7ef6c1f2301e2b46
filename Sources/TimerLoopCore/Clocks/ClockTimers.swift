internal import CClock

/// The boot-time and wall-clock timer queues of one loop, kept as a
/// ``LoopAttachment`` so that a shutdown ends their timers. Neither exists,
/// and the loop has no descriptor for it, until a timer on that clock is
/// scheduled.
@_spi(TimerLoopHost)
public final class ClockTimers: LoopAttachment {
  private weak let host: (any ClockTimerHost)?
  private let queues = Locked(Queues())

  private struct Queues {
    var byClock: [TimerClock: ClockTimerQueue] = [:]
    var isShutDown = false
  }

  init(host: any ClockTimerHost) {
    self.host = host
  }

  /// The queue of `clock`, made on first use (already shut down after shutdown).
  func queue(_ clock: TimerClock) throws(TimerLoopError) -> ClockTimerQueue {
    guard let host else { throw .shutdown }
    return queues.withLock { queues in
      if let queue = queues.byClock[clock] { return queue }
      let queue = ClockTimerQueue(clock: clock, host: host, isShutdown: queues.isShutDown)
      queues.byClock[clock] = queue
      return queue
    }
  }

  /// The queues made so far.
  public var existingQueues: [ClockTimerQueue] {
    queues.withLock { Array($0.byClock.values) }
  }

  package func loopDidShutDown() {
    let shutDown = queues.withLock { queues in
      queues.isShutDown = true
      return Array(queues.byClock.values)
    }
    for queue in shutDown { queue.shutDown() }
  }
}

extension ClockTimerHost {
  /// The loop's queues on the other clocks.
  @_spi(TimerLoopHost) public var clockTimers: ClockTimers {
    scheduler.attachment { ClockTimers(host: self) }
  }
}

extension TimerEventLoop {
  /// The loop as the host of its boot-time and wall-clock timers: every loop
  /// this module makes. A host outside it (TimerLoopNIO's) has monotonic
  /// timers only, and its clock-timer calls throw
  /// ``TimerLoopError/unsupportedClock``.
  package var clockHost: any ClockTimerHost {
    get throws(TimerLoopError) {
      guard let host = self as? any ClockTimerHost else { throw .unsupportedClock }
      return host
    }
  }

  /// `clock`'s reading now: the loop's (virtual on a ``VirtualEventLoop``),
  /// or the system's on a loop without clock timers, whose readers
  /// (``continuousNow``, ``wallClockNow``) cannot throw. Any thread.
  func reading(of clock: TimerClock) -> Int64 {
    guard let host = self as? any ClockTimerHost else {
      return CClock_clock_gettime_ns(clock.clockID)
    }
    return host.nanoseconds(on: clock)
  }

  /// ``wallClockNow`` in nanoseconds since 1970, exact (a `Date` is not):
  /// for the wall-clock grid and BlockTimers, which keeps wall-clock deadlines in these units.
  package var wallClockNanoseconds: Int64 {
    reading(of: .wall)
  }

  /// Schedules a timer on `clock` at `deadline` (nanoseconds on it).
  package func scheduleClockTimer(
    on clock: TimerClock, at deadline: Int64, repeats: ClockTimer.Repeat, body: ClockTimer.Body
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let host = try clockHost
    guard !scheduler.isShutdown else { throw .shutdown }
    let queue = try host.clockTimers.queue(clock)
    let timer = ClockTimer(repeats: repeats, body: body, deadline: deadline, queue: queue)
    try queue.schedule(timer)
    return ClockTimerHandle(timer: timer)
  }
}
