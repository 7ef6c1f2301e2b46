/// How a repeating timer chooses its next deadline after it fires.
///
/// Both policies never fire early and never fire twice for one deadline. They
/// differ when a callback runs late (the loop was busy) or runs long. With an
/// interval of 10 ms, a first deadline at 0 and the loop stalled from 12 ms to 35 ms:
///
/// ```text
/// time (ms)   0         10        20        30        40        50
/// stalled                 .......................
/// .fixedRate  x         x                        x    x         x  0, 10, 35 (once for 20 and 30), 40, 50
/// .fixedDelay x         x                        x         x         x  0, 10, 35, 45, 55
/// ```
///
/// - ``fixedRate`` keeps the original grid (`first + n × interval`). After a stall
///   it fires **once** for the whole missed period and then continues on the grid:
///   missed ticks are skipped, never delivered as a burst. This is the behaviour
///   Apple documents for `Timer` ("a repeating timer reschedules itself based on
///   the scheduled firing time, not the actual firing time ... fires only once
///   ... for missed periods") and tokio's `MissedTickBehavior::Skip`.
/// - ``fixedDelay`` schedules the next deadline one interval after the callback
///   *returns*, as SwiftNIO's `scheduleRepeatedTask` does. The period stretches
///   by the callback's run time and any lateness.
public enum RepeatPolicy: Hashable, Sendable {
  /// Stay on the grid `first + n × interval`; skip missed ticks (Apple's `Timer`).
  case fixedRate
  /// Next deadline = time the callback returned + interval (SwiftNIO).
  case fixedDelay
}
