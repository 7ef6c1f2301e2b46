#if TIMERLOOP_FAULT_INJECTION
  import Glibc
  import Synchronization
  @_spi(TimerLoopHost) import TimerLoopCore

  /// The test-only seam under `retryingOnInterrupt`: makes chosen system
  /// calls fail with chosen errnos before they reach the kernel, the way
  /// swift-system's mocking driver does, so tests can show that `EMFILE`,
  /// `ENOMEM`, `EAGAIN` or a storm of `EINTR` gives a clear error or a
  /// documented recovery. Compiled only in debug builds.
  ///
  /// Faults belong to the thread that armed them, kept in thread-specific
  /// storage that dies with the thread, so tests running in parallel, loops
  /// on other threads and later threads reusing a thread id are unaffected.
  /// To fault a loop's own calls (`epoll_wait`, `timerfd_settime`), arm them
  /// from a closure running on the loop.
  enum FaultInjection {
    private final class Plan {
      var errnos: [String: ArraySlice<Int32>] = [:]
    }

    /// Skips the thread-specific lookup until some test arms a fault.
    private static let isArmed = Atomic<Bool>(false)

    private static let key: pthread_key_t = {
      var key = pthread_key_t()
      let created = pthread_key_create(&key) { plan in
        Unmanaged<Plan>.fromOpaque(plan!).release()
      }
      precondition(created == 0, "no pthread keys left")
      return key
    }()

    private static var plan: Plan? {
      pthread_getspecific(key).map { Unmanaged<Plan>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The next `errnos.count` calls of `syscall` on this thread fail, in order.
    static func inject(_ errnos: [Int32], into syscall: String) {
      let plan =
        plan
        ?? {
          let plan = Plan()
          pthread_setspecific(key, Unmanaged.passRetained(plan).toOpaque())
          return plan
        }()
      plan.errnos[syscall, default: []] += errnos
      isArmed.store(true, ordering: .releasing)
    }

    /// Forgets every fault armed on this thread.
    static func reset() {
      plan?.errnos = [:]
    }

    /// The errno the next call of `syscall` on this thread must fail with, if any.
    static func take(_ syscall: String) -> Int32? {
      guard isArmed.load(ordering: .acquiring), let plan else { return nil }
      return plan.errnos[syscall]?.popFirst()
    }
  }
#endif
