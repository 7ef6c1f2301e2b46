import TimerLoop

extension Duration {
  /// `Duration`'s extremes: far beyond any deadline, so every call that takes
  /// them saturates.
  static var max: Duration { Duration(attoseconds: .max) }
  static var min: Duration { Duration(attoseconds: .min) }

  /// The duration in whole nanoseconds (rounded towards zero), for readable
  /// expectations: the loops' times are whole nanoseconds.
  var wholeNanoseconds: Int64 { Int64(clamping: attoseconds / 1_000_000_000) }
}
