// See include/CAllocationCounter.h. The same technique as SwiftNIO's
// allocation-counter tests: a definition of malloc in the executable wins
// symbol resolution over libc's, for every library in the process.
#define _GNU_SOURCE
#include "CAllocationCounter.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static bool counting;
static int64_t allocations;

static inline void count_one(void) {
  if (__atomic_load_n(&counting, __ATOMIC_RELAXED)) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
  }
}

void *malloc(size_t size) {
  count_one();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_one();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  count_one();
  return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  count_one();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_one();
  return __libc_memalign(alignment, size);
}

void CAllocationCounter_start(void) {
  __atomic_store_n(&allocations, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&counting, true, __ATOMIC_RELAXED);
}

int64_t CAllocationCounter_stop(void) {
  __atomic_store_n(&counting, false, __ATOMIC_RELAXED);
  return __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}

int64_t CAllocationCounter_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
