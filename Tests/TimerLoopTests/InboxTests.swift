import Dispatch
import Testing

@testable import TimerLoop

/// The requests other threads send: what a burst of them leaves behind.
@Suite struct InboxTests {
  /// A burst of requests from another thread (schedule + cancel pairs and
  /// tasks) leaves no peak-sized buffer behind once the loop has taken it in.
  @Test func aBurstOfRequestsLeavesItsPeakCapacityBehind() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let burst = 20_000
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      for _ in 0..<burst {
        (try? loop.schedule(after: .seconds(1)) {})?.cancel()
        try? loop.execute {}
      }
      sent.signal()
    }
    #expect(sent.wait(timeout: .now() + .seconds(60)) == .success)
    #expect(loop.scheduler.testsOnly_inboxCapacity >= 3 * burst)
    // A second pass in the same call, so the task buffer the burst ran from
    // is swapped back into the table.
    try loop.schedule(after: .milliseconds(1)) {}
    loop.advanceTime(by: .milliseconds(1))
    #expect(loop.scheduler.testsOnly_taskCapacity <= TimerScheduler.keptCapacity)
    loop.advanceTime(by: .milliseconds(1))  // a quiet pass after the burst
    #expect(loop.scheduler.testsOnly_inboxCapacity <= TimerScheduler.keptCapacity)
    #expect(loop.liveTimerCount == 0)
  }
}
