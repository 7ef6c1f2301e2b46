import Glibc

/// The handlers of a loop's handler timers (``TimerHandler``), each held once
/// however many timers it serves: a timer's row names its handler by a 32-bit
/// index here instead of holding a 16-byte reference, and arming or ending a
/// timer of a handler already held changes a count instead of its reference
/// count (an atomic operation). A handler is released when its last timer
/// ends, by whoever ends it, after the table change (as a closure is).
///
/// Only a handler armed twice in a row is registered: a million timers of
/// one handler, the pattern handler timers are for, take one comparison each
/// to find it. A timer whose handler differs from the previous arm's holds
/// its handler itself (``TimerBody/object(_:)``), as each timer did before
/// the registry: handlers that serve one timer each (a connection that is its
/// own handler) cost no lookup and no entry. Loop thread only.
struct HandlerRegistry: ~Copyable {
  /// Per entry, its handler, held while the entry's `timers` count is above
  /// zero (but for the calls of ``take(_:)``); `count` of them, in room for
  /// `capacity`, like `timers`. Apart from the counts so that taking a
  /// handler out and putting it back are a move each, with no release of
  /// the `nil` they replace.
  private var handlers = UnsafeMutablePointer<(any TimerHandler)?>(
    bitPattern: MemoryLayout<(any TimerHandler)?>.alignment)!
  /// Per entry, the ``TimerBody/handler(_:)`` values naming it: one per live
  /// timer, its row's or, while it fires, the firing's.
  private var timers = UnsafeMutablePointer<UInt32>(bitPattern: MemoryLayout<UInt32>.alignment)!
  private var count = 0
  private var capacity = 0
  /// Indices of entries that hold no handler, reused first.
  private var freeIndices: [UInt32] = []
  /// The handler of the previous ``register(_:)``, and its entry, or
  /// ``unregistered`` while it has none. Only a hint while it has none: that
  /// handler may have gone, and another taken its address, which then
  /// registers itself.
  private var last: ObjectIdentifier?
  private var lastIndex = unregistered
  static let unregistered = UInt32.max

  init() {}

  deinit {
    guard capacity > 0 else { return }
    handlers.deinitialize(count: count)
    free(handlers)
    free(timers)
  }

  /// The index of `handler`'s entry, counting one more timer on it, if it
  /// is the handler of the previous call; `nil` otherwise (the timer is to
  /// hold it itself). O(1).
  @inline(__always)
  mutating func register(_ handler: borrowing any TimerHandler) -> UInt32? {
    let identity = ObjectIdentifier(handler)
    guard identity == last else {
      last = identity
      lastIndex = Self.unregistered
      return nil
    }
    guard lastIndex == Self.unregistered else {
      timers[Int(lastIndex)] &+= 1
      return lastIndex
    }
    return add(handler)
  }

  /// A new entry for `handler`, with one timer.
  @inline(never)
  private mutating func add(_ handler: borrowing any TimerHandler) -> UInt32 {
    let index: UInt32
    if let reused = freeIndices.popLast() {
      index = reused
    } else {
      if count == capacity {
        var room = capacity
        UnsafeMutablePointer.growByDoubling(&handlers, capacity: &room, of: "timer handlers")
        UnsafeMutablePointer.growByDoubling(&timers, capacity: &capacity, of: "timer handlers")
      }
      (handlers + count).initialize(to: nil)
      index = UInt32(count)
      count += 1
    }
    handlers[Int(index)] = copy handler
    timers[Int(index)] = 1
    lastIndex = index
    return index
  }

  /// Counts one timer less on entry `index`; returns the handler if that was
  /// its last, for the caller to release once it has stopped touching the
  /// table (a `deinit` may call back in).
  ///
  /// An index beyond the entries is ignored: the body of a timer whose
  /// callback released the table (a virtual loop shut down from its callback)
  /// names an entry of the released registry, and the new one has none, since
  /// nothing registers after shutdown.
  @inline(__always)
  mutating func unregister(_ index: UInt32) -> (any TimerHandler)? {
    guard Int(index) < count else { return nil }
    timers[Int(index)] &-= 1
    guard timers[Int(index)] == 0 else { return nil }
    return remove(index)
  }

  @inline(never)
  private mutating func remove(_ index: UInt32) -> (any TimerHandler)? {
    if lastIndex == index {
      last = nil
      lastIndex = Self.unregistered
    }
    freeIndices.append(index)
    return handlers[Int(index)].take()
  }

  /// Takes the handler of entry `index` out for a call, to be put back with
  /// ``putBack(_:at:)``: a call through the stored reference would retain and
  /// release it around the call (two atomic operations per firing), a call
  /// on a local that owns it neither. The entry cannot end meanwhile: the
  /// caller's ``TimerBody/handler(_:)`` value counts as one of its timers.
  @inline(__always)
  mutating func take(_ index: UInt32) -> any TimerHandler {
    let handler = (handlers + Int(index)).move()
    (handlers + Int(index)).initialize(to: nil)
    return handler.unsafelyUnwrapped
  }

  /// Puts back the handler ``take(_:)`` took out of entry `index`, over the
  /// `nil` it left, which needs no release.
  @inline(__always)
  mutating func putBack(_ handler: consuming any TimerHandler, at index: UInt32) {
    (handlers + Int(index)).initialize(to: consume handler)
  }
}
