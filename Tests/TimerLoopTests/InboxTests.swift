import Dispatch
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

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
  /// A burst fills the inbox array by array instead of growing one; the loop
  /// still applies it in the order of the calls, across the arrays' seams:
  /// each task runs in turn, and each cancel finds its timer already scheduled.
  @Test func aBurstSpanningSeveralArraysIsAppliedInOrder() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let count = 5 * TimerScheduler.keptCapacity + 7
    let ran = EventLog<Int>()
    let fired = EventLog<Int>()
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      for i in 0..<count {
        try? loop.execute { ran.append(i) }
        let handle = try? loop.schedule(after: .seconds(1)) { fired.append(i) }
        if i % 2 == 0 { handle?.cancel() }
      }
      sent.signal()
    }
    #expect(sent.wait(timeout: .now() + .seconds(60)) == .success)
    #expect(loop.scheduler.testsOnly_inboxCapacity >= 2 * count)
    loop.advanceTime(by: .seconds(1))
    #expect(ran.all == Array(0..<count))
    #expect(fired.all == Array(stride(from: 1, to: count, by: 2)))
    #expect(loop.liveTimerCount == 0)
  }

  /// Timers scheduled from another thread are named by tickets. Once most of
  /// them have ended and the table has swept their tickets out, the others are
  /// still found (moved, and fire), the ended ones' handles do nothing, and
  /// the ticket map holds no more than about twice the live timers.
  @Test func crossThreadTimersStayFoundAfterMostOthersEnd() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let count = 1_000
    let handles = Locked<[TimerHandle]>([])
    let fired = EventLog<Int>()
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      for i in 0..<count {
        guard let handle = try? loop.schedule(after: .seconds(Int64(i + 10)), { fired.append(i) })
        else { continue }
        handles.withLock { $0.append(handle) }
      }
      sent.signal()
    }
    #expect(sent.wait(timeout: .now() + .seconds(60)) == .success)
    loop.advanceTime(by: .zero)  // takes the requests in: every ticket gets a slot
    let all = handles.withLock { $0 }
    #expect(all.count == count)
    for (i, handle) in all.enumerated() where i % 10 != 0 { handle.cancel() }
    #expect(loop.liveTimerCount == count / 10)
    #expect(loop.scheduler.table.pointee.tickets.entries.count <= 2 * count / 10 + 64)
    for (i, handle) in all.enumerated() where i % 10 == 0 {
      handle.reschedule(to: loop.now + .milliseconds(Int64(count - i)))
    }
    for (i, handle) in all.enumerated() where i % 10 != 0 { handle.reschedule(to: loop.now) }
    loop.advanceTime(by: .seconds(1))
    #expect(fired.all == stride(from: count - 10, through: 0, by: -10).map { $0 })
    #expect(loop.liveTimerCount == 0)
    #expect(loop.scheduler.table.pointee.tickets.entries.count <= 64)
  }
}
