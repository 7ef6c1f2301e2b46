extension TimerEventLoop {
  /// Runs `body` on the loop's thread at every point of a grid on the wall
  /// clock, `offset + k × interval` after 1970-01-01 00:00:00 UTC, until
  /// cancelled: "every 15 minutes, on the quarter hour" (`interval` 15 min),
  /// "every hour at 20 past" (`interval` 1 h, `offset` 20 min).
  ///
  /// libev's `ev_periodic` in its interval mode (`ev_periodic_set(w, offset,
  /// interval, 0)`), on the wall clock (`CLOCK_REALTIME`, see
  /// ``schedule(at:_:)-(Date,_)``), treated as a rule timer
  /// (``scheduleRepeating(firstAt:nextDate:_:)``) is when the clock is set: the
  /// first call is at the first grid point after ``wallClockNow``, each
  /// next at the grid point after the one it was due at, exact to the
  /// nanosecond (no `Date` rounding). The grid is UTC's:
  /// a local time zone's offset is whole hours (or halves or quarters), so
  /// grids of an hour or less are the same in every zone; for "every day at
  /// 03:00 local time" use ``scheduleRepeating(matching:in:matchingPolicy:repeatedTimePolicy:_:)``.
  ///
  /// Re-aligned when the wall clock is set: the timer then waits for the
  /// first grid point after the new time, so a step back does not leave it
  /// waiting for a point computed before the step, and a step forward past
  /// grid points gives one call for all of them, never a burst; a loop late
  /// by several points gives one call too. Never early: each call is at its
  /// grid point or later, and ``ClockTimerHandle/fireDate`` inside the call
  /// is that grid point.
  ///
  /// - Parameters:
  ///   - interval: the grid's spacing, rounded up to whole nanoseconds;
  ///     below 0.1 ms (zero and negative included) it is 0.1 ms, the floor
  ///     of every repeating timer.
  ///   - offset: where the grid points fall within an interval, from the
  ///     epoch; taken modulo `interval` (negative offsets count back),
  ///     rounded up to whole nanoseconds.
  ///   - body: runs on the loop thread with the timer's handle, which can
  ///     cancel or move it (after a call at the date it was moved to, the
  ///     timer goes on at the grid's next point).
  /// - Returns: a handle that cancels the timer (``ClockTimerHandle/cancel()``:
  ///   exact from any thread).
  /// - Throws: ``TimerLoopError/unsupportedClock`` or ``TimerLoopError/shutdown``
  ///   as ``schedule(at:_:)-(Date,_)``
  ///   does; `body` is released.
  /// - Complexity: O(log n) per call, for n timers on the wall clock.
  @discardableResult
  public func scheduleRepeating(
    wallClockEvery interval: Duration, offset: Duration = .zero,
    _ body: @escaping @Sendable (ClockTimerHandle) -> Void
  ) throws(TimerLoopError) -> ClockTimerHandle {
    let grid = WallClockGrid(
      interval: max(TimeAmount(interval), TimerScheduler.minimumRepeatInterval).nanoseconds,
      offset: TimeAmount(offset).nanoseconds)
    return try scheduleClockTimer(
      on: .wall, at: grid.point(after: wallClockNanoseconds), repeats: .grid(grid),
      body: .repeating(body))
  }
}

/// The points `offset + k × interval` nanoseconds after 1970 on the wall
/// clock, for ``TimerEventLoop/scheduleRepeating(wallClockEvery:offset:_:)``.
package struct WallClockGrid: Sendable {
  /// Positive: at least the floor of repeat intervals.
  let interval: Int64
  /// In `0 ..< interval`.
  let phase: Int64

  init(interval: Int64, offset: Int64) {
    self.interval = interval
    let remainder = offset % interval
    phase = remainder < 0 ? remainder + interval : remainder
  }

  /// The first grid point strictly after `nanoseconds` (on the wall
  /// clock), exact; `Int64.max` ("never") past the end of the clock's range.
  func point(after nanoseconds: Int64) -> Int64 {
    // The distance into the current period, from remainders: the difference
    // `nanoseconds - phase` itself may not fit an Int64.
    var into = nanoseconds % interval - phase
    while into < 0 { into += interval }
    // When `nanoseconds` is on a point, `into` is 0 and the next point a period on.
    let (next, overflow) = nanoseconds.addingReportingOverflow(interval - into)
    return overflow ? .max : next
  }
}
