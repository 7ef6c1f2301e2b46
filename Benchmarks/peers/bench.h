/* The four timer workloads (million, churn, jitter, memory), written once against the small
 * timer interface below, which bench_libuv.c, bench_libev.c and bench_libevent.c implement for
 * their library. Each of them defines PEER_NAME and PEER_RESOLUTION_NS (and PEER_HAS_LEEWAY if
 * the library has a setting that lets timers fire late to save wake-ups), includes this file
 * once, and then defines the peer_* functions. Keeping everything in one translation unit lets gcc inline the
 * peer_* calls, so a workload's loop costs what it would cost written against the library
 * directly.
 *
 * Output: one line per metric, <peer>.<workload>.<metric>=<value> <unit>, the names and units
 * timerloop-bench prints. Times are CLOCK_MONOTONIC, CPU is getrusage(RUSAGE_SELF) user+sys,
 * resident memory is the second field of /proc/self/statm.
 */
#ifndef BENCH_H
#define BENCH_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if !defined(PEER_NAME) || !defined(PEER_RESOLUTION_NS)
#error "define PEER_NAME and PEER_RESOLUTION_NS before including bench.h"
#endif

#define MS 1000000ull     /* nanoseconds */
#define SEC 1000000000ull /* nanoseconds */

/* ---- The interface each peer implements ------------------------------------------------- */

static void peer_loop_init(void);
/* Storage for timers 0..<n, zeroed. Allocated inside `memory`'s measurement, as a user of
 * the library would allocate the timer structs it embeds. */
static void peer_alloc_timers(long n);
/* Refreshes the loop's cached time, which timeouts count from: one clock read. */
static void peer_update_time(void);
/* The cached time in CLOCK_MONOTONIC nanoseconds. */
static uint64_t peer_time(void);
/* Initialises timer i and arms it `delay` ns after the cached time, repeating every
 * `repeat` ns (0: once). Both are truncated to PEER_RESOLUTION_NS. */
static void peer_arm(long i, uint64_t delay, uint64_t repeat);
/* Re-arms pending timer i to the cached time plus its repeat: the idle-timeout reset. */
static void peer_again(long i);
static void peer_stop(long i);
/* Runs the loop until no timer is active. */
static void peer_run(void);
static const char *peer_version(void);
#ifdef PEER_HAS_LEEWAY
/* Lets the loop fire timers up to `ns` late so that it wakes less often (jitter's LEEWAY_US). */
static void peer_set_leeway(uint64_t ns);
#endif

/* The running workload's callback; the peer's timer callback calls it with the timer's
 * index. */
static void (*timer_fired)(long i);

/* ---- Measurement and output ------------------------------------------------------------- */

static const char *workload;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* Times the process blocked and gave up its core (ru_nvcsw): a one-thread loop's wake-ups. */
static long voluntary_switches(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw;
}

/* Resident bytes, or -1. Reads into a stack buffer: the reading must not grow the heap. */
static long resident_bytes(void) {
  char text[128];
  long pages = -1;
  int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return -1;
  ssize_t length = read(fd, text, sizeof text - 1);
  close(fd);
  if (length <= 0) return -1;
  text[length] = '\0';
  if (sscanf(text, "%*s %ld", &pages) != 1) return -1;
  return pages * sysconf(_SC_PAGESIZE);
}

static void emit_int(const char *metric, long long value, const char *unit) {
  printf("%s.%s.%s=%lld %s\n", PEER_NAME, workload, metric, value, unit);
}

static void emit_num(const char *metric, double value, int digits, const char *unit) {
  printf("%s.%s.%s=%.*f %s\n", PEER_NAME, workload, metric, digits, value, unit);
}

static void *zeroed(size_t count, size_t size) {
  void *memory = calloc(count, size);
  if (memory == NULL) {
    perror("calloc");
    exit(1);
  }
  return memory;
}

/* ---- million: N one-shot timers due 1 + i/1000 ms after one clock reading --------------- */

static struct {
  long n, fired, duplicates, order_violations, last_batch;
  unsigned char *seen;
  uint64_t last_firing;
} million;

static void million_fired(long i) {
  long batch = i / 1000;
  if (batch < million.last_batch) million.order_violations++;
  million.last_batch = batch;
  million.duplicates += million.seen[i];
  million.seen[i] = 1;
  if (++million.fired == million.n) million.last_firing = now_ns();
}

static void run_million(long n) {
  million.n = n;
  million.last_batch = -1;
  million.seen = zeroed((size_t)n, 1);
  timer_fired = million_fired;
  peer_alloc_timers(n);
  peer_update_time();
  uint64_t base = peer_time();
  uint64_t start = now_ns();
  for (long i = 0; i < n; i++) peer_arm(i, (uint64_t)(1 + i / 1000) * MS, 0);
  uint64_t end = now_ns();
  double cpu_at_end = cpu_seconds();
  peer_run();
  double cpu_at_run_end = cpu_seconds();

  double init_ns = (double)(end - start), run_ns = (double)(million.last_firing - end);
  double last_deadline_ns = (double)((uint64_t)(1 + (n - 1) / 1000) * MS);
  emit_int("n", n, "timers");
  emit_num("init_s", init_ns / 1e9, 4, "s");
  emit_num("run_s", run_ns / 1e9, 4, "s");
  emit_num("total_s", (init_ns + run_ns) / 1e9, 4, "s");
  emit_num("last_deadline_s", last_deadline_ns / 1e9, 4, "s");
  emit_num("init_ns_per_timer", init_ns / n, 1, "ns");
  emit_num("run_overhead_ns_per_timer", (run_ns - last_deadline_ns) / n, 1, "ns");
  /* Against the peer's own last due time: both peers count from their cached time. */
  emit_num("run_overhead_adj_ns_per_timer",
           ((double)million.last_firing - (double)(base + (uint64_t)last_deadline_ns)) / n, 1, "ns");
  emit_num("run_cpu_ns_per_timer", (cpu_at_run_end - cpu_at_end) * 1e9 / n, 1, "ns");
  emit_int("fired", million.fired, "timers");
  emit_int("order_violations", million.order_violations, "count");
  emit_int("duplicates", million.duplicates, "count");
  emit_int("ok", million.fired == n && million.duplicates == 0 && million.order_violations == 0,
           "bool");
}

/* ---- churn: C idle timeouts of 30 s, R resets, cancel all ------------------------------- */

static long churn_firings;

static void churn_fired(long i) {
  (void)i;
  churn_firings++;
}

static void run_churn(long c, long r) {
  timer_fired = churn_fired;
  peer_alloc_timers(c);
  /* Every arm and reset counts from a fresh clock reading, as in every implementation. The
   * repeat is what the libraries' "again" re-arms to. */
  uint64_t start = now_ns();
  for (long j = 0; j < c; j++) {
    peer_update_time();
    peer_arm(j, 30 * SEC, 30 * SEC);
  }
  uint64_t armed = now_ns();
  for (long k = 0; k < r; k++) {
    peer_update_time();
    /* 7919 is prime, so the stride visits every timer and defeats locality. */
    peer_again((long)((uint64_t)k * 7919 % (uint64_t)c));
  }
  uint64_t reset = now_ns();
  for (long j = 0; j < c; j++) peer_stop(j);
  uint64_t cancelled = now_ns();
  emit_int("c", c, "timers");
  emit_int("r", r, "resets");
  emit_num("arm_ns", (double)(armed - start) / c, 1, "ns");
  emit_num("reset_ns", (double)(reset - armed) / r, 1, "ns");
  emit_num("cancel_ns", (double)(cancelled - reset) / c, 1, "ns");
  emit_int("fired", churn_firings, "count");
}

/* ---- jitter: K repeating 10 ms timers on a 10 ms/K phase grid, S seconds ---------------- */

#define PERIOD (10 * MS)
#define LEAD (200 * MS) /* from init to the grid's origin, room to arm every timer */

static struct {
  uint64_t *first; /* ideal time of timer k's tick 0 */
  long *ticks;     /* timer k's callbacks so far: the m-th is charged to tick m */
  int64_t *lateness;
  size_t count, capacity;
  long overflow;
  uint64_t end;
} jitter;

static void jitter_fired(long k) {
  uint64_t now = now_ns();
  if (now >= jitter.end) {
    peer_stop(k);
    return;
  }
  uint64_t ideal = jitter.first[k] + (uint64_t)jitter.ticks[k]++ * PERIOD;
  if (jitter.count < jitter.capacity)
    jitter.lateness[jitter.count++] = (int64_t)now - (int64_t)ideal; /* negative: early */
  else
    jitter.overflow++;
}

static int compare_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The nearest-rank percentile `per_mille`/1000 of `sorted`. */
static int64_t nearest_rank(const int64_t *sorted, size_t count, size_t per_mille) {
  size_t rank = (count * per_mille + 999) / 1000;
  return sorted[(rank > 0 ? rank : 1) - 1];
}

static void run_jitter(long k, double seconds) {
  timer_fired = jitter_fired;
  peer_alloc_timers(k);
  jitter.first = zeroed((size_t)k, sizeof *jitter.first);
  jitter.ticks = zeroed((size_t)k, sizeof *jitter.ticks);
  jitter.capacity = (size_t)k * (size_t)(seconds * 100 + 2);
  jitter.lateness = zeroed(jitter.capacity, sizeof *jitter.lateness);
  uint64_t start = now_ns();
  peer_update_time();
  uint64_t origin = peer_time() + LEAD;
  jitter.end = origin + (uint64_t)(seconds * 1e9);
  for (long i = 0; i < k; i++) {
    /* The phase a peer can express: libuv's whole milliseconds quantise it. */
    uint64_t phase = (uint64_t)i * PERIOD / (uint64_t)k / PEER_RESOLUTION_NS * PEER_RESOLUTION_NS;
    jitter.first[i] = origin + phase;
    peer_arm(i, LEAD + phase, PERIOD);
  }
  double init_s = (double)(now_ns() - start) / 1e9;
  double cpu_at_init_end = cpu_seconds();
  long switches_at_init_end = voluntary_switches();
  peer_run();
  double cpu_s = cpu_seconds() - cpu_at_init_end;
  long switches = voluntary_switches() - switches_at_init_end;

  emit_int("k", k, "timers");
  emit_num("secs", seconds, 1, "s");
  emit_num("init_s", init_s, 4, "s");
  emit_int("firings", (long long)jitter.count + jitter.overflow, "count");
  emit_int("expected_firings", k * (long)(seconds * 100 + 0.5), "count");
  emit_int("sample_overflow", jitter.overflow, "count");
  size_t n = jitter.count;
  if (n > 0) {
    int64_t *sorted = jitter.lateness;
    qsort(sorted, n, sizeof *sorted, compare_int64);
    double sum = 0; /* a double: int64 could overflow on long runs of large lateness */
    for (size_t i = 0; i < n; i++) sum += (double)sorted[i];
    emit_num("min_us", (double)sorted[0] / 1e3, 1, "us");
    emit_num("mean_us", sum / (double)n / 1e3, 1, "us");
    emit_num("p50_us", (double)nearest_rank(sorted, n, 500) / 1e3, 1, "us");
    emit_num("p99_us", (double)nearest_rank(sorted, n, 990) / 1e3, 1, "us");
    emit_num("p999_us", (double)nearest_rank(sorted, n, 999) / 1e3, 1, "us");
    emit_num("max_us", (double)sorted[n - 1] / 1e3, 1, "us");
  }
  emit_num("cpu_s", cpu_s, 3, "s");
  emit_int("voluntary_switches", switches, "count");
}

/* ---- memory: resident growth for N one-shot timers due in 1 hour ------------------------ */

static void never_fired(long i) {
  fprintf(stderr, "memory: timer %ld fired\n", i);
  exit(1);
}

static void run_memory(long n) {
  timer_fired = never_fired;
  long before = resident_bytes();
  peer_alloc_timers(n);
  peer_update_time();
  for (long i = 0; i < n; i++) peer_arm(i, 3600 * SEC, 0);
  long after = resident_bytes();
  emit_int("n", n, "timers");
  emit_int("rss_before", before, "bytes");
  emit_int("rss_after", after, "bytes");
  emit_num("bytes_per_timer", (double)(after - before) / n, 1, "bytes");
}

/* ---- Command line ------------------------------------------------------------------------ */

static void usage(void) {
  fprintf(stderr,
          "usage: bench_%s million [N=1000000] | churn [C=100000] [R=2000000]\n"
          "       | jitter [K=10000] [SECONDS=3] [LEEWAY_US] | memory [N=1000000]\n",
          PEER_NAME);
#ifndef PEER_HAS_LEEWAY
  fprintf(stderr, "(%s has no leeway setting: jitter takes no LEEWAY_US)\n", PEER_NAME);
#endif
  exit(2);
}

/* Argument `index`, a number above 0 (or 0 too, with `zero_ok`), or `fallback` when absent. */
static double number_arg_from(int argc, char **argv, int index, double fallback, int zero_ok) {
  if (index >= argc) return fallback;
  char *end;
  double value = strtod(argv[index], &end);
  if (*end != '\0' || !(value > 0 || (zero_ok && value == 0))) usage();
  return value;
}

static double number_arg(int argc, char **argv, int index, double fallback) {
  return number_arg_from(argc, argv, index, fallback, 0);
}

int main(int argc, char **argv) {
  int jitter_with_leeway = argc == 5 && strcmp(argv[1], "jitter") == 0;
  if (argc < 2 || (argc > 4 && !jitter_with_leeway)) usage();
  workload = argv[1];
  peer_loop_init();
  if (jitter_with_leeway) {
#ifdef PEER_HAS_LEEWAY
    /* At most 1 s, as TimerLoop's --leeway. */
    double leeway_us = number_arg_from(argc, argv, 4, 0, 1);
    if (leeway_us > 1e6) usage();
    peer_set_leeway((uint64_t)(leeway_us * 1e3));
    emit_num("leeway_us", leeway_us, 1, "us");
#else
    usage();
#endif
  }
  if (strcmp(workload, "million") == 0)
    run_million((long)number_arg(argc, argv, 2, 1000000));
  else if (strcmp(workload, "churn") == 0)
    run_churn((long)number_arg(argc, argv, 2, 100000), (long)number_arg(argc, argv, 3, 2000000));
  else if (strcmp(workload, "jitter") == 0)
    run_jitter((long)number_arg(argc, argv, 2, 10000), number_arg(argc, argv, 3, 3));
  else if (strcmp(workload, "memory") == 0)
    run_memory((long)number_arg(argc, argv, 2, 1000000));
  else
    usage();
  printf("%s.%s.version=%s text\n", PEER_NAME, workload, peer_version());
  return 0;
}

#endif
