@_spi(TimerLoopHost) import TimerLoopCore

/// File descriptor readiness on the loop, beside its timers: a server's
/// sockets and its idle timeouts on one thread, with one `epoll_wait`.
extension EpollEventLoop {
  /// Watches `fd` for `interest` and calls `handler` on the loop thread with
  /// what it is ready for (never more than `interest`, plus ``Readiness/hangUp``).
  /// Handlers run after the loop's wait returns, before its next timer pass,
  /// one at a time like every closure of the loop.
  ///
  /// Loop thread only (from a timer, task or handler of this loop). The loop
  /// does not own `fd`: deregister it before closing it. Closing a descriptor
  /// that is still registered is a programmer error: debug builds catch it at
  /// ``DescriptorRegistration/deregister()`` while the number is unused, but
  /// once the number is reused by a new descriptor that is registered too,
  /// the stale deregistration removes the new one (epoll knows descriptors by
  /// number). Shutting the loop down drops every registration (and releases
  /// the handlers) without closing anything.
  ///
  /// Level-triggered readiness stays reported while it holds: after the peer
  /// closes, ``Readiness/readable`` (end of stream) and ``Readiness/hangUp``
  /// keep coming until the handler deregisters or closes.
  ///
  /// - Parameters:
  ///   - fd: an open descriptor that `epoll` accepts (a socket, pipe, eventfd,
  ///     timerfd, terminal; not a regular file), not yet registered here.
  ///   - interest: what to be told about: ``Readiness/readable``,
  ///     ``Readiness/writable`` or both (``Readiness/hangUp`` is always reported).
  ///   - mode: ``TriggerMode/level`` (default) or ``TriggerMode/edge``.
  ///   - handler: runs on the loop thread with what `fd` is ready for.
  /// - Throws: ``TimerLoopError/wrongThread`` off the loop thread,
  ///   ``TimerLoopError/shutdown`` after shutdown, ``SystemError`` from
  ///   `epoll_ctl` (for example `EEXIST` for a descriptor already registered,
  ///   `EPERM` for a regular file).
  /// - Complexity: O(1) amortised, one `epoll_ctl`.
  public func register(
    _ fd: CInt, for interest: Readiness, mode: TriggerMode = .level,
    _ handler: @escaping (Readiness) -> Void
  ) throws -> DescriptorRegistration {
    guard inEventLoop else { throw TimerLoopError.wrongThread }
    guard !scheduler.isShutdown else { throw TimerLoopError.shutdown }
    let id = try selector.register(fd, interest: interest, mode: mode, handler: handler)
    return DescriptorRegistration(loop: self, id: id)
  }

  /// Runs the handlers of the descriptors the last wait found ready. One that
  /// an earlier handler of the same batch deregistered is skipped.
  func dispatchReadyDescriptors() {
    for (id, readiness) in selector.ready {
      guard let registration = selector.registry.registration(id),
        let handler = registration.handler
      else { continue }
      let reported = readiness.intersection(registration.interest.union(.hangUp))
      guard !reported.isEmpty else { continue }
      // Requests from other threads go first, as before every callback.
      scheduler.applyPendingRequestsBeforeCallback()
      handler(reported)
      if scheduler.isShutdown { return }
    }
  }
}

/// A descriptor registered with ``EpollEventLoop/register(_:for:mode:_:)``.
/// Loop thread only, like the registration itself. Once deregistered, every
/// call does nothing.
public struct DescriptorRegistration: Sendable {
  let loop: EpollEventLoop
  let id: UInt64

  /// Changes what the descriptor is watched for (one `epoll_ctl`).
  /// - Throws: ``TimerLoopError/wrongThread`` off the loop thread, ``SystemError``.
  public func setInterest(_ interest: Readiness) throws {
    guard loop.inEventLoop else { throw TimerLoopError.wrongThread }
    try loop.selector.setInterest(id, interest)
  }

  /// Stops watching the descriptor, at once: a readiness event for it still
  /// pending in the current batch is dropped. Safe inside its own handler and
  /// inside another handler of the same batch. Does not close the descriptor.
  /// - Throws: ``TimerLoopError/wrongThread`` off the loop thread;
  ///   ``SystemError`` if `epoll_ctl` fails (other than `EBADF` or `ENOENT`):
  ///   the descriptor then stays registered and its handler keeps being
  ///   called, so the loop never wakes for events nobody handles.
  public func deregister() throws {
    guard loop.inEventLoop else { throw TimerLoopError.wrongThread }
    _ = try loop.selector.deregister(id)  // the handler is released here
  }
}
