// The wrappers are `static inline` in include/CShims.h, except those that need
// _GNU_SOURCE to be declared at all. This file also checks, at build time, the
// assumptions the Swift side makes about the kernel's types.
#ifndef _GNU_SOURCE
#error "CShims must be built with _GNU_SOURCE (set in Package.swift)"
#endif

#include "CShims.h"

_Static_assert(sizeof(eventfd_t) == 8, "eventfd counters are 64-bit");
_Static_assert(sizeof(time_t) == 8, "the loop converts nanoseconds to a 64-bit time_t");

int CShims_pthread_setname_np(pthread_t thread, const char *name) {
  return pthread_setname_np(thread, name);
}
