/* The workloads of bench.h on libevent: evtimers (struct event, fd -1) on one event_base.
 *
 * Built three times. As `libevent`, timeouts go into libevent's timer min-heap, as a plain
 * evtimer_add does; the default base reads CLOCK_MONOTONIC_COARSE. As `libevent-ct`
 * (-DCOMMON_TIMEOUTS), every duration goes into one of libevent's common-timeout queues
 * (event_base_init_common_timeout): a FIFO list per duration, O(1) to re-arm, the fastest
 * idle-timeout structure among the peers. A base has at most 256 of them, so libevent-ct
 * cannot run `million` (1,000 durations). As `libevent-precise` (-DPRECISE_TIMER), the heap
 * on a base made with EVENT_BASE_FLAG_PRECISE_TIMER, which reads CLOCK_MONOTONIC and waits on
 * a timerfd, for microsecond timeouts. libevent has no leeway setting.
 *
 * A repeating timer is an EV_PERSIST event. libevent re-arms it from its previous deadline
 * with the duration of the latest event_add, so the first callback switches it from its
 * initial delay to its repeat (jitter's timers start at a phase, then repeat every 10 ms);
 * the grid is then the first firing's time plus multiples of the repeat.
 */
#if defined(COMMON_TIMEOUTS)
#define PEER_NAME "libevent-ct"
#elif defined(PRECISE_TIMER)
#define PEER_NAME "libevent-precise"
#else
#define PEER_NAME "libevent"
#endif
#define PEER_RESOLUTION_NS 1000 /* struct timeval: microseconds */
#include "bench.h"

#include <event2/event.h>
#include <event2/event_struct.h> /* struct event by value: one array of them, as libev's */

static struct event_base *base;
static struct event *timers;
static uint64_t *repeats;
static unsigned char *switched; /* repeating timer i now runs with its repeat */

static struct timeval timeval_of(uint64_t ns) {
  struct timeval tv = {.tv_sec = (time_t)(ns / SEC), .tv_usec = (suseconds_t)(ns % SEC / 1000)};
  return tv;
}

/* The timeout to pass to event_add for `ns`: in libevent-ct, when `common`, the queue for
 * that duration (created on first use and kept); otherwise a plain timeval in `plain`. */
static const struct timeval *timeout_for(uint64_t ns, int common, struct timeval *plain) {
  *plain = timeval_of(ns);
#ifdef COMMON_TIMEOUTS
  if (!common) return plain;
  static struct {
    uint64_t ns;
    const struct timeval *queue;
  } queues[256];
  static int count;
  for (int q = 0; q < count; q++)
    if (queues[q].ns == ns) return queues[q].queue;
  if (count == 256) {
    fprintf(stderr, "libevent-ct: more than 256 durations\n");
    exit(1);
  }
  queues[count].ns = ns;
  queues[count].queue = event_base_init_common_timeout(base, plain);
  return queues[count++].queue;
#else
  (void)common;
  return plain;
#endif
}

static void on_timer(evutil_socket_t fd, short what, void *argument) {
  (void)fd;
  (void)what;
  long i = (long)(intptr_t)argument;
  if (repeats[i] != 0 && !switched[i]) {
    struct timeval plain;
    switched[i] = 1;
    event_add(&timers[i], timeout_for(repeats[i], 1, &plain));
  }
  timer_fired(i);
}

static void peer_loop_init(void) {
#ifdef PRECISE_TIMER
  struct event_config *config = event_config_new();
  if (config == NULL || event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER) != 0) {
    fprintf(stderr, "libevent: event_config failed\n");
    exit(1);
  }
  base = event_base_new_with_config(config);
  event_config_free(config);
#else
  base = event_base_new();
#endif
  if (base == NULL) {
    fprintf(stderr, "libevent: event_base_new failed\n");
    exit(1);
  }
}

static void peer_alloc_timers(long n) {
  timers = zeroed((size_t)n, sizeof *timers);
  repeats = zeroed((size_t)n, sizeof *repeats);
  switched = zeroed((size_t)n, 1);
}

static void peer_update_time(void) { event_base_update_cache_time(base); }

/* libevent's cached time is wall-clock (event_base_gettimeofday_cached); a clock read just
 * after updating it is within a few hundred nanoseconds of its monotonic time. */
static uint64_t peer_time(void) { return now_ns(); }

static void peer_arm(long i, uint64_t delay, uint64_t repeat) {
  struct timeval plain;
  repeats[i] = repeat;
  event_assign(&timers[i], base, -1, repeat != 0 ? EV_PERSIST : 0, on_timer, (void *)(intptr_t)i);
  /* A queue per duration that repeats (a one-shot's, a re-arm's, a repeat's); jitter's
   * 10,000 initial phases stay plain. */
  event_add(&timers[i], timeout_for(delay, repeat == 0 || delay == repeat, &plain));
}

static void peer_again(long i) {
  struct timeval plain;
  event_add(&timers[i], timeout_for(repeats[i], 1, &plain));
}

static void peer_stop(long i) { event_del(&timers[i]); }

static void peer_run(void) { event_base_dispatch(base); }

static const char *peer_version(void) { return event_get_version(); }
