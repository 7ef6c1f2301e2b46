import Testing
import TimerLoop

@Suite struct TimeAmountTests {
  @Test func durationConversionRoundsFractionsOfANanosecondUp() {
    #expect(TimeAmount(.nanoseconds(5)) == .nanoseconds(5))
    #expect(TimeAmount(Duration(secondsComponent: 0, attosecondsComponent: 1)) == .nanoseconds(1))
    #expect(
      TimeAmount(Duration(secondsComponent: 2, attosecondsComponent: 1_000_000_001))
        == .nanoseconds(2_000_000_002))
    // Negative durations round towards +∞ too: -1.5 ns becomes -1 ns.
    #expect(
      TimeAmount(
        .nanoseconds(-1) - Duration(secondsComponent: 0, attosecondsComponent: 500_000_000))
        == .nanoseconds(-1))
  }

  /// Durations whose attoseconds fit an `Int64` (under about 9.2 s) take the
  /// conversion's short path, longer ones the 128-bit path: both round up,
  /// and agree at the border.
  @Test func durationConversionRoundsUpOnBothSidesOfItsShortPath() {
    let border = Int128(Int64.max)  // 9.223372036854775807 s
    // 9,223,372,036.854775807 ns, and the next attosecond, round up alike.
    #expect(TimeAmount(Duration(attoseconds: border)) == .nanoseconds(9_223_372_037))
    #expect(TimeAmount(Duration(attoseconds: border + 1)) == .nanoseconds(9_223_372_037))
    #expect(TimeAmount(Duration(attoseconds: 9_223_372_037_000_000_000)) == .nanoseconds(9_223_372_037))
    #expect(TimeAmount(Duration(attoseconds: 9_223_372_037_000_000_001)) == .nanoseconds(9_223_372_038))
    // -9,223,372,036.854775808 ns rounds up (towards +∞) to -9,223,372,036.
    #expect(TimeAmount(Duration(attoseconds: -border - 1)) == .nanoseconds(-9_223_372_036))
    #expect(TimeAmount(Duration(attoseconds: -border - 2)) == .nanoseconds(-9_223_372_036))
    #expect(TimeAmount(Duration(attoseconds: 1_000_000_000_000_000_000)) == .seconds(1))
    #expect(TimeAmount(Duration(attoseconds: -1)) == .zero)
    #expect(TimeAmount(.seconds(30) + .nanoseconds(1) / 2) == .nanoseconds(30_000_000_001))
    #expect(TimeAmount(.seconds(-30) - .nanoseconds(1) / 2) == .seconds(-30))
    // The long path's ends: exact at both limits, saturating just beyond.
    let attosecond = Duration(attoseconds: 1)
    #expect(TimeAmount(.nanoseconds(Int64.max)) == .max)
    #expect(TimeAmount(.nanoseconds(Int64.max) - attosecond) == .max)
    #expect(TimeAmount(.nanoseconds(Int64.max - 1) + attosecond) == .max)
    #expect(TimeAmount(.nanoseconds(-Int64.max)) == .nanoseconds(-Int64.max))
    #expect(TimeAmount(.nanoseconds(Int64.min)) == .min)
    #expect(TimeAmount(.nanoseconds(Int64.min) - attosecond) == .min)
    #expect(TimeAmount(.nanoseconds(Int64.min) - .nanoseconds(1)) == .min)
    #expect(TimeAmount(.nanoseconds(Int64.min) + attosecond) == .nanoseconds(Int64.min + 1))
  }

  /// Both paths against `Int128` arithmetic, for attoseconds of every
  /// magnitude up to past the saturation limits (seeded, so repeatable).
  @Test func durationConversionMatchesExactArithmetic() {
    var rng = TimerWheelTests.SplitMix64(state: 20)
    for _ in 0..<20_000 {
      let bits = Int.random(in: 0...96, using: &rng)
      let random = Int128(UInt64.random(in: 0...UInt64.max, using: &rng))
      let magnitude = (random << max(bits - 64, 0)) >> max(64 - bits, 0)
      let attoseconds = Bool.random(using: &rng) ? magnitude : -magnitude
      let (whole, fraction) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
      let exact = fraction > 0 ? whole + 1 : whole
      #expect(
        TimeAmount(Duration(attoseconds: attoseconds)) == .nanoseconds(Int64(clamping: exact)),
        "\(attoseconds) attoseconds")
    }
  }

  @Test func durationConversionSaturates() {
    #expect(TimeAmount(.seconds(Int64.max)) == .max)
    #expect(TimeAmount(.seconds(Int64.min)) == .min)
    #expect(TimeAmount(.seconds(9_223_372_037)) == .max)
    #expect(TimeAmount(.seconds(9_223_372_036)) == .nanoseconds(9_223_372_036_000_000_000))
  }

  /// Durations far beyond `Int64` seconds (`Duration` counts 128-bit
  /// attoseconds, about ±5.4e12 years) saturate instead of trapping.
  @Test func durationConversionSaturatesForEvery128BitDuration() {
    let largest = Duration(secondsComponent: .max, attosecondsComponent: .max) * 18
    let huge: [Duration] = [
      .seconds(Int64.max) * 2, .seconds(Int64.max) * 18, largest,
      Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999),
    ]
    for duration in huge {
      #expect(TimeAmount(duration) == .max, "\(duration)")
      #expect(TimeAmount(.zero - duration) == .min, "-\(duration)")
    }
    #expect(TimeAmount(.seconds(Int64.min) * 2) == .min)
    let tiny = Duration(secondsComponent: 0, attosecondsComponent: 1)
    #expect(TimeAmount(.nanoseconds(Int64.max) + tiny) == .max)
    #expect(TimeAmount(.nanoseconds(Int64.min) - tiny) == .min)
    #expect(TimeAmount(.nanoseconds(Int64.max)) == .max)
    #expect(TimeAmount(.nanoseconds(Int64.min)) == .min)
    // Just inside the range, rounding up stays inside it.
    #expect(
      TimeAmount(
        .nanoseconds(Int64.max - 1) + Duration(secondsComponent: 0, attosecondsComponent: 1))
        == .max)
    #expect(
      TimeAmount(
        .nanoseconds(Int64.min) + Duration(secondsComponent: 0, attosecondsComponent: 1))
        == .nanoseconds(Int64.min + 1))
  }

  @Test func secondsConversionRoundsUpAndSaturates() throws {
    #expect(try TimeAmount(seconds: 1.5) == .milliseconds(1_500))
    #expect(try TimeAmount(seconds: 1e-10) == .nanoseconds(1))
    #expect(try TimeAmount(seconds: -1e-10) == .zero)
    #expect(try TimeAmount(seconds: .infinity) == .max)
    #expect(try TimeAmount(seconds: 1e300) == .max)
    #expect(try TimeAmount(seconds: 9.3e9) == .max)
    #expect(try TimeAmount(seconds: -.infinity) == .min)
    #expect(try TimeAmount(seconds: -1e300) == .min)
    #expect(try TimeAmount(seconds: .greatestFiniteMagnitude) == .max)
  }

  @Test func nanSecondsThrow() {
    #expect(throws: TimerLoopError.invalidInterval) { try TimeAmount(seconds: .nan) }
    #expect(throws: TimerLoopError.invalidInterval) { try TimeAmount(seconds: -.signalingNaN) }
  }

  @Test func unitConstructorsSaturate() {
    #expect(TimeAmount.seconds(2) == .nanoseconds(2_000_000_000))
    #expect(TimeAmount.milliseconds(3) == .microseconds(3_000))
    #expect(TimeAmount.seconds(.max) == .max)
    #expect(TimeAmount.microseconds(.min) == .min)
    #expect(TimeAmount.max + .nanoseconds(1) == .max)
    #expect(TimeAmount.min + .nanoseconds(-1) == .min)
  }

  @Test func everyConversionAndOperatorHoldsAtTheExtremes() throws {
    for n: Int64 in [.min, .min + 1, -1, 0, 1, .max - 1, .max] {
      let sign: TimeAmount = n < 0 ? .min : .max
      #expect(TimeAmount.nanoseconds(n).nanoseconds == n)
      let small = n.magnitude <= 1
      #expect(TimeAmount.microseconds(n) == (small ? .nanoseconds(n * 1_000) : sign))
      #expect(TimeAmount.milliseconds(n) == (small ? .nanoseconds(n * 1_000_000) : sign))
      #expect(TimeAmount.seconds(n) == (small ? .nanoseconds(n * 1_000_000_000) : sign))
      // Round trips through Duration and Double seconds.
      #expect(TimeAmount(TimeAmount.nanoseconds(n).duration) == .nanoseconds(n))
      let seconds = TimeAmount.nanoseconds(n).seconds
      #expect(seconds.isFinite)
      _ = try TimeAmount(seconds: seconds)
    }
    let amounts: [TimeAmount] = [.min, .nanoseconds(-1), .zero, .nanoseconds(1), .max]
    for lhs in amounts {
      for rhs in amounts {
        let exact = Int128(lhs.nanoseconds) + Int128(rhs.nanoseconds)
        let expected = TimeAmount(nanoseconds: Int64(clamping: exact))
        #expect(lhs + rhs == expected, "\(lhs) + \(rhs)")
        #expect((lhs < rhs) == (lhs.nanoseconds < rhs.nanoseconds))
      }
    }
    #expect(try TimeAmount(seconds: .leastNonzeroMagnitude) == .nanoseconds(1))
    #expect(try TimeAmount(seconds: -.greatestFiniteMagnitude) == .min)
    #expect(TimeAmount.max.description == "\(Int64.max) ns")
    #expect(TimeAmount.min.duration == .nanoseconds(Int64.min))
  }
}

@Suite struct DeadlineTests {
  @Test func additionSaturatesAtTheEnds() {
    let now = Deadline.now()
    #expect(now + .max == .distantFuture)
    #expect(Deadline.distantFuture + .nanoseconds(1) == .distantFuture)
    #expect(now + .min == .distantPast)
    #expect(Deadline(uptimeNanoseconds: 5) + .nanoseconds(-10) == .distantPast)
    #expect(now + .seconds(1) - now == .seconds(1))
  }

  @Test func subtractionIsExactAndTheEnginesFormSaturates() {
    #expect(Deadline.distantFuture - Deadline(uptimeNanoseconds: -5) == .nanoseconds(Int128(Int64.max) + 5))
    #expect(Deadline(uptimeNanoseconds: -5) - .distantFuture == .nanoseconds(-5 - Int128(Int64.max)))
    #expect(Deadline.distantFuture.timeAmount(since: Deadline(uptimeNanoseconds: -5)) == .max)
    #expect(Deadline(uptimeNanoseconds: -5).timeAmount(since: .distantFuture) == .min)
  }

  @Test func everyOperatorSaturatesAtTheExtremes() {
    let deadlines: [Deadline] = [
      Deadline(uptimeNanoseconds: .min), Deadline(uptimeNanoseconds: -1), .distantPast,
      Deadline(uptimeNanoseconds: 1), Deadline(uptimeNanoseconds: .max - 1), .distantFuture,
    ]
    let amounts: [TimeAmount] = [.min, .nanoseconds(-1), .zero, .nanoseconds(1), .max]
    for deadline in deadlines {
      for amount in amounts {
        let exact = Int128(deadline.uptimeNanoseconds) + Int128(amount.nanoseconds)
        let expected = Deadline(uptimeNanoseconds: Int64(clamping: Swift.max(exact, 0)))
        #expect(deadline + amount == expected, "\(deadline) + \(amount)")
      }
      for other in deadlines {
        let exact = Int128(deadline.uptimeNanoseconds) - Int128(other.uptimeNanoseconds)
        #expect(deadline - other == .nanoseconds(exact))
        #expect(deadline.timeAmount(since: other) == TimeAmount(nanoseconds: Int64(clamping: exact)))
        #expect((deadline < other) == (deadline.uptimeNanoseconds < other.uptimeNanoseconds))
      }
      _ = deadline.description
    }
    #expect(Deadline.distantFuture.description == "Deadline.distantFuture")
  }

  @Test func nowIsMonotonic() {
    var previous = Deadline.now()
    for _ in 0..<10_000 {
      let next = Deadline.now()
      #expect(next >= previous)
      previous = next
    }
  }
}
