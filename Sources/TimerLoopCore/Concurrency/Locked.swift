import Synchronization

/// A `Mutex` whose hand-overs ThreadSanitizer can see.
///
/// On Linux, `Synchronization.Mutex` passes a contended lock from one thread to
/// the next inside the kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer cannot
/// see it, so every contended critical section is reported as a data race
/// (swiftlang/swift's Linux `Mutex` implementation; reproduced with a 20-line
/// program). Each critical section here ends with a release store to `epoch`
/// and begins with an acquire load of it: real synchronization that the mutex
/// already implies, made visible to the sanitizer, for two plain moves on
/// x86-64. Everything else is `Mutex`'s: use it exactly like one.
///
/// Shared by this package's modules and tests, not public API: public and
/// left out of the documentation rather than `package`, because the compiler
/// specialises an `@inlinable` generic for another module only when it is
/// public; a `package` one ran every other module's critical section through
/// the unspecialised generic (a metadata lookup per call).
@_documentation(visibility: internal)
public struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
  // @unchecked: exactly Mutex's own conformance (it is Sendable for any
  // Value: ~Copyable); the Atomic is Sendable.
  @usableFromInline let mutex: Mutex<Value>
  @usableFromInline let epoch = Atomic<Int>(0)

  @inlinable
  public init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
  }

  /// Runs `body` with exclusive access to the value; see `Mutex.withLock`.
  @inlinable
  public borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      _ = epoch.load(ordering: .acquiring)
      defer { epoch.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }

  /// Runs `body` with exclusive access to the value if the lock is free now,
  /// without waiting; `nil` if another thread holds it. See
  /// `Mutex.withLockIfAvailable`.
  @inlinable
  public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result? {
    try mutex.withLockIfAvailable { (value: inout sending Value) throws(E) -> sending Result in
      _ = epoch.load(ordering: .acquiring)
      defer { epoch.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}
