// The clock read of the scheduler core, apart from CShims so that the core
// needs nothing of epoll, timerfd or eventfd. A C inline function rather than
// Swift: a Swift `timespec` passed by address gets a stack protector, and the
// larger read keeps the scheduler's `now` from inlining into a relative
// schedule (Benchmarks/RESULTS.md, the module split).
#ifndef CCLOCK_H
#define CCLOCK_H

#include <stdint.h>
#include <time.h>

/// `clockid` as nanoseconds since its epoch (boot for CLOCK_MONOTONIC and
/// CLOCK_BOOTTIME, 1970 for CLOCK_REALTIME). Never fails on Linux for the
/// clocks the loop passes.
static inline int64_t CClock_clock_gettime_ns(int clockid) {
  struct timespec ts;
  clock_gettime(clockid, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

#endif  // CCLOCK_H
