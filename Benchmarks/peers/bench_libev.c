/* The workloads of bench.h on libev: ev_timer on the default loop, epoll backend.
 *
 * libev counts timeouts in seconds (a double) from its cached monotonic loop time, and re-arms
 * a repeating timer to its previous due time plus the repeat. ev_timer_again re-arms a timer
 * to the loop time plus its repeat.
 *
 * Its leeway setting is ev_set_timeout_collect_interval: every wait lasts at least that long.
 * On the epoll backend every wait already lasts at least 1 ms: libev passes epoll_wait its
 * timeout in whole milliseconds, rounded up, and never less than 1 ms (its backend_mintime),
 * so intervals below 1 ms change nothing there.
 */
#define PEER_NAME "libev"
#define PEER_RESOLUTION_NS 1
#define PEER_HAS_LEEWAY
#include "bench.h"

#include <ev.h>

static struct ev_loop *loop;
static ev_timer *timers;

static void on_timer(struct ev_loop *timer_loop, ev_timer *timer, int events) {
  (void)timer_loop;
  (void)events;
  timer_fired(timer - timers);
}

static void peer_loop_init(void) {
  loop = ev_default_loop(EVBACKEND_EPOLL);
  if (loop == NULL) {
    fprintf(stderr, "libev: no epoll backend\n");
    exit(1);
  }
}

static void peer_alloc_timers(long n) { timers = zeroed((size_t)n, sizeof *timers); }

static void peer_update_time(void) { ev_now_update(loop); }

/* libev keeps its monotonic loop time private (ev_now is wall-clock time); a clock read just
 * after ev_now_update is within a few hundred nanoseconds of it. */
static uint64_t peer_time(void) { return now_ns(); }

static void peer_arm(long i, uint64_t delay, uint64_t repeat) {
  ev_timer_init(&timers[i], on_timer, (double)delay / 1e9, (double)repeat / 1e9);
  ev_timer_start(loop, &timers[i]);
}

static void peer_again(long i) { ev_timer_again(loop, &timers[i]); }

static void peer_stop(long i) { ev_timer_stop(loop, &timers[i]); }

static void peer_run(void) { ev_run(loop, 0); }

static void peer_set_leeway(uint64_t ns) { ev_set_timeout_collect_interval(loop, (double)ns / 1e9); }

static const char *peer_version(void) {
  static char version[16];
  snprintf(version, sizeof version, "%d.%d", ev_version_major(), ev_version_minor());
  return version;
}
