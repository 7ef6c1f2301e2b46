import BlockTimers
import Dispatch
import Foundation
import Glibc
import Testing
import TimerLoop

/// Real steps of the machine's wall clock (`CLOCK_REALTIME`) under a real
/// `EpollEventLoop`: what the virtual-time tests simulate, done for real.
/// Skipped unless `TIMERLOOP_CLOCK_STEP_TEST=1`, because each test sets the
/// clock of the whole machine; `Scripts/clock-step.sh` sets it, on a throwaway
/// machine, after saving the clock, which it restores on any exit. Each test
/// moves the clock by `step` and back, and waits on the monotonic clock
/// (`DispatchTime`), which the steps do not move.
@Suite(
  .serialized, .timeLimit(.minutes(1)),
  .enabled(if: ProcessInfo.processInfo.environment["TIMERLOOP_CLOCK_STEP_TEST"] == "1"))
struct ClockStepTests {
  static let step = 120

  /// Moves the wall clock by `seconds`: read, add, set, so that it loses only
  /// the microseconds between the read and the set.
  static func stepWallClock(by seconds: Int) throws {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    now.tv_sec += seconds
    let result = clock_settime(CLOCK_REALTIME, &now)
    try #require(result == 0, "clock_settime: errno \(errno) (needs CAP_SYS_TIME)")
  }

  @Test func aWallClockTimerFiresAtOnceWhenTheClockJumpsPastItsDate() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "clock-step")
    defer { loop.shutdown() }
    let date = Date().addingTimeInterval(60)
    let fired = DispatchSemaphore(value: 0)
    let firedAt = Box<Date?>(nil)
    try loop.schedule(at: date) {
      firedAt.value = Date()
      fired.signal()
    }
    let start = DispatchTime.now()
    try Self.stepWallClock(by: Self.step)
    defer { try? Self.stepWallClock(by: -Self.step) }
    #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    #expect(waited < 10, "waited \(waited) s of the 60 s of running time")
    #expect(try #require(firedAt.value) >= date, "early on the wall clock")
  }

  @Test func aWallClockTimerWaitsWhenTheClockJumpsBack() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "clock-step")
    defer { loop.shutdown() }
    let date = Date().addingTimeInterval(2)
    let fired = DispatchSemaphore(value: 0)
    let firedAt = Box<Date?>(nil)
    try loop.schedule(at: date) {
      firedAt.value = Date()
      fired.signal()
    }
    // A monotonic timer due after the date's running time marks the window.
    let window = DispatchSemaphore(value: 0)
    try loop.schedule(after: .seconds(3)) { window.signal() }
    try Self.stepWallClock(by: -Self.step)
    var restored = false
    defer { if !restored { try? Self.stepWallClock(by: Self.step) } }
    #expect(window.wait(timeout: .now() + .seconds(10)) == .success)
    #expect(fired.wait(timeout: .now()) == .timedOut, "fired by running time")
    try Self.stepWallClock(by: Self.step)
    restored = true
    #expect(fired.wait(timeout: .now() + .seconds(10)) == .success, "the date has passed")
    #expect(try #require(firedAt.value) >= date, "early on the wall clock")
  }

  /// A rule timer waiting for its date takes its next date from its rule at
  /// the new time when the clock is set back: what the kernel cannot do for
  /// the loop, so it shows that the loop heard of the step at once
  /// (`TFD_TIMER_CANCEL_ON_SET`) and re-evaluated. Without that, the timer
  /// would wait 150 s.
  @Test func aRuleTimerRecomputesItsDateWhenTheClockJumpsBack() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "clock-step")
    defer { loop.shutdown() }
    let fired = DispatchSemaphore(value: 0)
    let timer = try loop.scheduleRepeating(
      firstAt: Date().addingTimeInterval(30), nextDate: { $0.addingTimeInterval(1) }
    ) { _ in fired.signal() }
    defer { timer.cancel() }
    // Wait for a task sent after the timer, so that the step comes after the
    // loop watches its timerfd (the next test makes it come before).
    let armed = DispatchSemaphore(value: 0)
    try loop.execute { armed.signal() }
    #expect(armed.wait(timeout: .now() + .seconds(10)) == .success)
    let start = DispatchTime.now()
    try Self.stepWallClock(by: -Self.step)
    defer { try? Self.stepWallClock(by: Self.step) }
    #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    #expect(waited < 10, "waited \(waited) s")
  }

  /// The same with the step made after a rule timer is scheduled from
  /// another thread but before the loop thread could arm the wall-clock
  /// timerfd (held here in a task until after the step): a
  /// `TFD_TIMER_CANCEL_ON_SET` timerfd hears only of steps made after it was
  /// first armed, so the scheduling call arms it, and the loop reads the
  /// step once it watches it. Armed by the loop, the timer kept the date it
  /// had, 150 s away.
  @Test func aStepBeforeTheLoopArmsItsTimerfdIsHeard() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "clock-step")
    defer { loop.shutdown() }
    let busy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    try loop.execute {
      busy.signal()
      release.wait()
    }
    #expect(busy.wait(timeout: .now() + .seconds(10)) == .success)
    let fired = DispatchSemaphore(value: 0)
    let timer = try loop.scheduleRepeating(
      firstAt: Date().addingTimeInterval(30), nextDate: { $0.addingTimeInterval(1) }
    ) { _ in fired.signal() }
    defer { timer.cancel() }
    let start = DispatchTime.now()
    try Self.stepWallClock(by: -Self.step)
    defer { try? Self.stepWallClock(by: Self.step) }
    release.signal()
    #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    #expect(waited < 10, "waited \(waited) s")
  }

  /// BlockTimers: a fire-date timer on the wall clock follows the step, one on
  /// the default monotonic clock (Apple's run-loop behaviour) does not; GCD's
  /// `DispatchWallTime` timer, for the comparison in TimerLoop's Clocks article, follows it too.
  @Test func aWallClockBlockTimerFollowsTheStepAndADefaultOneDoesNot() throws {
    let loop = try EpollEventLoop.startOnNewThread(name: "clock-step")
    defer { loop.shutdown() }
    let date = Date().addingTimeInterval(60)
    let wallFired = DispatchSemaphore(value: 0)
    let defaultFired = Box(false)
    let wall = BlockTimer(fire: date, interval: 0, repeats: false, clock: .wall) { _ in
      wallFired.signal()
    }
    let monotonic = BlockTimer(fire: date, interval: 0, repeats: false) { _ in
      defaultFired.value = true
    }
    wall.add(to: loop)
    monotonic.add(to: loop)
    let gcdFired = DispatchSemaphore(value: 0)
    let gcd = DispatchSource.makeTimerSource()
    gcd.setEventHandler { gcdFired.signal() }
    let seconds = date.timeIntervalSince1970.rounded(.up)
    gcd.schedule(
      wallDeadline: DispatchWallTime(timespec: timespec(tv_sec: Int(seconds), tv_nsec: 0)))
    gcd.resume()
    defer { gcd.cancel() }
    try Self.stepWallClock(by: Self.step)
    defer { try? Self.stepWallClock(by: -Self.step) }
    #expect(wallFired.wait(timeout: .now() + .seconds(10)) == .success)
    #expect(gcdFired.wait(timeout: .now() + .seconds(10)) == .success, "DispatchWallTime")
    #expect(!defaultFired.value, "the default timer followed the wall clock")
    #expect(monotonic.isValid)
    monotonic.invalidate()
  }
}
