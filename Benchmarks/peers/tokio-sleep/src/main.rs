//! tokio's peer of timerloop-bench's `sleep` and `sleep-group` workloads: T tasks sleep at
//! once, each a random 1-1,000 ms five times in a row (the same SplitMix64 durations as
//! timerloop-bench's `SleepRecorder`), with `tokio::time::sleep_until`. Prints the same metric
//! lines, `<impl>.<workload>.<metric>=<value> <unit>`.
//!
//! Implementations (`--impl`):
//!   tokio          a multi-thread runtime, one worker per core (tokio's default): tasks and
//!                  timers share the workers, as Swift's default executor's tasks do
//!   tokio-current  a current-thread runtime: every task and timer on one thread, as tasks
//!                  preferring a TimerLoop loop run on its thread
//! Workloads: `sleep` spawns T tasks; `sleep-group` spawns them into one `JoinSet` and joins
//! them all (tokio's task group).
//!
//! CPU = getrusage(RUSAGE_SELF) user+sys over the run (task creation included); RSS = the
//! resident field of /proc/self/statm, read once every task has started its first sleep.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::{sleep_until, Instant};

const ROUNDS: usize = 5;

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn resident_bytes() -> i64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|x| x.parse::<i64>().ok()));
    // SAFETY: sysconf has no preconditions.
    pages.map_or(-1, |p| p * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as i64)
}

/// Sleep `round` of `task`: 1 to 1,000 whole milliseconds, SplitMix64 over a fixed seed.
fn duration(task: usize, round: usize) -> Duration {
    let mut z = ((task * ROUNDS + round) as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Duration::from_millis(z % 1_000 + 1)
}

/// Shared by every task: a lateness slot per wake-up (task × round, so no counter is
/// contended), and the counts the main thread waits on.
struct Recorder {
    tasks: usize,
    lateness_ns: Vec<AtomicI64>,
    started: AtomicUsize,
    ended: Mutex<usize>,
    changed: Condvar,
}

impl Recorder {
    fn tasks_end(&self, count: usize) {
        let mut ended = self.ended.lock().unwrap();
        *ended += count;
        if *ended == self.tasks {
            self.changed.notify_all();
        }
    }
}

async fn sleeper(recorder: Arc<Recorder>, task: usize) {
    recorder.started.fetch_add(1, Ordering::Relaxed);
    for round in 0..ROUNDS {
        let deadline = Instant::now() + duration(task, round);
        sleep_until(deadline).await;
        let now = Instant::now();
        let late = if now >= deadline {
            (now - deadline).as_nanos() as i64
        } else {
            -((deadline - now).as_nanos() as i64)
        };
        recorder.lateness_ns[task * ROUNDS + round].store(late, Ordering::Relaxed);
    }
}

/// The nearest-rank percentile `per_mille`/1000 of `sorted` (as timerloop-bench's).
fn nearest_rank(sorted: &[i64], per_mille: usize) -> i64 {
    sorted[((sorted.len() * per_mille + 999) / 1000).max(1) - 1]
}

fn run(implementation: &str, workload: &str, tasks: usize) {
    let runtime = match implementation {
        "tokio" => tokio::runtime::Builder::new_multi_thread(),
        "tokio-current" => tokio::runtime::Builder::new_current_thread(),
        _ => usage(),
    }
    .enable_time()
    .build()
    .expect("runtime");
    let recorder = Arc::new(Recorder {
        tasks,
        lateness_ns: (0..tasks * ROUNDS).map(|_| AtomicI64::new(i64::MIN)).collect(),
        started: AtomicUsize::new(0),
        ended: Mutex::new(0),
        changed: Condvar::new(),
    });
    let rss_before = resident_bytes();
    let cpu_before = cpu_seconds();
    let start = std::time::Instant::now();
    // A current-thread runtime runs its tasks only inside block_on: a thread of its own does
    // that for either flavour while this thread watches the counts.
    let driver = {
        let recorder = recorder.clone();
        let group = workload == "sleep-group";
        std::thread::spawn(move || {
            runtime.block_on(async move {
                if group {
                    let mut set = JoinSet::new();
                    for task in 0..tasks {
                        set.spawn(sleeper(recorder.clone(), task));
                    }
                    while set.join_next().await.is_some() {}
                    recorder.tasks_end(tasks);
                } else {
                    for task in 0..tasks {
                        let recorder = recorder.clone();
                        tokio::spawn(async move {
                            sleeper(recorder.clone(), task).await;
                            recorder.tasks_end(1);
                        });
                    }
                    // Keeps the runtime (a current-thread one runs only in here) until the
                    // last task ends, looking every 10 ms: 500 polls in a 5 s run.
                    while *recorder.ended.lock().unwrap() < tasks {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            })
        })
    };
    while recorder.started.load(Ordering::Relaxed) < tasks {
        std::thread::sleep(Duration::from_micros(200));
    }
    let rss_sleeping = resident_bytes();
    let mut ended = recorder.ended.lock().unwrap();
    while *ended < tasks {
        ended = recorder.changed.wait(ended).unwrap();
    }
    drop(ended);
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_before;
    driver.join().expect("runtime thread");

    let mut samples: Vec<i64> =
        recorder.lateness_ns.iter().map(|s| s.load(Ordering::Relaxed)).filter(|&s| s != i64::MIN).collect();
    samples.sort_unstable();
    let wakeups = samples.len();
    let early = samples.iter().filter(|&&s| s < 0).count();
    let print_i = |name: &str, v: i64, unit: &str| println!("{implementation}.{workload}.{name}={v} {unit}");
    let print_f = |name: &str, v: f64, digits: usize, unit: &str| {
        println!("{implementation}.{workload}.{name}={v:.digits$} {unit}")
    };
    print_i("t", tasks as i64, "tasks");
    print_i("wakeups", wakeups as i64, "count");
    print_i("expected_wakeups", (tasks * ROUNDS) as i64, "count");
    print_f("bytes_per_task", (rss_sleeping - rss_before) as f64 / tasks as f64, 1, "bytes");
    print_f("cpu_us_per_wakeup", cpu * 1e6 / wakeups.max(1) as f64, 2, "us");
    if !samples.is_empty() {
        let mean = samples.iter().map(|&s| s as f64).sum::<f64>() / wakeups as f64;
        for (name, ns) in [
            ("min_us", samples[0] as f64),
            ("mean_us", mean),
            ("p50_us", nearest_rank(&samples, 500) as f64),
            ("p99_us", nearest_rank(&samples, 990) as f64),
            ("p999_us", nearest_rank(&samples, 999) as f64),
            ("max_us", samples[wakeups - 1] as f64),
        ] {
            print_f(name, ns / 1e3, 1, "us");
        }
    }
    print_i("early", early as i64, "count");
    print_f("total_s", wall, 3, "s");
    print_i("ok", (wakeups == tasks * ROUNDS && early == 0) as i64, "bool");
    println!("{implementation}.{workload}.version=tokio-1.24.2 text");
}

fn usage() -> ! {
    eprintln!("usage: bench_tokio_sleep [--impl tokio|tokio-current] sleep|sleep-group [T=10000]");
    std::process::exit(2)
}

fn main() {
    let mut implementation = "tokio".to_string();
    let mut positional = Vec::new();
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--impl" => implementation = arguments.next().unwrap_or_else(|| usage()),
            "-h" | "--help" => usage(),
            _ => positional.push(argument),
        }
    }
    let workload = positional.first().map(String::as_str).unwrap_or_else(|| usage());
    if workload != "sleep" && workload != "sleep-group" {
        usage();
    }
    let tasks = match positional.get(1) {
        Some(text) => text.parse().ok().filter(|&t| t > 0).unwrap_or_else(|| usage()),
        None => 10_000,
    };
    run(&implementation, workload, tasks);
}
