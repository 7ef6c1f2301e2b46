// Counts heap allocations of the whole process for timerloop-bench, by
// interposing malloc, calloc, realloc and posix_memalign / aligned_alloc in
// the executable and forwarding to glibc's own entry points. Every allocation
// goes through these: Swift objects, closure contexts, array storage and
// UnsafeMutablePointer.allocate alike. Counting is off until started, and
// then costs one relaxed atomic increment per allocation.
#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdint.h>

void CAllocationCounter_start(void);
/// Stops counting; returns the allocations since the last start.
int64_t CAllocationCounter_stop(void);
/// The allocations since the last start, while counting goes on.
int64_t CAllocationCounter_count(void);

#endif
