import Foundation

/// The NSTimer+Blocks category (Jiva DeVoe), whose blocks take no argument:
/// `[NSTimer scheduledTimerWithTimeInterval:block:repeats:]` and
/// `[NSTimer timerWithTimeInterval:block:repeats:]`.
///
/// Same timing and validity rules as the `Timer`-style API of ``BlockTimer``.
/// The category kept the block in the timer's `userInfo`; here ``BlockTimer/userInfo``
/// is `nil`.
extension BlockTimer {
  /// Schedules a timer on ``DefaultLoop/current`` that runs `block` `interval`
  /// seconds from now (≤ 0 becomes 0.0001), on the loop's thread, and every
  /// `interval` after that if `repeats`. A NaN interval gives an invalid timer.
  @discardableResult
  public static func scheduledTimer(
    withTimeInterval interval: TimeInterval, block: @escaping @Sendable () -> Void, repeats: Bool
  ) -> BlockTimer {
    scheduledTimer(withTimeInterval: interval, repeats: repeats) { _ in block() }
  }

  /// Creates the same timer without scheduling it; add it with
  /// ``add(to:deliveringOn:)``. Its fire date is fixed now, as with
  /// ``init(timeInterval:repeats:userInfo:block:)-(TimeInterval,_,_,_)``.
  public static func timer(
    withTimeInterval interval: TimeInterval, block: @escaping @Sendable () -> Void, repeats: Bool
  ) -> BlockTimer {
    BlockTimer(timeInterval: interval, repeats: repeats) { _ in block() }
  }
}
