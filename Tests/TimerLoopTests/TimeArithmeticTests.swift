import Testing
import TimerLoop

/// `TimeAmount` arithmetic against an exact Int128 reference: the result is
/// the exact value rounded up (towards +∞) and clamped to min ... max.
private func expected(_ exact: Int128) -> TimeAmount {
  TimeAmount(nanoseconds: Int64(clamping: exact))
}

/// The exact quotient rounded up, as Int128 (|lhs| < 2^64, so no overflow).
private func ceilingQuotient(_ lhs: Int128, _ rhs: Int128) -> Int128 {
  let (quotient, remainder) = lhs.quotientAndRemainder(dividingBy: rhs)
  return remainder != 0 && (remainder < 0) == (rhs < 0) ? quotient + 1 : quotient
}

/// Amounts at and around every edge, plus ordinary ones.
private let edgeAmounts: [Int64] = [
  .min, .min + 1, .min / 2, -1_000_000_007, -7, -2, -1, 0, 1, 2, 7, 1_000_000_007, .max / 2,
  .max - 1, .max,
]

@Suite struct TimeAmountArithmeticTests {
  @Test func negationSaturatesOnlyForMin() {
    #expect(-TimeAmount.seconds(1) == .seconds(-1))
    #expect(-TimeAmount.zero == .zero)
    #expect(-TimeAmount.max == .nanoseconds(.min + 1))
    #expect(-TimeAmount.min == .max)
  }

  @Test func sumMatchesTheExactResultClamped() {
    for a in edgeAmounts {
      for b in edgeAmounts {
        let (lhs, rhs) = (TimeAmount(nanoseconds: a), TimeAmount(nanoseconds: b))
        #expect(lhs + rhs == expected(Int128(a) + Int128(b)), "\(a) + \(b)")
      }
    }
  }

  @Test func quotientIsTheExactResultRoundedUpAndClamped() {
    let divisors: [Int128] = [
      Int128(Int64.min) - 1, Int128(Int64.min), Int128(Int64.min) + 1, -1_000_000, -3, -2, -1, 1,
      2, 3, 1_000_000, Int128(Int64.max), Int128(Int64.max) + 1, Int128(UInt64.max),
    ]
    for a in edgeAmounts {
      let amount = TimeAmount(nanoseconds: a)
      for divisor in divisors {
        let exact = expected(ceilingQuotient(Int128(a), divisor))
        #expect(amount / divisor == exact, "\(a) / \(divisor)")
        if let unsigned = UInt64(exactly: divisor) {
          #expect(amount / unsigned == exact, "\(a) / UInt64 \(divisor)")
        }
        if let narrow = Int(exactly: divisor) {
          #expect(amount / narrow == exact, "\(a) / Int \(divisor)")
        }
      }
    }
  }

  @Test func quotientExamplesFromTheDocumentation() {
    #expect(TimeAmount.seconds(1) / 3 == .nanoseconds(333_333_334))
    #expect(TimeAmount.nanoseconds(-7) / 2 == .nanoseconds(-3))
    #expect(TimeAmount.min / -1 == .max)
  }

  @Test func divisionByZeroDoesNotTrap() {
    #expect(TimeAmount.seconds(1) / 0 == .max)
    #expect(TimeAmount.nanoseconds(-1) / 0 == .min)
    #expect(TimeAmount.zero / 0 == .zero)
    #expect(TimeAmount.max / UInt8(0) == .max)
    #expect(TimeAmount.min / Int128(0) == .min)
  }
}

@Suite struct DeadlineArithmeticTests {
  private let origin = Deadline(uptimeNanoseconds: 1_000_000_000)

  @Test func movingByATimeAmountBothWaysClampsToTheClocksEnds() {
    #expect(origin - .milliseconds(250) == Deadline(uptimeNanoseconds: 750_000_000))
    #expect(origin - .seconds(-1) == origin + .seconds(1))
    #expect(origin - .seconds(2) == .distantPast)
    #expect(origin - .max == .distantPast)
    #expect(origin - .min == .distantFuture)
    #expect(Deadline.distantFuture - .nanoseconds(-1) == .distantFuture)
    #expect(.seconds(1) + origin == origin + .seconds(1))
    #expect(Duration.max + origin == .distantFuture)
    var deadline = origin
    deadline += .milliseconds(5)
    deadline -= .milliseconds(2)
    #expect(deadline == origin + .milliseconds(3))
  }

  @Test func movingByADurationRoundsTheDeadlineUp() {
    let halfNanosecond = Duration(secondsComponent: 0, attosecondsComponent: 500_000_000)
    #expect(origin + Duration.milliseconds(250) == origin + .milliseconds(250))
    #expect(origin - Duration.milliseconds(250) == origin - .milliseconds(250))
    // +0.5 ns rounds to +1 ns; -0.5 ns rounds to 0 ns: the deadline never moves earlier.
    #expect(origin + halfNanosecond == origin + .nanoseconds(1))
    #expect(origin - halfNanosecond == origin)
    #expect(origin - (.nanoseconds(3) + halfNanosecond) == origin - .nanoseconds(3))
    #expect(origin - (.zero - halfNanosecond) == origin + .nanoseconds(1))
    var deadline = origin
    deadline += Duration.seconds(2)
    deadline -= Duration.seconds(1)
    #expect(deadline == origin + .seconds(1))
  }

  @Test func movingByAnExtremeDurationSaturates() {
    #expect(origin + Duration.seconds(Int64.max) == .distantFuture)
    #expect(origin - Duration.seconds(Int64.max) == .distantPast)
    #expect(origin + Duration.seconds(Int64.min) == .distantPast)
    #expect(origin - Duration.seconds(Int64.min) == .distantFuture)
    #expect(Deadline.distantFuture - Duration.nanoseconds(1) < .distantFuture)
    // Beyond Int64.max seconds, where `Duration.components` would trap.
    #expect(origin + Duration(attoseconds: .max) == .distantFuture)
    #expect(origin - Duration(attoseconds: .max) == .distantPast)
    #expect(origin + Duration(attoseconds: .min) == .distantPast)
    #expect(origin - Duration(attoseconds: .min) == .distantFuture)
  }

  /// A `Duration` holds any difference of two `Int64` nanosecond counts, so
  /// the difference is exact where the engine's `TimeAmount` saturates.
  @Test func theDifferenceOfTwoDeadlinesIsExact() {
    #expect(origin + .seconds(1) - origin == .seconds(1))
    #expect(Deadline.distantPast - Deadline.distantFuture == .nanoseconds(-Int64.max))
    #expect(origin - .distantPast == .nanoseconds(1_000_000_000))
    #expect(
      Deadline(uptimeNanoseconds: .min) - .distantFuture
        == .nanoseconds(Int128(Int64.min) - Int128(Int64.max)))
    #expect(
      Deadline.distantFuture - Deadline(uptimeNanoseconds: -2) == .nanoseconds(Int128(Int64.max) + 2))
    #expect(Deadline(uptimeNanoseconds: .min).timeAmount(since: .distantFuture) == .min)
    #expect(Deadline.distantFuture.timeAmount(since: Deadline(uptimeNanoseconds: -2)) == .max)
  }
}
