import Glibc
import TimerLoop

/// One keep-alive connection: reads requests (up to the blank line that ends
/// the header; bodies are not supported), answers each with a fixed 200, and
/// closes on end of stream, on error, after the idle timeout, or when a
/// started request misses its deadline.
///
/// Not `Sendable`: it lives on the loop thread that accepted it. Its timers
/// capture it through the loop's isolated view (`assumeIsolated()`), whose
/// closures run on that thread too.
final class Connection {
  enum CloseReason { case peer, idle, deadline }

  private static let response = Array(
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\n\r\nok"
      .utf8)
  private static let endOfHeader = Array("\r\n\r\n".utf8)
  /// A header longer than this is not a request we serve.
  private static let maximumHeader = 16 * 1024
  /// Reads of 4 KiB per wake-up, at most (SwiftNIO's `maxMessagesPerRead`).
  private static let readsPerWakeUp = 16
  /// Pending output beyond which the connection stops reading.
  private static let outputHighWater = 64 * 1024

  private let fd: CInt
  private let loop: EpollEventLoop
  private let config: ServerConfig
  private let stats: ServerStats
  private var registration: DescriptorRegistration?
  private var idleTimer: TimerHandle?
  private var requestTimer: TimerHandle?
  private var input: [UInt8] = []
  private var output: [UInt8] = []
  private var lastRequest = Deadline.now()
  private var closed = false

  init(fd: CInt, loop: EpollEventLoop, config: ServerConfig, stats: ServerStats) {
    self.fd = fd
    self.loop = loop
    self.config = config
    self.stats = stats
  }

  /// Starts watching the socket and the idle timeout. Loop thread only.
  func start() throws {
    registration = try loop.register(fd, for: .readable) { [self] readiness in
      handle(readiness)
    }
    idleTimer = try loop.assumeIsolated().schedule(after: config.idleTimeout) { [self] in
      close(.idle)
    }
    stats.open.add(1, ordering: .relaxed)
  }

  private func handle(_ readiness: Readiness) {
    if readiness.contains(.writable) { flush() }
    if readiness.contains(.readable) { readAvailable() }
    if readiness.contains(.hangUp) && !closed { close(.peer) }
  }

  /// Reads what is available, up to a budget per wake-up so that one busy
  /// client cannot hold the loop thread (level-triggered readiness brings the
  /// rest on the next wake-up), then serves every complete request.
  private func readAvailable() {
    var chunk = [UInt8](repeating: 0, count: 4096)
    var endOfStream = false
    for _ in 0..<Self.readsPerWakeUp where !closed && !endOfStream {
      let (count, code) = chunk.withUnsafeMutableBytes { buffer in
        let count = read(fd, buffer.baseAddress, buffer.count)
        return (count, errno)
      }
      if count > 0 {
        input.append(contentsOf: chunk[..<count])
      } else if count == 0 {
        endOfStream = true  // the peer closed or half-closed: answer what came, then close
      } else if code == EAGAIN {
        break
      } else if code != EINTR {
        close(.peer)  // reset or error
      }
    }
    guard !closed else { return }
    serveCompleteRequests()
    if endOfStream { close(.peer) }
  }

  private func serveCompleteRequests() {
    // One pass from a moving start, one compaction at the end: linear in the input.
    var start = input.startIndex
    while let end = input[start...].firstRange(of: Self.endOfHeader) {
      start = end.upperBound
      output.append(contentsOf: Self.response)
      stats.requests.add(1, ordering: .relaxed)
      // The idle timeout restarts with every request: the pattern under test.
      lastRequest = loop.now
      idleTimer?.reschedule(after: config.idleTimeout)
      stats.rearms.add(1, ordering: .relaxed)
      requestTimer?.cancel()
      requestTimer = nil
    }
    input.removeSubrange(..<start)
    if input.count > Self.maximumHeader {
      close(.peer)  // not a request we serve
      return
    }
    if !input.isEmpty && requestTimer == nil {
      // A request has started: it must complete before its deadline.
      requestTimer = try? loop.assumeIsolated().schedule(after: config.requestDeadline) {
        [self] in
        close(.deadline)
      }
    }
    flush()
  }

  /// Writes what is pending. While the socket is full it waits for
  /// writability, and while more than `outputHighWater` bytes wait it stops
  /// reading: a client that sends without reading cannot grow our memory.
  private func flush() {
    while !output.isEmpty && !closed {
      let (written, code) = output.withUnsafeBytes { buffer in
        let written = write(fd, buffer.baseAddress, buffer.count)
        return (written, errno)
      }
      if written > 0 {
        output.removeFirst(written)
      } else if code == EAGAIN {
        break
      } else if code != EINTR {
        close(.peer)
      }
    }
    guard !closed else { return }
    let interest: Readiness =
      output.isEmpty
      ? .readable : output.count > Self.outputHighWater ? .writable : [.readable, .writable]
    try? registration?.setInterest(interest)
  }

  private func close(_ reason: CloseReason) {
    guard !closed else { return }
    closed = true
    try? registration?.deregister()
    idleTimer?.cancel()
    requestTimer?.cancel()
    Glibc.close(fd)
    stats.open.subtract(1, ordering: .relaxed)
    switch reason {
    case .peer:
      stats.closedByPeer.add(1, ordering: .relaxed)
    case .idle:
      stats.closedIdle.add(1, ordering: .relaxed)
      if loop.now - lastRequest < config.idleTimeout {
        stats.closedIdleEarly.add(1, ordering: .relaxed)
      }
    case .deadline:
      stats.closedDeadline.add(1, ordering: .relaxed)
    }
  }
}
