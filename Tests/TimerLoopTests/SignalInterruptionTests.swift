import Dispatch
import Glibc
import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// Counts SIGUSR1 deliveries; a signal handler can capture nothing.
private let signalsHandled = Atomic<Int>(0)

@Suite struct SignalInterruptionTests {
  /// A loop thread hit by a signal every millisecond, with a handler installed
  /// without `SA_RESTART` so that every blocked `epoll_wait` fails with `EINTR`,
  /// still fires a 300 ms timer while the storm goes on: the retry never
  /// restarts the wait from scratch (which would hold the timer until the
  /// signals stop) or stretches the deadline by the storm's length. The
  /// timer is scheduled once the loop has taken signals, and the storm lasts
  /// until it fires or a minute has passed, whatever the machine's load.
  @Test func timerFiresOnTimeWhileTheLoopThreadIsInterruptedEveryMillisecond() throws {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in signalsHandled.add(1, ordering: .relaxed) }
    action.sa_flags = 0  // no SA_RESTART
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    #expect(sigaction(SIGUSR1, &action, &previous) == 0)
    defer { sigaction(SIGUSR1, &previous, nil) }

    let loop = try EpollEventLoop.startOnNewThread(name: "signalled")
    defer { loop.shutdown() }
    let thread = Locked<pthread_t?>(nil)
    let ready = DispatchSemaphore(value: 0)
    try loop.execute {
      // The loop thread inherits the test runner's signal mask; let SIGUSR1 in.
      var mask = sigset_t()
      sigemptyset(&mask)
      sigaddset(&mask, SIGUSR1)
      pthread_sigmask(SIG_UNBLOCK, &mask, nil)
      thread.withLock { $0 = pthread_self() }
      ready.signal()
    }
    #expect(ready.wait(timeout: .now() + .seconds(30)) == .success)
    let target = try #require(thread.withLock { $0 })

    let fired = DispatchSemaphore(value: 0)
    let firedAt = Locked<Deadline?>(nil)
    var deadline: Deadline?
    let before = signalsHandled.load(ordering: .relaxed)
    // Pace the storm at ~1 ms; this is load, not synchronisation.
    let giveUp = Deadline.now() + .seconds(60)
    while fired.wait(timeout: .now() + .milliseconds(1)) == .timedOut, Deadline.now() < giveUp {
      pthread_kill(target, SIGUSR1)
      if deadline == nil, signalsHandled.load(ordering: .relaxed) - before >= 20 {
        let due = loop.now + .milliseconds(300)
        deadline = due
        try loop.schedule(at: due) {
          firedAt.withLock { $0 = .now() }
          fired.signal()
        }
      }
    }
    let scheduled = try #require(deadline, "the storm did not reach the loop")
    let lateness = try #require(firedAt.withLock { $0 }, "not fired during the storm") - scheduled
    #expect(lateness >= .zero)
    #expect(lateness < .seconds(30), "fired \(lateness) late under the signal storm")
  }
}
