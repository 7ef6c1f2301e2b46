import Dispatch
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore

/// A `VirtualEventLoop` whose last reference goes on another thread while
/// the task that holds it keeps moving and cancelling timers through their
/// handles, which change the table directly.
@Suite struct VirtualEventLoopReleaseTests {
  /// A `deinit` that released the table on the releasing thread (94086b9's,
  /// since reverted) did so while the holder rescheduled into it: a
  /// segmentation fault in `TimerWheel.file` in most runs (from an attack
  /// pass). Only the holder may change the table.
  @Test func releasingTheLoopOnAnotherThreadLeavesTheHoldersHandlesWorking() throws {
    for _ in 0..<40 {
      var loop: VirtualEventLoop? = VirtualEventLoop()
      var handles: [TimerHandle] = []
      for index in 0..<200 {
        handles.append(
          try loop!.scheduleRepeating(
            after: .milliseconds(index % 7), every: .milliseconds(1 + index % 5)
          ) { _ in })
        handles.append(try loop!.schedule(after: .milliseconds(index)) {})
      }
      loop!.advanceTime(by: .milliseconds(50))
      let last = Locked<VirtualEventLoop?>(loop)
      loop = nil
      let released = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        last.withLock { $0 = nil }
        released.signal()
      }
      for step in 0..<2_000 {
        let handle = handles[step % handles.count]
        if step.isMultiple(of: 2) {
          handle.reschedule(after: .milliseconds(step % 13))
        } else {
          handle.cancel()
        }
      }
      released.wait()
      // The loop is gone: the handles' calls do nothing.
      for handle in handles {
        handle.reschedule(after: .seconds(1))
        handle.cancel()
      }
    }
  }
}
