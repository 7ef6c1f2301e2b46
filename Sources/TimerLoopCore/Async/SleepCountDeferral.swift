import Glibc
import Synchronization

/// Holds back the count of the sleeps a job starts (``SleepingTasks``, which
/// ``TimerEventLoop/waitForSleepingTasks(atLeast:)`` waits on) until the job
/// has returned, that is until its task has suspended.
///
/// A sleep's timer is scheduled just before its task suspends. Counted at
/// once, a test could advance a virtual loop, and the sleep end, in between:
/// the task would then not suspend at all but go on on the thread that ran
/// the job, outside the loop's pass, in real time. For a `withDeadline`
/// operation started on the global executor
/// (``VirtualEventLoop/PassExecutor``), that let the deadline pass first
/// (1 run in 100 of `VirtualTimeoutTests`).
///
/// The deferral belongs to the thread running the job, kept in a pthread key.
enum SleepCountDeferral {
  /// The sleeps a job started, to count once it returns.
  private final class Started {
    var sleeps: [Sleep] = []
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no pthread keys left")
    return key
  }()

  /// How many threads are inside ``run(_:)``: while none is, ``defer(_:)``
  /// costs a sleep one relaxed load (a thread sees its own store).
  private static let running = Atomic<Int>(0)

  /// Runs `job`, counting the sleeps it starts once it has returned.
  static func run(_ job: () -> Void) {
    let started = Started()
    let previous = pthread_getspecific(key)
    pthread_setspecific(key, Unmanaged.passUnretained(started).toOpaque())
    running.add(1, ordering: .relaxed)
    job()
    running.subtract(1, ordering: .relaxed)
    pthread_setspecific(key, previous)
    for sleep in started.sleeps { sleep.countIfStillWaiting() }
  }

  /// Whether the job running on this thread holds back `sleep`'s count
  /// (then it is counted when the job returns).
  static func `defer`(_ sleep: Sleep) -> Bool {
    guard running.load(ordering: .relaxed) > 0, let started = pthread_getspecific(key) else {
      return false
    }
    Unmanaged<Started>.fromOpaque(started).takeUnretainedValue().sleeps.append(sleep)
    return true
  }
}
