import Foundation
import TimerLoopCore

/// `AsyncSequence` forms of the wall-clock schedules: each occurrence's date,
/// delivered to a task instead of a closure on the loop thread.
extension TimerEventLoop {
  /// The dates of ``scheduleRepeating(matching:in:matchingPolicy:repeatedTimePolicy:_:)``
  /// as an `AsyncSequence`: each element is the date an occurrence was due
  /// (``ClockTimerHandle/fireDate``), delivered once the wall clock reaches
  /// it, with everything that schedule does on the wall clock (time zones,
  /// daylight-saving transitions, steps of the clock).
  ///
  /// ```swift
  /// for await night in loop.dates(matching: DateComponents(hour: 3, minute: 0)) {
  ///   await rotateLogs(night)
  /// }
  /// ```
  ///
  /// The schedule starts when the sequence is made, on a timer of this loop
  /// that yields into an `AsyncStream` buffering the newest date: a consumer
  /// that falls behind gets the latest occurrence it missed, not each one
  /// (as tokio's `MissedTickBehavior::Skip`). The sequence ends when no date
  /// matches any more, or when the loop shuts down (also at once, for a
  /// loop already shut down, and for one that has no wall-clock timers,
  /// such as TimerLoopNIO's `NIOTimerLoop`: it is then empty); when the consuming task is cancelled (`next()`
  /// returns `nil`) or the sequence is released, its timer is cancelled.
  /// Iterate it once: it is an `AsyncStream`, with one consumer.
  ///
  /// - Parameters: as for ``scheduleRepeating(matching:in:matchingPolicy:repeatedTimePolicy:_:)``.
  /// - Complexity: one wall-clock timer, as that schedule.
  public func dates(
    matching components: DateComponents, in calendar: Calendar = .current,
    matchingPolicy: Calendar.MatchingPolicy = .nextTime,
    repeatedTimePolicy: Calendar.RepeatedTimePolicy = .first
  ) -> AsyncStream<Date> {
    dates { body throws(TimerLoopError) in
      try scheduleRepeating(
        matching: components, in: calendar, matchingPolicy: matchingPolicy,
        repeatedTimePolicy: repeatedTimePolicy, body)
    }
  }

  /// The grid points of ``scheduleRepeating(wallClockEvery:offset:_:)`` as an
  /// `AsyncSequence`: each element is the point an occurrence was due,
  /// delivered once the wall clock reaches it, re-aligned when the clock is
  /// set. Made, buffered, ended and cancelled as
  /// ``dates(matching:in:matchingPolicy:repeatedTimePolicy:)`` is.
  ///
  /// - Parameters: as for ``scheduleRepeating(wallClockEvery:offset:_:)``.
  /// - Complexity: one wall-clock timer.
  public func dates(wallClockEvery interval: Duration, offset: Duration = .zero)
    -> AsyncStream<Date>
  {
    dates { body throws(TimerLoopError) in
      try scheduleRepeating(wallClockEvery: interval, offset: offset, body)
    }
  }

  /// A stream fed by the repeating wall-clock timer `schedule` makes with
  /// the body it is given.
  private func dates(
    scheduledBy schedule: (@escaping @Sendable (ClockTimerHandle) -> Void) throws(TimerLoopError)
      -> ClockTimerHandle
  ) -> AsyncStream<Date> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Date.self, bufferingPolicy: .bufferingNewest(1))
    let end = StreamEnd(continuation)
    let body: @Sendable (ClockTimerHandle) -> Void = { handle in
      // `nil` only if cancelled from another thread during this call.
      if let date = handle.fireDate { end.continuation.yield(date) }
    }
    // After shutdown `body` is released by now, and the stream finished.
    guard let handle = try? schedule(body) else { return stream }
    continuation.onTermination = { _ in handle.cancel() }
    return stream
  }
}

/// The only thing the timer's body holds: the loop releases the body when
/// the timer ends (its rule ended, cancellation, shutdown), and that
/// release finishes the stream.
private final class StreamEnd: Sendable {
  let continuation: AsyncStream<Date>.Continuation

  init(_ continuation: AsyncStream<Date>.Continuation) {
    self.continuation = continuation
  }

  deinit {
    continuation.finish()
  }
}
