/// Receives a report of every pass of a loop, on the loop's thread, in the
/// spirit of SwiftNIO's `NIOEventLoopMetricsDelegate` (`processedTick(info:)`).
///
/// Give one to ``EpollEventLoop/init(leeway:metricsDelegate:)``,
/// ``EpollEventLoop/startOnNewThread(name:leeway:metricsDelegate:)``,
/// ``EpollEventLoopGroup/init(count:leeway:metricsDelegate:)`` or
/// ``VirtualEventLoop/init(start:metricsDelegate:)``; it is fixed for the
/// loop's life. It is a class, which the loop reads once per call of
/// ``EpollEventLoop/run()``, ``EpollEventLoop/runOnce()`` or
/// ``VirtualEventLoop/advanceTime(to:)`` rather than per pass, so a loop
/// without one pays a single predictable branch per pass for the feature.
///
/// ```swift
/// final class SlowPassLog: EventLoopMetricsDelegate {
///   func processedPass(info: EventLoopPassInfo) {  // on the loop thread, after each pass
///     if info.busy > .milliseconds(5) { print("slow pass: \(info.timersFired) timers in \(info.busy)") }
///   }
/// }
/// let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: SlowPassLog())
/// ```
public protocol EventLoopMetricsDelegate: AnyObject, Sendable {
  /// Called after every pass (see ``TimerEventLoop``), including one that ran
  /// nothing (a wake-up that found no timer due yet), on the loop's thread,
  /// before the loop waits again: by ``EpollEventLoop/run()``,
  /// ``EpollEventLoop/runOnce()`` and ``VirtualEventLoop/advanceTime(to:)``.
  ///
  /// The loop runs nothing else meanwhile, so keep it short: its own time
  /// delays every timer due after it and counts in the next pass's
  /// ``EventLoopPassInfo/asleep``. It may call the loop (``TimerEventLoop/inEventLoop``
  /// is true); work it schedules runs in a later pass.
  func processedPass(info: EventLoopPassInfo)
}

/// What one pass of a loop did, as reported to its ``EventLoopMetricsDelegate``.
/// Times are on the loop's clock (a ``VirtualEventLoop``'s own).
public struct EventLoopPassInfo: Sendable, Hashable {
  /// When the pass began: the time at which it ran what was due.
  public var start: Deadline
  /// Timer callbacks the pass ran. A timer cancelled or moved by an earlier
  /// callback of the same pass did not run and is not counted. Counts the
  /// monotonic timers (the timing wheel's): boot-time and wall-clock timers
  /// run in passes of their own clock's queue, which are not reported (on a
  /// ``VirtualEventLoop`` each wake-up of such a queue counts as one timer).
  public var timersFired: Int
  /// Tasks the pass ran: ``TimerEventLoop/execute(_:)`` closures, and the jobs of
  /// Swift tasks and actors the loop runs as their executor.
  public var tasksRun: Int
  /// How late the earliest timer due in this pass was: ``start`` minus its
  /// deadline (zero or more); `nil` when no timer came due.
  public var lateness: Duration?
  /// From the end of the previous pass (or the loop's creation) to ``start``:
  /// on ``EpollEventLoop/run()``, mostly blocked in `epoll_wait`, plus re-arming
  /// the timerfd, the delegate's own previous call and the handlers of ready
  /// descriptors; on ``EpollEventLoop/runOnce()``, the time between calls; on a
  /// ``VirtualEventLoop``, the virtual time that passed.
  public var asleep: Duration
  /// From ``start`` to the end of the pass: running its tasks and timers.
  public var busy: Duration

  /// A report of a pass; loops make these, tests of a delegate may too.
  public init(
    start: Deadline, timersFired: Int, tasksRun: Int, lateness: Duration?, asleep: Duration,
    busy: Duration
  ) {
    self.start = start
    self.timersFired = timersFired
    self.tasksRun = tasksRun
    self.lateness = lateness
    self.asleep = asleep
    self.busy = busy
  }
}
