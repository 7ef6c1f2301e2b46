import NIOCore

/// NIO's own timers: `scheduleTask`, and `cancel` on its `Scheduled` (a
/// re-arm is both, as a handler written with them does).
final class NIOBenchTimers: BenchTimers {
  static let name = "nio"
  private let loop: NIOIsolatedEventLoop
  private let delay: TimeAmount
  private let fired: (Int) -> Void
  private var tasks: [Scheduled<Void>?]

  init(
    on loop: any EventLoop, count: Int, delay: Duration, keptTimers: Bool,
    fired: @escaping (Int) -> Void
  ) {
    self.loop = loop.assumeIsolated()
    self.delay = TimeAmount(delay)
    self.fired = fired
    tasks = Array(repeating: nil, count: count)
  }

  func rearm(_ index: Int) {
    tasks[index]?.cancel()
    tasks[index] = loop.scheduleTask(in: delay) {}
  }

  func cancel(_ index: Int) {
    tasks[index]?.cancel()
    tasks[index] = nil
  }

  func schedule(_ index: Int, at deadline: NIODeadline) throws {
    let fired = self.fired
    tasks[index] = loop.scheduleTask(deadline: deadline) { fired(index) }
  }
}
