import CShims
import Glibc
@_spi(TimerLoopHost) import TimerLoopCore

/// The file descriptors a loop watches for readiness, and their handlers.
/// Owned by the loop's ``Selector`` and touched only on the loop thread.
///
/// A registration is named by `1 << 63 | generation << 32 | index`, the value
/// epoll hands back with each event (the loop's own timerfd and eventfd use
/// their descriptor numbers, which never have the top bit set). A slot's
/// generation changes when it is freed, so an event still pending in the batch
/// `epoll_wait` returned for a registration removed since (by an earlier
/// handler of the same batch) names no live registration and is dropped.
/// Generations are 31 bits wide; a slot whose registration had the last one
/// is retired rather than wrapped, as timer slots are (see `TimerTable.free`),
/// so a ``DescriptorRegistration`` kept from 2^31 registrations ago can never
/// act on a new one.
struct DescriptorRegistry {
  struct Registration {
    var fd: CInt = -1
    var generation: UInt32 = 0
    var interest: Readiness = []
    var mode = TriggerMode.level
    var handler: ((Readiness) -> Void)?
  }

  private static let registrationBit: UInt64 = 1 << 63
  static let lastGeneration: UInt32 = 0x7FFF_FFFF
  private var registrations: [Registration] = []
  private var freeIndices: [UInt32] = []

  static func isRegistration(_ data: UInt64) -> Bool { data & registrationBit != 0 }

  private static func decode(_ id: UInt64) -> (index: Int, generation: UInt32) {
    (Int(UInt32(truncatingIfNeeded: id)), UInt32(truncatingIfNeeded: id >> 32) & 0x7FFF_FFFF)
  }

  /// Adds `fd` with its handler; returns its id. The caller then tells epoll.
  mutating func add(
    _ fd: CInt, interest: Readiness, mode: TriggerMode, handler: @escaping (Readiness) -> Void
  ) -> UInt64 {
    let index: UInt32
    if let reused = freeIndices.popLast() {
      index = reused
    } else {
      index = UInt32(registrations.count)
      registrations.append(Registration())
    }
    registrations[Int(index)].fd = fd
    registrations[Int(index)].interest = interest
    registrations[Int(index)].mode = mode
    registrations[Int(index)].handler = handler
    let generation = registrations[Int(index)].generation & 0x7FFF_FFFF
    return Self.registrationBit | UInt64(generation) << 32 | UInt64(index)
  }

  /// The live registration `id` names, if any.
  func registration(_ id: UInt64) -> Registration? {
    let (index, generation) = Self.decode(id)
    guard index < registrations.count, registrations[index].handler != nil,
      registrations[index].generation & 0x7FFF_FFFF == generation
    else { return nil }
    return registrations[index]
  }

  mutating func setInterest(_ id: UInt64, _ interest: Readiness) {
    guard registration(id) != nil else { return }
    registrations[Self.decode(id).index].interest = interest
  }

  /// Frees `id`'s slot and returns the handler, for the caller to release
  /// once it is done with the registry.
  mutating func remove(_ id: UInt64) -> ((Readiness) -> Void)? {
    guard registration(id) != nil else { return nil }
    let index = Self.decode(id).index
    let handler = registrations[index].handler
    let generation = registrations[index].generation & Self.lastGeneration
    registrations[index] = Registration(generation: generation &+ 1)
    // A slot past its last generation is left out of the free list for good:
    // one unused row per 2^31 registrations made in it.
    if generation < Self.lastGeneration { freeIndices.append(UInt32(index)) }
    return handler
  }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// Sets the generation of the free slot at `index`, so a test can reach the
  /// last one without 2^31 registrations there.
  mutating func testsOnly_setGeneration(_ generation: UInt32, ofFreeIndex index: UInt32) {
    precondition(registrations[Int(index)].handler == nil && freeIndices.contains(index))
    registrations[Int(index)].generation = generation
  }
}
