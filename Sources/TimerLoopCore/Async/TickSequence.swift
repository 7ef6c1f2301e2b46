/// Ticks on a fixed-rate grid as an `AsyncSequence` of ``Deadline``s, each a
/// grid point: `start + n × interval` (n ≥ 1; `start` is ``TimerEventLoop/now``
/// when iteration begins), made by ``TimerEventLoop/ticks(every:tolerance:missedTicks:)``,
/// or `first + n × interval` (n ≥ 0), made by
/// ``TimerEventLoop/ticks(startingAt:every:tolerance:missedTicks:)``.
///
/// Pulled, not pushed: nothing is produced while the consumer is busy, so a
/// slow consumer never accumulates ticks (O(1) memory whatever the delay).
/// Each `next()` that has to wait sleeps on one timer of the loop
/// (``TimerEventLoop/sleep(until:)-(Deadline)``); between ticks no timer exists. A tick asked
/// for after its grid point is delivered at once.
///
/// Missed ticks are tokio's (`Interval::poll_tick`): when a tick is
/// delivered more than 5 ms after it was due, because the loop fired its
/// timer late or the consumer asked late, that tick is missed and the
/// sequence's ``MissedTickBehavior`` sets the next one from the time of
/// delivery; a tick delivered up to 5 ms late is on time, and the next one
/// is one interval after it. Where this differs from tokio's `Interval`,
/// and why:
/// - ``TimerEventLoop/ticks(every:tolerance:missedTicks:)``'s first tick is
///   one interval after iteration begins (tokio's
///   `interval_at(now + period, period)`; its `interval` ticks at once), as
///   Apple's `Timer` and swift-async-algorithms' `AsyncTimerSequence` do;
///   ``TimerEventLoop/ticks(startingAt:every:tolerance:missedTicks:)`` is
///   tokio's `interval_at`.
/// - Under ``MissedTickBehavior/burst``, the grid points before iteration
///   begins are not missed ticks: a first grid point already past starts the
///   iteration at the last point of its grid not after then, where tokio
///   would yield every one at once (from a start long past, a consumer that
///   never suspends).
/// - ``MissedTickBehavior/skip`` is the default (tokio's is `Burst`), as
///   Apple's `Timer` keeps to its grid.
/// - A tick due with a tolerance is due at its delayed deadline (see
///   ``TimerEventLoop/ticks(every:tolerance:missedTicks:)``), so
///   lateness the tolerance allows is not counted; tokio has no tolerance.
/// - A zero or tiny interval is raised to 0.1 ms instead of panicking.
///
/// Iteration ends (`next()` returns `nil`) when the consuming task is
/// cancelled (a pending sleep's timer is cancelled at once) or the loop is
/// shut down. It never throws. Each iterator has its own grid, which
/// ``Iterator/reset()`` moves (tokio's `Interval::reset`); iterate from one
/// task at a time.
public struct TickSequence: AsyncSequence, Sendable {
  /// The grid point of each tick.
  public typealias Element = Deadline
  /// Iteration never throws; cancellation and shutdown end it.
  public typealias Failure = Never

  let loop: any TimerEventLoop
  /// The first tick's grid point; `nil`: one interval after iteration begins.
  let first: Deadline?
  let interval: TimeAmount
  let tolerance: TimeAmount
  let missedTicks: MissedTickBehavior

  /// Rounds the interval up to whole nanoseconds, raised to the repeating
  /// timers' minimum so that it cannot spin.
  init(
    loop: any TimerEventLoop, first: Deadline?, interval: Duration, tolerance: Duration?,
    missedTicks: MissedTickBehavior
  ) {
    self.loop = loop
    self.first = first
    self.interval = Swift.max(TimeAmount(interval), TimerScheduler.minimumRepeatInterval)
    self.tolerance = tolerance.map { TimeAmount($0) } ?? .zero
    self.missedTicks = missedTicks
  }

  /// Starts an iteration: its first tick is the sequence's first grid
  /// point (under ``MissedTickBehavior/burst``, if that has passed, the
  /// last point of its grid not after the loop's current time), or, if it
  /// has none, one interval from the loop's current time.
  public func makeAsyncIterator() -> Iterator {
    guard let first else { return Iterator(sequence: self, nextTick: loop.now + interval) }
    guard missedTicks == .burst else { return Iterator(sequence: self, nextTick: first) }
    let start = first.uptimeNanoseconds.burstStart(
      now: loop.now.uptimeNanoseconds, interval: interval.nanoseconds)
    return Iterator(sequence: self, nextTick: Deadline(uptimeNanoseconds: start))
  }

  /// Produces the ticks of one iteration; see ``TickSequence``.
  public struct Iterator: AsyncIteratorProtocol, Sendable {
    /// Iteration never throws.
    public typealias Failure = Never

    let sequence: TickSequence
    var nextTick: Deadline
    var ended = false

    /// The next tick's grid point: at once if it is due, otherwise once the
    /// loop reaches it (or up to the tolerance later). `nil` once the task is
    /// cancelled or the loop shut down.
    ///
    /// As tokio's `Interval::poll_tick`, the tick after this one is set when
    /// this one is delivered: one interval on if it is delivered at most
    /// 5 ms after it was due, by the ``MissedTickBehavior``
    /// otherwise, whether the loop or the consumer made it late.
    public mutating func next() async -> Deadline? {
      guard !ended, !Task.isCancelled, !sequence.loop.scheduler.isShutdown else { return end() }
      let tick = nextTick
      let due = tick.delayed(within: sequence.tolerance)
      if due > sequence.loop.now {
        do {
          try await sequence.loop.sleep(until: due)
        } catch {
          return end()  // cancelled or shut down
        }
      }
      let now = sequence.loop.now
      guard now > due + Self.missedAfter else {
        nextTick = tick + sequence.interval
        return tick
      }
      switch sequence.missedTicks {
      case .burst:
        nextTick = Deadline(
          uptimeNanoseconds: (tick + sequence.interval).uptimeNanoseconds.burstBacklogCapped(
            now: now.uptimeNanoseconds, interval: sequence.interval.nanoseconds))
      case .delay: nextTick = now + sequence.interval
      case .skip: nextTick = Self.firstGridPoint(after: now, from: tick, every: sequence.interval)
      }
      return tick
    }

    /// Moves the grid so that the next tick is one interval from the loop's
    /// current time (``TimerEventLoop/now``), and every interval after that,
    /// as tokio's `Interval::reset` does: for a heartbeat that other traffic
    /// made unnecessary, say. O(1), one clock read. Call it from the iterating task between `next()` calls
    /// (no timer is pending then, so none is touched). Iteration that has
    /// ended stays ended.
    public mutating func reset() {
      nextTick = sequence.loop.now + sequence.interval
    }

    /// How late a tick may be delivered and still count as on time: tokio's
    /// 5 ms, so that a consumer or a loop a little slow once does not move
    /// the grid under ``MissedTickBehavior/delay`` or drop a tick under
    /// ``MissedTickBehavior/skip``.
    static let missedAfter = TimeAmount.milliseconds(5)

    private mutating func end() -> Deadline? {
      ended = true
      return nil
    }

    /// The first point of the grid `origin + n × interval` later than `now`
    /// (`origin` ≤ `now`), saturating at ``Deadline/distantFuture``.
    static func firstGridPoint(
      after now: Deadline, from origin: Deadline, every interval: TimeAmount
    )
      -> Deadline
    {
      let intervals = now.timeAmount(since: origin).nanoseconds / interval.nanoseconds + 1
      let (offset, overflow) = intervals.multipliedReportingOverflow(by: interval.nanoseconds)
      return overflow ? .distantFuture : origin + TimeAmount(nanoseconds: offset)
    }
  }
}

extension TimerEventLoop {
  /// Ticks every `interval` on a fixed-rate grid, as a ``TickSequence`` of
  /// the ticks' grid points (``Deadline``s on the loop's monotonic clock).
  /// The first tick is one `interval` after iteration begins.
  ///
  /// ```swift
  /// for await tick in loop.ticks(every: .seconds(1)) {
  ///   report(at: tick)  // a slow report drops ticks (.skip) instead of queueing them
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: time between grid points, rounded up to a whole
  ///     nanosecond and raised to at least 0.1 ms (zero or negative
  ///     included), as for repeating timers, so it cannot spin; a huge
  ///     interval saturates to ``Deadline/distantFuture`` (no tick ever comes).
  ///   - tolerance: how much later than its grid point a tick may be
  ///     delivered so that wake-ups coalesce, as for ``EventLoopClock``'s
  ///     `sleep(until:tolerance:)`: only ever later, by less than `tolerance`;
  ///     `nil` (the default) is none. The yielded value is still the grid point.
  ///   - missedTicks: what follows a missed tick, one delivered more than
  ///     5 ms after it was due (``MissedTickBehavior``);
  ///     ``MissedTickBehavior/skip`` by default.
  /// - Returns: a sequence that ends when the consuming task is cancelled or
  ///   the loop shuts down, and never throws. Complexity: one timer per
  ///   awaited tick, O(1) memory.
  public func ticks(
    every interval: Duration, tolerance: Duration? = nil,
    missedTicks: MissedTickBehavior = .skip
  ) -> TickSequence {
    TickSequence(
      loop: self, first: nil, interval: interval, tolerance: tolerance, missedTicks: missedTicks)
  }

  /// Ticks at `first` and then every `interval` after it, on a fixed-rate
  /// grid `first + n × interval` (n ≥ 0) on the loop's monotonic clock:
  /// tokio's `interval_at`. Every iteration starts at `first`.
  ///
  /// A `first` that has passed is delivered at once; if it passed more than
  /// 5 ms before, it is a missed tick, so `missedTicks` sets the next one
  /// (under ``MissedTickBehavior/skip``, the first grid point after now),
  /// as tokio's `interval_at` with a past start does. Under
  /// ``MissedTickBehavior/burst`` the points before iteration begins are not
  /// missed: the first tick is the last grid point not after then, not
  /// `first` and every point since (as for a repeating timer).
  ///
  /// - Parameters:
  ///   - first: the first tick's grid point; ``Deadline/distantFuture``
  ///     never ticks.
  ///   - interval: time between grid points, rounded up to a whole
  ///     nanosecond and raised to at least 0.1 ms, as for
  ///     ``ticks(every:tolerance:missedTicks:)``.
  ///   - tolerance: how much later than its grid point a tick may be
  ///     delivered, as for ``ticks(every:tolerance:missedTicks:)``.
  ///   - missedTicks: what follows a missed tick (``MissedTickBehavior``);
  ///     ``MissedTickBehavior/skip`` by default.
  /// - Returns: a sequence that ends when the consuming task is cancelled or
  ///   the loop shuts down, and never throws. Complexity: one timer per
  ///   awaited tick, O(1) memory.
  public func ticks(
    startingAt first: Deadline, every interval: Duration, tolerance: Duration? = nil,
    missedTicks: MissedTickBehavior = .skip
  ) -> TickSequence {
    TickSequence(
      loop: self, first: first, interval: interval, tolerance: tolerance, missedTicks: missedTicks)
  }
}
