import Glibc
import TimerLoop

/// One listening socket on one loop, bound with `SO_REUSEPORT` so that every
/// loop of the group has its own and the kernel spreads connections over them.
///
/// Not `Sendable`: it lives on its loop thread, like the timer that pauses
/// accepting (scheduled through the loop's isolated view).
final class Listener {
  private let loop: EpollEventLoop
  private let config: ServerConfig
  private let stats: ServerStats
  private let fd: CInt
  private var registration: DescriptorRegistration?

  /// Opens, binds and listens on 127.0.0.1:`config.port`.
  init(loop: EpollEventLoop, config: ServerConfig, stats: ServerStats) throws {
    self.loop = loop
    self.config = config
    self.stats = stats
    fd = socket(
      AF_INET,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemError(syscall: "socket", errno: errno) }
    var on: CInt = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<CInt>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = config.port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 4096) == 0 else {
      let code = errno
      Glibc.close(fd)
      throw SystemError(syscall: "bind/listen", errno: code)
    }
  }

  /// Starts accepting. Loop thread only.
  func start() throws {
    registration = try loop.register(fd, for: .readable) { [self] _ in acceptAll() }
  }

  private func acceptAll() {
    while true {
      let client = accept(fd, nil, nil)
      if client >= 0 {
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var on: CInt = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<CInt>.size))
        let connection = Connection(fd: client, loop: loop, config: config, stats: stats)
        do {
          try connection.start()
          stats.accepted.add(1, ordering: .relaxed)
        } catch {
          Glibc.close(client)
        }
        continue
      }
      switch errno {  // read at once: nothing between accept and here sets it
      case EINTR, ECONNABORTED:
        continue
      case EMFILE, ENFILE, ENOBUFS, ENOMEM:
        // Out of descriptors: keep serving the connections we have, stop
        // accepting for a moment (the listener stays readable, so watching it
        // now would spin), and try again.
        stats.acceptPauses.add(1, ordering: .relaxed)
        try? registration?.setInterest([])
        _ = try? loop.assumeIsolated().schedule(after: .milliseconds(100)) { [self] in
          try? registration?.setInterest(.readable)
        }
        return
      default:
        return  // EAGAIN: nothing more to accept
      }
    }
  }
}
