// The read is `static inline` in include/CClock.h; SwiftPM builds a C target
// from at least one source file.
#include "CClock.h"

_Static_assert(sizeof(time_t) == 8, "nanoseconds since the epoch fit a 64-bit time_t");
