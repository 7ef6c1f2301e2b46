import Glibc

extension UnsafeMutablePointer {
  /// Doubles the room of a buffer that `realloc` owns (64 elements at first),
  /// for the loop's hot buffers: the wheel's rows, the near queue's run and a
  /// pass's due timers. Behind a pointer rather than in an array, an append
  /// costs no uniqueness check, and glibc serves a large block's growth from
  /// `mremap`: it moves without being copied, and no freed block stays
  /// resident as a copying array's would. Elements are moved bitwise, which
  /// Swift allows for the closures and references they hold.
  ///
  /// - Parameters:
  ///   - buffer: the buffer; any pointer while `capacity` is 0 (it is not
  ///     handed to `realloc` then).
  ///   - capacity: its room, in elements; doubled.
  ///   - what: names the elements in the message of the trap that ends the
  ///     process when memory runs out.
  @inline(never)
  static func growByDoubling(
    _ buffer: inout UnsafeMutablePointer<Pointee>, capacity: inout Int, of what: StaticString
  ) {
    let newCapacity = Swift.max(64, capacity * 2)
    let raw = realloc(
      capacity > 0 ? UnsafeMutableRawPointer(buffer) : nil,
      newCapacity * MemoryLayout<Pointee>.stride)
    guard let raw else { fatalError("out of memory for \(newCapacity) \(what)") }
    buffer = raw.bindMemory(to: Pointee.self, capacity: newCapacity)
    capacity = newCapacity
  }
}
