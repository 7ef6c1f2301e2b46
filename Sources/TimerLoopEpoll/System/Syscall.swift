import CShims
@_spi(TimerLoopHost) import TimerLoopCore

/// Calls `body`, a system call that returns -1 and sets `errno` on failure,
/// until it does not fail with `EINTR`.
///
/// Every system call of the loop goes through here (SwiftNIO's `syscall` helper,
/// swift-system's `valueOrErrno`). Retrying is safe for everything the loop
/// calls: `epoll_wait` waits either not at all or with no timeout (deadlines
/// live in the absolute timerfd), so a retry never stretches a deadline.
/// `close` is not routed here: after `EINTR` Linux has already closed the fd.
///
/// `@inline(never)`: inlined into a caller, ARC traffic between the call and
/// the `errno` read could overwrite `errno`.
///
/// In debug builds (`TIMERLOOP_FAULT_INJECTION`) a test can make the call
/// fail first with errnos of its choice (``FaultInjection``); release builds
/// carry no trace of that seam.
///
/// - Throws: ``SystemError`` with `name` and the errno for any other failure.
@inline(never)
func retryingOnInterrupt<Result: FixedWidthInteger>(
  _ name: String, _ body: () -> Result
) throws(SystemError) -> Result {
  while true {
    #if TIMERLOOP_FAULT_INJECTION
      if let injected = FaultInjection.take(name) {
        if injected == EINTR { continue }
        throw SystemError(syscall: name, errno: injected)
      }
    #endif
    let result = body()
    if result != -1 { return result }
    let code = CShims_errno()
    if code != EINTR { throw SystemError(syscall: name, errno: code) }
  }
}
