import NIOCore
import NIOPosix
import Synchronization
@_spi(TimerLoopHost) import TimerLoopCore

/// Drives one ``NIOTimerLoop``'s scheduler on its SwiftNIO loop, by
/// TimerLoop's host contract (`TimerHost`): passes run inside NIO tasks on
/// the loop's thread, and one NIO scheduled callback stands armed at the
/// earliest deadline, or at `NIODeadline.distantFuture` while no timer is
/// pending, so that NIO's shutdown, which cancels every scheduled callback,
/// always reaches the driver.
///
/// Ground rules:
/// - Everything but ``wakeUp()`` and ``isStopping`` runs on the loop's
///   thread (in NIO tasks, in NIO's calls of ``Callback``, or in calls that
///   a channel handler makes on that thread), one call at a time.
/// - The callback is re-armed only for a deadline earlier than the one it
///   stands at: a later one (the earliest timer cancelled or moved out) lets
///   it fire early, run an empty pass, and re-arm then, which costs NIO no
///   cancel, a linear search of its task heap.
/// - Each arming gets a new generation; a callback of an older one (cancelled
///   by a re-arm) is ignored, so a cancelled callback of the current
///   generation can only be NIO shutting the loop down.
final class NIOHostDriver: @unchecked Sendable {
  // @unchecked: the loop-thread state below is confined as the ground rules say.

  let eventLoop: any EventLoop
  /// The NIO loop belongs to one thread and may not be called from others
  /// (`EmbeddedEventLoop`): wake-ups do not reach it, and requests from other
  /// threads wait for its next pass.
  private let pinned: Bool
  /// Weak: the scheduler's closures hold the driver.
  weak var scheduler: TimerScheduler?
  /// Set once NIO has shut the loop down (or is doing so): wake-ups stop
  /// reaching for it, since it no longer runs new tasks. Any thread.
  let isStopping = Atomic<Bool>(false)
  /// Set once the loop's own thread has been seen to be a fixed one
  /// (NIOPosix's `MultiThreadedEventLoopGroup` loops), from which point "now"
  /// is read from `CLOCK_MONOTONIC` directly. Any thread.
  let readsMonotonicClock = Atomic<Bool>(false)

  // Loop-thread state.
  private var buffers = TimerScheduler.PassBuffers()
  /// The deadline the callback of the current ``generation`` stands at; `nil`: none does.
  private var armedDeadline: Deadline?
  /// That callback's handle, once NIO has returned it.
  private var armedCallback: NIOScheduledCallback?
  private var generation: UInt64 = 0
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// How many callbacks the driver has asked NIO for, so a test can see that
  /// it re-arms only for earlier deadlines. Loop thread.
  private(set) var testsOnly_callbacksScheduled = 0
  private var inPass = false
  private var passQueued = false
  private var stopped = false
  /// Set when the NIO loop shuts down (not only this timer loop).
  private var eventLoopStopped = false
  /// Whether the loop thread is to be claimed when first seen (see ``readsMonotonicClock``).
  private var claimChecked: Bool

  /// - Parameter pinned: the loop's thread is the creating one, already
  ///   claimed (`EmbeddedEventLoop`).
  init(eventLoop: any EventLoop, pinned: Bool) {
    self.eventLoop = eventLoop
    self.pinned = pinned
    claimChecked = pinned
  }

  /// "Now" for the scheduler: NIO's `now`, which is the same clock as
  /// TimerLoop's (see ``TimerLoop/Deadline/init(_:)``), or the cheaper direct
  /// read once the loop is known to be a real one.
  var now: Deadline {
    readsMonotonicClock.load(ordering: .relaxed) ? .now() : Deadline(eventLoop.now)
  }

  /// The host's wake-up (`TimerHost.wakeUp`): a pass on the loop, soon.
  /// Any thread; under the scheduler's inbox lock.
  func wakeUp() {
    guard !pinned, !isStopping.load(ordering: .acquiring) else { return }
    eventLoop.execute { self.runPass(wokeUp: true) }
  }

  /// The host's `passNeeded`: work added on the loop thread between passes
  /// is due at `deadline` (`.distantPast`: a task). Loop thread.
  func passNeeded(by deadline: Deadline) {
    if deadline == .distantPast { queuePass() } else { arm(for: deadline) }
  }

  /// Starts driving: one pass on the loop, which arms the callback. Any thread.
  func start() {
    eventLoop.execute { self.runPass(wokeUp: false) }
  }

  /// Runs one pass, then arms for what is left. Loop thread; a call from
  /// inside a pass (a callback that made NIO run its tasks) does nothing:
  /// the running pass arms when it ends.
  func runPass(wokeUp: Bool) {
    // The task queued for a pass has run, whether or not this call runs one:
    // the pass that is running or about to run looks at what is left.
    passQueued = false
    guard let scheduler, !inPass, !stopped else { return }
    claimLoopThreadIfFixed(scheduler)
    inPass = true
    scheduler.hostWillRunPass(by: .distantPast)
    let start = now
    let outcome = scheduler.runPass(now: start, buffers: &buffers)
    scheduler.passDidEnd(
      outcome, start: start, end: now, wokeUp: wokeUp, delegate: scheduler.metricsDelegate)
    inPass = false
    if scheduler.isShutdown { return finishShutdown() }
    let (earliest, hasTasks) = scheduler.pendingWork
    if hasTasks {
      queuePass()
    } else {
      arm(for: earliest ?? .distantFuture)
    }
  }

  /// Has the loop run a pass in a task of its own, once. Loop thread.
  private func queuePass() {
    scheduler?.hostWillRunPass(by: .distantPast)
    guard !passQueued else { return }
    passQueued = true
    eventLoop.execute { self.runPass(wokeUp: false) }
  }

  /// Makes the callback stand at `deadline` or earlier. Loop thread.
  private func arm(for deadline: Deadline) {
    guard let scheduler else { return }
    if let armedDeadline, armedDeadline <= deadline {
      scheduler.hostWillRunPass(by: armedDeadline)
      return
    }
    // A new generation first: NIOPosix tells the handler of the cancel from
    // inside the call, and NIO's test loops tell a callback scheduled while
    // they shut down of its cancel from inside scheduleCallback.
    let previous = disarm()
    previous?.cancel()
    let current = generation
    armedDeadline = deadline
    testsOnly_callbacksScheduled += 1
    do {
      let callback = try eventLoop.scheduleCallback(
        at: NIODeadline(deadline), handler: Callback(driver: self, generation: current))
      // Unless NIO cancelled it already, shutting down.
      guard generation == current, armedDeadline != nil else { return }
      armedCallback = callback
      scheduler.hostWillRunPass(by: deadline)
    } catch {
      // NIO could not wake its own selector: the loop cannot run timers any more.
      loopDidStop()
    }
  }

  /// NIO ran the callback of `generation`. Loop thread.
  fileprivate func callbackFired(generation: UInt64) {
    guard generation == self.generation, armedDeadline != nil else { return }
    _ = disarm()
    runPass(wokeUp: true)
  }

  /// NIO cancelled the callback of `generation`: for the current one, NIO
  /// is shutting the loop down. Loop thread.
  fileprivate func callbackCancelled(generation: UInt64) {
    guard generation == self.generation, armedDeadline != nil else { return }
    _ = disarm()
    loopDidStop()
  }

  /// Forgets the armed callback and starts a new generation, so that NIO's
  /// later calls of it are ignored; returns its handle, for the caller to
  /// cancel. Loop thread.
  private func disarm() -> NIOScheduledCallback? {
    generation &+= 1
    defer { armedDeadline = nil; armedCallback = nil }
    return armedCallback
  }

  /// The NIO loop stops: the scheduler shuts down (calls from now on throw
  /// `TimerLoopError.shutdown`) and releases every closure here. Loop thread.
  private func loopDidStop() {
    isStopping.store(true, ordering: .releasing)
    eventLoopStopped = true
    scheduler?.shutdown()
    finishShutdown()
  }

  /// After the scheduler's shutdown, on the loop thread: releases every
  /// timer, sleep and task closure, disarms, and forgets the loop. Idempotent.
  /// Inside a pass it waits for the pass to end, which calls it again.
  func finishShutdown() {
    guard !stopped, !inPass, let scheduler else { return }
    stopped = true
    disarm()?.cancel()
    scheduler.releaseTable()
    scheduler.releaseLoopThread()
    NIOTimerLoop.forget(eventLoop, scheduler: scheduler, eventLoopStopped: eventLoopStopped)
  }

  /// Claims the loop thread for the scheduler the first time a pass runs on
  /// a thread that NIOPosix says is this loop's own, for good: from then on a
  /// call on it is known to be on the loop with one compare.
  private func claimLoopThreadIfFixed(_ scheduler: TimerScheduler) {
    guard !claimChecked else { return }
    claimChecked = true
    guard let current = MultiThreadedEventLoopGroup.currentEventLoop, current === eventLoop
    else { return }
    scheduler.claimLoopThread()
    readsMonotonicClock.store(true, ordering: .relaxed)
  }

  /// What NIO calls at the armed deadline, or when it cancels the callback.
  struct Callback: NIOScheduledCallbackHandler, Sendable {
    let driver: NIOHostDriver
    let generation: UInt64

    func handleScheduledCallback(eventLoop: some EventLoop) {
      driver.callbackFired(generation: generation)
    }

    func didCancelScheduledCallback(eventLoop: some EventLoop) {
      driver.callbackCancelled(generation: generation)
    }
  }
}
