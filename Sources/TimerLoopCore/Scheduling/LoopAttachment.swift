/// State that a library built on TimerLoop keeps per loop and that must learn
/// when the loop shuts down. BlockTimers keeps its `Date` mapping and its live
/// timers in one, so that a shutdown ends every timer at once.
///
/// `package`: shared by this package's modules, not public API.
package protocol LoopAttachment: AnyObject, Sendable {
  /// Called once, when the loop shuts down, on the thread whose call shut it
  /// down: the caller of `shutdown()`, the loop's thread when a failing system
  /// call stops it, or the thread releasing a loop that never ran. It runs
  /// after the loop has stopped taking work (scheduling throws
  /// ``TimerLoopError/shutdown``), outside every lock of the scheduler, and
  /// before the `shutdown()` call that shut the loop down returns (a
  /// concurrent second call does not wait for it), so it may cancel timers
  /// and release closures whose `deinit` calls back into the loop.
  func loopDidShutDown()
}

/// The attachments of one loop, by type: one per library built on the loop,
/// so a short list searched in order, where a dictionary cost a hash per
/// lookup (BlockTimers looks its attachment up for every timer it schedules).
struct LoopAttachments {
  var byType: [(type: ObjectIdentifier, attachment: any LoopAttachment)] = []
  var isShutDown = false
}

extension TimerScheduler {
  /// The loop's attachment of type `A`, made by `make` the first time it is
  /// asked for; the scheduler holds it as long as it lives. Safe from any
  /// thread; O(1). One made after shutdown is told so before it is returned.
  package func attachment<A: LoopAttachment>(_ make: () -> A) -> A {
    // Keyed by its type, so the one found is an `A`: a downcast, not a dynamic cast.
    unsafeDowncast(attachment(ObjectIdentifier(A.self), make), to: A.self)
  }

  /// ``attachment(_:)`` by key. Not generic: this module's generics are not
  /// specialised for another module's types, and an unspecialised lock costs
  /// a metadata lookup per call.
  private func attachment(
    _ key: ObjectIdentifier, _ make: () -> any LoopAttachment
  ) -> any LoopAttachment {
    let (attachment, made, isShutDown) = attachments.withLock { attachments in
      if let existing = attachments.byType.first(where: { $0.type == key }) {
        return (existing.attachment, false, attachments.isShutDown)
      }
      let made = make()
      attachments.byType.append((key, made))
      return (made, true, attachments.isShutDown)
    }
    if made && isShutDown { attachment.loopDidShutDown() }
    return attachment
  }

  /// Tells every attachment that the loop has shut down. Called once, by the
  /// ``shutdown()`` that shut it down, after the inbox lock is released.
  func notifyAttachmentsOfShutdown() {
    let notified = attachments.withLock { attachments in
      attachments.isShutDown = true
      return attachments.byType.map(\.attachment)
    }
    for attachment in notified { attachment.loopDidShutDown() }
  }
}
