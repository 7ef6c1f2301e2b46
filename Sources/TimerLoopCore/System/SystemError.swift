import Glibc

/// A system call failed. Carries the call's name and its `errno`.
///
/// Thrown by the loop for failures it cannot recover from, such as
/// `epoll_create1` running out of descriptors (`EMFILE`).
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The name of the failing call, for example `"timerfd_create"`.
  public let syscall: String
  /// The `errno` value the call set.
  public let errno: Int32

  /// An error for `syscall` failing with `errno`.
  public init(syscall: String, errno: Int32) {
    self.syscall = syscall
    self.errno = errno
  }

  /// `"<call> failed: <strerror> (errno N)"`, for logs.
  public var description: String {
    "\(syscall) failed: \(String(cString: strerror(errno))) (errno \(errno))"
  }
}
