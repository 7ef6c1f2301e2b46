import Dispatch
import Foundation
import Synchronization
import TimerLoop

/// A countdown of a fixed duration that ticks at a fixed interval and completes
/// once: what GCD countdown wrappers such as TTTimer provide (a
/// `DispatchSourceTimer` with tick and completion callbacks), without their
/// unbalanced-suspend crash (a `DispatchSourceTimer` traps when released
/// suspended or resumed twice).
///
/// ```swift
/// let countdown = try CountdownTimer(duration: 5, tickInterval: 1,
///   onTick: { remaining, progress in print(remaining, progress) },
///   onCompletion: { print("done") })
/// countdown.start()
/// ```
///
/// Semantics:
/// - **Time.** Seconds, counted only while running: ``suspend()`` freezes the
///   remaining time, ``resume()`` continues from it. By default on the loop's
///   monotonic clock, which setting the wall clock does not move and which
///   stops while the machine is suspended. With `clock: .wall`, on the loop's
///   wall clock, as a GCD countdown whose timer starts at `dispatch_walltime`:
///   each tick is due at a wall-clock date, so setting the clock forward uses
///   up running time at once (the ticks jumped over are skipped, and past the
///   end the final tick and the completion come in the loop's next pass),
///   setting it back makes the next tick wait for the clock to reach its date
///   again (meanwhile ``remaining`` counts no time as passed since the last
///   tick, start or resume), and time the machine spends suspended counts.
/// - **Ticks.** Ticks fall on the countdown's own grid: when `k × tickInterval`
///   seconds of running time have passed (k = 1, 2, ...), and once more when the
///   duration is used up. So a 5 s countdown ticking every second ticks with
///   `remaining` 4, 3, 2, 1, 0, and a 5 s one ticking every 2 s with 3, 1, 0.
///   There is no tick at the start (as a `Timer` first fires one interval in).
///   `remaining` is the grid value of the tick being delivered and `progress`
///   is `1 - remaining / duration`, so late delivery on a busy loop reports the
///   tick it stands for, not 3.9995. Ticks missed while the loop was busy are
///   skipped, not delivered in a burst; resuming waits for the next grid point
///   (no burst either).
/// - **Completion.** Called exactly once, right after the final tick
///   (`remaining` 0, `progress` 1), when the countdown runs out; never after
///   ``cancel()``.
/// - **Threads.** Callbacks run on the loop's thread (or the queue given),
///   one at a time. ``start()``, ``suspend()``, ``resume()`` and ``cancel()``
///   are idempotent, safe from any thread and from inside the callbacks, and
///   never trap whatever their order. After one of them returns, no tick that
///   it stopped starts; a callback already under way is not interrupted.
/// - **Shutdown.** When its loop shuts down the countdown is cancelled at
///   once, whatever its status (``status`` reads ``Status/cancelled``), on the
///   thread that shut the loop down; one made on a loop that has shut down is
///   cancelled from the start.
/// - **Lifetime.** A running countdown is kept alive by its loop, as a
///   scheduled `Timer` is; a suspended or idle one is not. It holds its loop
///   weakly, never keeping the loop object alive. The callbacks, with what
///   they capture, are released when the countdown finishes or is cancelled
///   (a callback running then is released when it returns).
public final class CountdownTimer: Sendable {
  /// Where a countdown is in its life.
  public enum Status: Sendable, Hashable {
    /// Created, ``start()`` not called yet.
    case idle
    /// Counting down: ticks are armed on the loop.
    case running
    /// ``suspend()`` froze the remaining time; ``resume()`` continues.
    case suspended
    /// Ran out; the completion has been (or is being) called.
    case finished
    /// ``cancel()`` was called, or its loop shut down.
    case cancelled
  }

  /// The total running time, in seconds (negative values count as 0).
  public let duration: TimeInterval
  /// The time between ticks, in seconds (below 0.0001, zero and negative
  /// included, it was raised to 0.0001, the floor Apple's `Timer` applies).
  public let tickInterval: TimeInterval
  /// The clock the countdown counts on (see Time above).
  public let clock: TimerClock

  private let total: TimeAmount
  private let tick: TimeAmount
  /// Weak, so that a countdown never keeps its loop object alive.
  private weak let loop: (any TimerEventLoop)?
  private let context: LoopContext
  private let queue: DispatchQueue?
  private let state: Locked<State>
  /// Lets ``suspend()`` and ``cancel()`` return only once no tick or
  /// completion they stop is about to start.
  private let gate = AdmissionGate()

  /// The running tick's timer, held weakly: its loop keeps it alive while it is
  /// scheduled, and its block keeps this countdown alive. A strong reference
  /// here would close that into a cycle that outlives a loop shut down mid-count.
  private struct TickTimer {
    weak let timer: BlockTimer?
  }

  private struct Callbacks {
    let onTick: @Sendable (_ remaining: TimeInterval, _ progress: Double) -> Void
    let onCompletion: @Sendable () -> Void
  }

  private struct State {
    var phase: Phase
    /// Released once the countdown has finished or been cancelled.
    var callbacks: Callbacks?

    /// Ends the countdown in `phase`; returns the callbacks for the caller to
    /// release outside the lock (their captures' `deinit` may call back in).
    mutating func end(_ phase: Phase) -> Callbacks? {
      self.phase = phase
      defer { callbacks = nil }
      return callbacks
    }
  }

  private enum Phase {
    case idle
    /// `elapsed` running time had passed at `since` (on the countdown's
    /// clock); `timer` is the next tick.
    case running(since: Deadline, elapsed: TimeAmount, timer: TickTimer)
    case suspended(elapsed: TimeAmount)
    /// The final tick is being delivered; the completion follows unless that
    /// tick's callback cancels the countdown.
    case completing
    case finished
    case cancelled(elapsed: TimeAmount)
  }

  /// Creates a countdown; it starts with ``start()``.
  ///
  /// - Parameters:
  ///   - duration: seconds to count down; ≤ 0 completes on the first pass after
  ///     ``start()``; `.infinity` never completes.
  ///   - tickInterval: seconds between ticks; below 0.0001 (zero and negative
  ///     included) becomes 0.0001, so a tiny tick cannot spin the loop.
  ///   - loop: `nil` picks ``DefaultLoop/current`` now.
  ///   - queue: deliver callbacks on this queue instead of the loop's thread.
  ///   - clock: ``TimerClock/monotonic`` (the default) or ``TimerClock/wall``
  ///     (`dispatch_walltime`'s semantics); see Time above.
  ///   - onTick: receives the remaining seconds and the progress in 0...1.
  ///   - onCompletion: called once when the countdown runs out.
  /// - Throws: `TimerLoopError.invalidInterval` when `duration` or
  ///   `tickInterval` is NaN; `SystemError` when no loop is given and the
  ///   shared loop cannot start.
  public init(
    duration: TimeInterval, tickInterval: TimeInterval, on loop: (any TimerEventLoop)? = nil,
    deliveringOn queue: DispatchQueue? = nil, clock: TimerClock = .monotonic,
    onTick: @escaping @Sendable (_ remaining: TimeInterval, _ progress: Double) -> Void,
    onCompletion: @escaping @Sendable () -> Void
  ) throws {
    // NaN passes through, to be refused by TimeAmount(seconds:).
    let interval = tickInterval.isNaN ? tickInterval : max(tickInterval, BlockTimer.minimumInterval)
    total = max(try TimeAmount(seconds: duration), .zero)
    tick = try TimeAmount(seconds: interval)
    self.duration = max(duration, 0)
    self.tickInterval = interval
    self.clock = clock
    let loop = try loop ?? DefaultLoop.resolved()
    self.loop = loop
    context = LoopContext.of(loop)
    self.queue = queue
    state = Locked(
      State(phase: .idle, callbacks: Callbacks(onTick: onTick, onCompletion: onCompletion)))
    if !context.register(self) { cancel() }
  }

  deinit {
    context.unregister(self)
  }

  /// Starts counting down. Does nothing unless the countdown is ``Status/idle``.
  public func start() {
    state.withLock { state in
      guard case .idle = state.phase else { return }
      state.phase = run(from: .zero)
    }
  }

  /// Freezes the remaining time. Does nothing unless running.
  public func suspend() {
    let stopped: BlockTimer? = state.withLock { state in
      guard case .running(let since, let base, let timer) = state.phase else { return nil }
      state.phase = .suspended(elapsed: elapsed(since: since, base: base))
      return timer.timer
    }
    stopped?.invalidate()
    gate.waitForAdmittedCalls()
  }

  /// Continues from the remaining time frozen by ``suspend()``; the next tick
  /// comes at the next grid point. Does nothing unless suspended.
  public func resume() {
    state.withLock { state in
      guard case .suspended(let elapsed) = state.phase else { return }
      state.phase = run(from: elapsed)
    }
  }

  /// Stops the countdown for good and releases its callbacks; the completion
  /// is not called. Does nothing once finished or cancelled.
  public func cancel() {
    let (stopped, callbacks): (BlockTimer?, Callbacks?) = state.withLock { state in
      switch state.phase {
      case .finished, .cancelled:
        return (nil, nil)
      case .completing:
        return (nil, state.end(.cancelled(elapsed: total)))
      case .idle:
        return (nil, state.end(.cancelled(elapsed: .zero)))
      case .suspended(let elapsed):
        return (nil, state.end(.cancelled(elapsed: elapsed)))
      case .running(let since, let base, let timer):
        return (timer.timer, state.end(.cancelled(elapsed: elapsed(since: since, base: base))))
      }
    }
    stopped?.invalidate()
    gate.waitForAdmittedCalls()
    _ = callbacks  // released outside the lock
  }

  /// Where the countdown is in its life.
  public var status: Status {
    state.withLock { state in
      switch state.phase {
      case .idle: .idle
      case .running: .running
      case .suspended: .suspended
      case .completing, .finished: .finished
      case .cancelled: .cancelled
      }
    }
  }

  /// The running time left, in seconds, read from the countdown's clock now.
  public var remaining: TimeInterval {
    state.withLock { state in
      switch state.phase {
      case .idle: total.seconds
      case .running(let since, let base, _): remaining(after: elapsed(since: since, base: base))
      case .suspended(let elapsed), .cancelled(let elapsed): remaining(after: elapsed)
      case .completing, .finished: 0
      }
    }
  }

  // MARK: Ticking

  private func remaining(after elapsed: TimeAmount) -> TimeInterval {
    (total + TimeAmount(nanoseconds: -elapsed.nanoseconds)).seconds
  }

  /// Running time passed by now, capped at the duration. A loop that is gone
  /// (it has shut down, so the countdown is ending) lets no more time pass,
  /// nor does a wall clock set back before `since` (the last tick, start or
  /// resume).
  private func elapsed(since: Deadline, base: TimeAmount) -> TimeAmount {
    let now = loop.map(clock.now(on:)) ?? since
    return min(base + max(now.timeAmount(since: since), .zero), total)
  }

  /// The running phase that continues from `elapsed`, with its next tick armed.
  /// Called with the lock held.
  private func run(from elapsed: TimeAmount) -> Phase {
    guard let loop else { return .cancelled(elapsed: elapsed) }
    let now = clock.now(on: loop)
    let next = min(
      TimeAmount(
        nanoseconds: (elapsed.nanoseconds / tick.nanoseconds).addingReportingOverflow(1)
          .partialValue
      )
      .scaled(by: tick),
      total)
    let timer = BlockTimer.scheduled(
      at: now + (next + TimeAmount(nanoseconds: -elapsed.nanoseconds)), on: loop, clock: clock,
      deliveringOn: queue
    ) { [self] timer in tickFired(timer) }
    // Only a loop that has shut down refuses a timer; nothing would ever tick.
    return timer.isValid
      ? .running(since: now, elapsed: elapsed, timer: TickTimer(timer: timer))
      : .cancelled(elapsed: elapsed)
  }

  private func tickFired(_ timer: BlockTimer) {
    typealias Report = (remaining: TimeInterval, progress: Double, finished: Bool)
    let ticked: (Report, Callbacks)? = state.withLock { state in
      guard case .running(let since, let base, let current) = state.phase,
        current.timer === timer, let callbacks = state.callbacks
      else {
        return nil
      }
      let elapsed = elapsed(since: since, base: base)
      gate.admit()
      if elapsed >= total {
        state.phase = .completing
        return ((0, 1, true), callbacks)
      }
      state.phase = run(from: elapsed)
      // The grid point this tick stands for: the last one passed.
      let passed = TimeAmount(nanoseconds: elapsed.nanoseconds / tick.nanoseconds).scaled(by: tick)
      return ((remaining(after: passed), passed.seconds / total.seconds, false), callbacks)
    }
    guard let (report, callbacks) = ticked else { return }
    gate.start()
    callbacks.onTick(report.remaining, report.progress)
    guard report.finished else { return }
    // The final tick's callback may have cancelled: then there is no completion.
    let completes: Bool = state.withLock { state in
      guard case .completing = state.phase else { return false }
      _ = state.end(.finished)  // `callbacks` holds them for the completion
      gate.admit()
      return true
    }
    guard completes else { return }
    gate.start()
    callbacks.onCompletion()
  }
}

extension CountdownTimer: LoopMember {
  func loopDidShutDown() { cancel() }
}

extension TimeAmount {
  /// `self` (a count) times `unit`, saturating.
  fileprivate func scaled(by unit: TimeAmount) -> TimeAmount {
    let (product, overflow) = nanoseconds.multipliedReportingOverflow(by: unit.nanoseconds)
    return overflow ? .max : TimeAmount(nanoseconds: product)
  }
}
