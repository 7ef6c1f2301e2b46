import Glibc
import Synchronization
@_spi(TimerLoopHost) import TimerLoopCore

/// A fixed set of ``EpollEventLoop``s, each on a thread of its own: one per
/// core by default, for a server that spreads its connections over the cores
/// (SwiftNIO's `MultiThreadedEventLoopGroup`).
///
/// ```swift
/// let group = try EpollEventLoopGroup()
/// let loop = group.next()          // round-robin, from any thread
/// try loop.schedule(after: .seconds(30)) { print("on one of the group's threads") }
/// group.shutdown()                 // every loop, waiting for each to stop
/// ```
public final class EpollEventLoopGroup: Sendable {
  /// The loops, in creation order. Each runs on its own thread until ``shutdown()``.
  public let loops: [EpollEventLoop]
  private let nextIndex = Atomic<Int>(0)

  /// Starts `count` loops (at least one), each on a new thread named
  /// `TimerLoop-<n>`, with `leeway` (see ``EpollEventLoop/init(leeway:metricsDelegate:)``).
  ///
  /// - Parameters:
  ///   - count: how many loops; by default the number of online cores
  ///     (`sysconf(_SC_NPROCESSORS_ONLN)`).
  ///   - leeway: each loop's ``EpollEventLoop/leeway`` (clamped to 0 ... 1 s).
  ///   - metricsDelegate: told of every pass of every loop, on that loop's
  ///     thread (SwiftNIO's `MultiThreadedEventLoopGroup(numberOfThreads:metricsDelegate:)`);
  ///     ``EpollEventLoop/current`` there says which loop. See ``EventLoopMetricsDelegate``.
  /// - Throws: ``SystemError`` if a loop cannot be started; the loops
  ///   already started are shut down first.
  public init(
    count: Int = EpollEventLoopGroup.coreCount, leeway: Duration = EpollEventLoop.defaultLeeway,
    metricsDelegate: (any EventLoopMetricsDelegate)? = nil
  ) throws(SystemError) {
    var loops: [EpollEventLoop] = []
    do {
      for index in 0..<max(count, 1) {
        loops.append(
          try EpollEventLoop.startOnNewThread(
            name: "TimerLoop-\(index)", leeway: leeway, metricsDelegate: metricsDelegate))
      }
    } catch {
      for loop in loops { loop.shutdown() }
      throw error
    }
    self.loops = loops
  }

  /// The number of online cores, at least 1.
  public static var coreCount: Int { max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1) }

  /// The next loop in round-robin order. Safe from any thread; O(1), one atomic add.
  public func next() -> EpollEventLoop {
    loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
  }

  /// The group's loop running on the calling thread (inside one of its
  /// closures or handlers), or `nil`.
  public var current: EpollEventLoop? {
    guard let loop = EpollEventLoop.current, loops.contains(where: { $0 === loop }) else {
      return nil
    }
    return loop
  }

  /// Shuts every loop down (see ``EpollEventLoop/shutdown()``): pending timers
  /// and tasks are released. From a thread that runs no loop, the call returns
  /// once every loop has stopped; from one of the group's loops (or any other
  /// loop) it does not wait, so loops shutting the group down at the same
  /// time cannot deadlock. Idempotent.
  public func shutdown() {
    for loop in loops { loop.shutdown() }
  }
}
