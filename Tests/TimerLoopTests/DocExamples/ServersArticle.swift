// swift-format-ignore-file
// The example of the article "Servers and embedding" (Servers.md), verbatim;
// DocExamplesAreCompiledTests checks that it still matches.
import Glibc
import TimerLoop

struct ServersArticle {
  /// Serves a connected, non-blocking socket on one of the group's loops.
  func serve(_ fd: CInt, on group: EpollEventLoopGroup) throws {
    let loop = group.next()   // round-robin
    try loop.execute {
      do {
        let idleTimer = try loop.schedule(after: .seconds(5)) { /* deregister, then close(fd) */ }
        let registration = try loop.register(fd, for: .readable) { readiness in
          // Read until EAGAIN (or a budget) and answer, then push the idle timeout out.
          // A read of 0 bytes, or .hangUp, means the peer closed: deregister, then close.
          idleTimer.reschedule(after: .seconds(5))
        }
        // To wait for room to write: try registration.setInterest([.readable, .writable])
        _ = registration
      } catch {
        close(fd)   // wrongThread, shutdown, or the SystemError of epoll_ctl
      }
    }
  }
}
