import NIOCore

/// One timer implementation as the workloads drive it, on the NIO loop's
/// thread only. Timer `index` is one of `count` made by `init`.
protocol BenchTimers: AnyObject, SendableMetatype {
  /// The name results are printed under.
  static var name: String { get }

  /// Makes room for `count` timers on `loop`, re-armed `delay` ahead (with
  /// `keptTimers`, each made up front if the implementation keeps timers);
  /// `fired(index)` is what a one-shot calls when it fires, on the loop thread.
  init(
    on loop: any EventLoop, count: Int, delay: Duration, keptTimers: Bool,
    fired: @escaping (Int) -> Void) throws

  /// Arms timer `index` to fire the delay from now, replacing its earlier
  /// arming if it has one: the idle-timeout re-arm.
  func rearm(_ index: Int)

  /// Stops timer `index`.
  func cancel(_ index: Int)

  /// Arms timer `index` as a one-shot at `deadline`.
  func schedule(_ index: Int, at deadline: NIODeadline) throws
}
