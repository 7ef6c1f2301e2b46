import CShims
@_spi(TimerLoopHost) import TimerLoopCore

/// What a registered file descriptor is ready for, or what a registration
/// waits for: the loop's view of `epoll`'s event mask.
public struct Readiness: OptionSet, Hashable, Sendable {
  /// One bit per kind of readiness.
  public let rawValue: UInt8
  /// The readiness whose bits are `rawValue`.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Data can be read, or the peer has closed (`EPOLLIN`, `EPOLLRDHUP`).
  public static let readable = Readiness(rawValue: 1 << 0)
  /// Data can be written (`EPOLLOUT`).
  public static let writable = Readiness(rawValue: 1 << 1)
  /// The descriptor hung up or has an error pending (`EPOLLHUP`, `EPOLLERR`).
  /// Always reported, whatever the interest; a read or write shows which.
  public static let hangUp = Readiness(rawValue: 1 << 2)

  /// The epoll mask that waits for `self` under `mode`.
  func epollEvents(_ mode: TriggerMode) -> UInt32 {
    var events: UInt32 = 0
    if contains(.readable) { events |= CShims_EPOLLIN() | CShims_EPOLLRDHUP() }
    if contains(.writable) { events |= CShims_EPOLLOUT() }
    if mode == .edge { events |= CShims_EPOLLET() }
    return events
  }

  /// The readiness an epoll event mask reports.
  init(epollEvents events: UInt32) {
    var readiness: Readiness = []
    if events & (CShims_EPOLLIN() | CShims_EPOLLRDHUP()) != 0 { readiness.insert(.readable) }
    if events & CShims_EPOLLOUT() != 0 { readiness.insert(.writable) }
    if events & (CShims_EPOLLHUP() | CShims_EPOLLERR()) != 0 { readiness.insert(.hangUp) }
    self = readiness
  }
}

/// How readiness is reported (epoll's two modes).
public enum TriggerMode: Hashable, Sendable {
  /// Reported on every wait while the descriptor stays ready (epoll's
  /// default): a handler may read only part of what is available.
  case level
  /// Reported once each time the descriptor becomes ready (`EPOLLET`): the
  /// handler must read or write until `EAGAIN`, or it will not hear again.
  case edge
}
