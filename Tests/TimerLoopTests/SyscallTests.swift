import Glibc
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

@Suite struct SyscallTests {
  @Test func interruptedCallsAreRetried() throws {
    var calls = 0
    let result = try retryingOnInterrupt("fake") { () -> CInt in
      calls += 1
      if calls < 4 {
        errno = EINTR
        return -1
      }
      return 42
    }
    #expect(result == 42)
    #expect(calls == 4)
  }

  @Test func otherFailuresThrowTheErrnoAndTheCallsName() {
    var calls = 0
    #expect(throws: SystemError(syscall: "fake_call", errno: EMFILE)) {
      try retryingOnInterrupt("fake_call") { () -> CInt in
        calls += 1
        errno = EMFILE
        return -1
      }
    }
    #expect(calls == 1)
    #expect(SystemError(syscall: "epoll_wait", errno: EBADF).description.contains("epoll_wait"))
  }
}
