import Synchronization

/// Counters shared by every loop of the server, printed once a second.
final class ServerStats: Sendable {
  let requests = Atomic<Int>(0)
  /// Idle-timeout re-arms: one per read.
  let rearms = Atomic<Int>(0)
  let open = Atomic<Int>(0)
  let closedByPeer = Atomic<Int>(0)
  let closedIdle = Atomic<Int>(0)
  let closedDeadline = Atomic<Int>(0)
  /// Idle closes that came before the idle timeout had passed: must stay 0.
  let closedIdleEarly = Atomic<Int>(0)

  private let lastRequests = Atomic<Int>(0)
  private let lastRearms = Atomic<Int>(0)

  /// One line of counters; the per-second rates are since the previous line.
  func line() -> String {
    let requests = requests.load(ordering: .relaxed)
    let rearms = rearms.load(ordering: .relaxed)
    let requestRate = requests - lastRequests.exchange(requests, ordering: .relaxed)
    let rearmRate = rearms - lastRearms.exchange(rearms, ordering: .relaxed)
    return [
      "requests_per_s=\(requestRate)", "rearms_per_s=\(rearmRate)",
      "open=\(open.load(ordering: .relaxed))",
      "closed_peer=\(closedByPeer.load(ordering: .relaxed))",
      "closed_idle=\(closedIdle.load(ordering: .relaxed))",
      "closed_idle_early=\(closedIdleEarly.load(ordering: .relaxed))",
      "closed_deadline=\(closedDeadline.load(ordering: .relaxed))",
    ].joined(separator: " ")
  }
}
