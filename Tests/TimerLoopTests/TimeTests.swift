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

  @Test func durationConversionSaturates() {
    #expect(TimeAmount(.seconds(Int64.max)) == .max)
    #expect(TimeAmount(.seconds(Int64.min)) == .min)
    #expect(TimeAmount(.seconds(9_223_372_037)) == .max)
    #expect(TimeAmount(.seconds(9_223_372_036)) == .nanoseconds(9_223_372_036_000_000_000))
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

  @Test func subtractionSaturates() {
    #expect(Deadline.distantFuture - Deadline(uptimeNanoseconds: -5) == .max)
    #expect(Deadline(uptimeNanoseconds: -5) - .distantFuture == .min)
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
