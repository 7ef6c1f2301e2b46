/// Names one timer: a table slot and its generation for timers scheduled on
/// the loop thread, or a ticket for timers scheduled from another thread
/// (whose slot is chosen later, when the loop takes the request).
@usableFromInline
struct TimerID: Hashable, Sendable {
  private static let remoteBit: UInt64 = 1 << 63
  let raw: UInt64

  /// The last generation an id can name: 31 bits, below the ticket bit. The
  /// table retires a slot rather than reuse it past this generation, so no two
  /// timers of one slot ever share an id.
  static let lastGeneration: UInt32 = 0x7FFF_FFFF

  static func local(slot: UInt32, generation: UInt32) -> TimerID {
    assert(generation <= lastGeneration, "slot \(slot) reused past its last generation")
    return TimerID(raw: UInt64(generation) << 32 | UInt64(slot))
  }

  static func remote(ticket: UInt64) -> TimerID {
    TimerID(raw: remoteBit | ticket)
  }

  var ticket: UInt64? { raw & Self.remoteBit != 0 ? raw & ~Self.remoteBit : nil }
  var slot: UInt32 { UInt32(truncatingIfNeeded: raw) }
  var generation: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
}
