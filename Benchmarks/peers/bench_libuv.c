/* The workloads of bench.h on libuv: uv_timer_t on uv_default_loop().
 *
 * libuv counts timeouts in whole milliseconds from its cached loop time (uv_now), which it
 * takes from CLOCK_MONOTONIC on Linux. uv_timer_again re-arms a timer to uv_now + its repeat;
 * a repeating timer is re-armed from the loop time at firing, not from its previous due time,
 * so under load its schedule drifts from jitter's grid (the workload measures against the
 * grid).
 */
#define PEER_NAME "libuv"
#define PEER_RESOLUTION_NS MS
#include "bench.h"

#include <uv.h>

static uv_loop_t *loop;
static uv_timer_t *timers;

static void on_timer(uv_timer_t *timer) { timer_fired(timer - timers); }

static void peer_loop_init(void) { loop = uv_default_loop(); }

static void peer_alloc_timers(long n) { timers = zeroed((size_t)n, sizeof *timers); }

static void peer_update_time(void) { uv_update_time(loop); }

static uint64_t peer_time(void) { return uv_now(loop) * MS; }

static void peer_arm(long i, uint64_t delay, uint64_t repeat) {
  uv_timer_init(loop, &timers[i]);
  uv_timer_start(&timers[i], on_timer, delay / MS, repeat / MS);
}

static void peer_again(long i) { uv_timer_again(&timers[i]); }

static void peer_stop(long i) { uv_timer_stop(&timers[i]); }

static void peer_run(void) { uv_run(loop, UV_RUN_DEFAULT); }

static const char *peer_version(void) { return uv_version_string(); }
