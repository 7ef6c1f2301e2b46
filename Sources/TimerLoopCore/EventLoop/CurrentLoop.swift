import Glibc

/// Which loop runs closures on the current thread, kept in a pthread key: an
/// ``EpollEventLoop`` inside its ``EpollEventLoop/run()``, a
/// ``VirtualEventLoop`` inside ``VirtualEventLoop/advanceTime(to:)``. Read by
/// code that schedules "on the loop I am called from" (BlockTimers).
@_spi(TimerLoopHost)
public enum CurrentLoop {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no pthread keys left")
    return key
  }()

  /// The loop current on this thread, if any.
  public static func get() -> AnyObject? {
    pthread_getspecific(key).map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
  }

  /// Makes `loop` current and returns the previous one. Unretained: the
  /// caller keeps `loop` alive until it calls ``restore(_:)``.
  public static func set(_ loop: AnyObject) -> UnsafeMutableRawPointer? {
    let previous = pthread_getspecific(key)
    pthread_setspecific(key, Unmanaged.passUnretained(loop).toOpaque())
    return previous
  }

  /// Makes `previous`, a value ``set(_:)`` returned, current again.
  public static func restore(_ previous: UnsafeMutableRawPointer?) {
    pthread_setspecific(key, previous)
  }
}
