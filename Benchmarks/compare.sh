#!/usr/bin/env bash
# Side-by-side comparison of TimerLoop with libuv, libev, libevent and tokio on the workloads of
# Benchmarks/README.md, measured in one run on one machine, printed as Markdown tables (see
# README.md next to this).
#
# Usage: [RUNS=3] [SWIFT_SCRATCH=.build] [TOKIO_PEER_DIR=dir] [PARTS="timers sleep"]
#        bash Benchmarks/compare.sh
#   RUNS            repetitions of every case, at least 3 (default 3); a repetition runs every
#                   workload on every implementation back to back, so they share the machine's mood
#   PARTS           what to run: timers (million, churn, jitter, memory, the leeway sweep and
#                   scaling) and sleep (sleep, sleep-group and sleep-nested at T = 100,000 tasks,
#                   about 2.5 minutes a repetition); both by default
#   SLEEP_TASKS     T of sleep and sleep-group (default 100000; smaller for a quick try)
#   SWIFT_SCRATCH   SwiftPM's scratch path (default .build); the peers are built into
#                   $SWIFT_SCRATCH/peers and the raw metric lines are kept in $SWIFT_SCRATCH/compare
#   TOKIO_PEER_DIR  the tokio peer's Cargo project (default: ../shared/peers/rust beside the
#                   repository, where this project's peer material lives; it is not part of the
#                   repository). Without it the comparison runs without tokio and says so.
#                   sleep's tokio peer is Benchmarks/peers/tokio-sleep, built from the same crates.
#
# Installs libuv1-dev, libev-dev and libevent-dev with apt-get when missing, and, for tokio,
# Debian's tokio, tokio-util, futures-util and libc crates, which cargo builds from offline.
# Progress goes to standard error, the tables to standard output.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
scratch=${SWIFT_SCRATCH:-$root/.build}
tokio_source=${TOKIO_PEER_DIR:-$root/../shared/peers/rust}
parts=${PARTS:-timers sleep}
for part in $parts; do
  case $part in timers | sleep) ;; *) echo "PARTS lists timers and sleep, not '$part'" >&2; exit 2 ;; esac
done
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
case $runs in
  '' | *[!0-9]*) echo "RUNS must be a whole number, not '$runs'" >&2; exit 2 ;;
esac
if [ "$runs" -lt 3 ]; then echo "RUNS must be at least 3 for a median to mean something" >&2; exit 2; fi
command="${RUNS:+RUNS=$RUNS }${PARTS:+PARTS=\"$PARTS\" }${SLEEP_TASKS:+SLEEP_TASKS=$SLEEP_TASKS }${SWIFT_SCRATCH:+SWIFT_SCRATCH=$SWIFT_SCRATCH }${TOKIO_PEER_DIR:+TOKIO_PEER_DIR=$TOKIO_PEER_DIR }bash $0${*:+ $*}"

# ---- Build ----------------------------------------------------------------------------------

command -v python3 >/dev/null || { echo "compare.sh needs python3 for the table" >&2; exit 1; }

with_tokio=
if [ ! -f "$tokio_source/Cargo.toml" ]; then
  echo "no tokio peer at $tokio_source (no Cargo.toml): running without tokio;" \
    "set TOKIO_PEER_DIR to the tokio peer's Cargo project to include it" >&2
elif ! command -v cargo >/dev/null; then
  echo "no cargo on the PATH: running without tokio" >&2
else
  with_tokio=1
fi

with_cargo=
command -v cargo >/dev/null && with_cargo=1
missing=()
packages=(libuv1-dev libev-dev libevent-dev)
[ -z "$with_cargo" ] ||
  packages+=(librust-tokio-dev librust-tokio-util-dev librust-futures-util-dev librust-libc-dev)
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
  echo "installing ${missing[*]} ..." >&2
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq "${missing[@]}" >&2
fi

peers=$scratch/peers
mkdir -p "$peers"
for peer in libuv:-luv libev:-lev libevent:-levent; do
  name=${peer%%:*}
  gcc -O2 -Wall -Wextra -o "$peers/bench_$name" "$root/Benchmarks/peers/bench_$name.c" "${peer#*:}"
done
# libevent again, on its common-timeout queues and on a precise-timer base (see bench_libevent.c).
gcc -O2 -Wall -Wextra -DCOMMON_TIMEOUTS -o "$peers/bench_libevent-ct" \
  "$root/Benchmarks/peers/bench_libevent.c" -levent
gcc -O2 -Wall -Wextra -DPRECISE_TIMER -o "$peers/bench_libevent-precise" \
  "$root/Benchmarks/peers/bench_libevent.c" -levent

tokio= tokio_sleep=
if [ -n "$with_tokio" ]; then
  echo "building the tokio peer from $tokio_source ..." >&2
  # From a copy: the source may be read-only, and cargo writes Cargo.lock next to Cargo.toml.
  rm -rf "$peers/tokio-source" && cp -r "$tokio_source" "$peers/tokio-source"
  if (cd "$peers/tokio-source" &&
    cargo build --release --offline --quiet --target-dir "$peers/tokio-target") >&2; then
    tokio=$peers/tokio-target/release/bench_tokio
  fi
  [ -n "$tokio" ] || echo "warning: the tokio peer did not build: running without tokio" >&2
fi
if [ -n "$with_cargo" ] && part sleep; then
  rm -rf "$peers/tokio-sleep-source" && cp -r "$root/Benchmarks/peers/tokio-sleep" "$peers/tokio-sleep-source"
  if (cd "$peers/tokio-sleep-source" &&
    cargo build --release --offline --quiet --target-dir "$peers/tokio-target") >&2; then
    tokio_sleep=$peers/tokio-target/release/bench_tokio_sleep
  fi
  [ -n "$tokio_sleep" ] || echo "warning: the tokio sleep peer did not build: sleep without tokio" >&2
fi

echo "building timerloop-bench ..." >&2
swift build -c release --package-path "$root" --scratch-path "$scratch" --product timerloop-bench >&2
bench=$(swift build -c release --package-path "$root" --scratch-path "$scratch" --show-bin-path)/timerloop-bench

# ---- Run ------------------------------------------------------------------------------------

out=$scratch/compare
mkdir -p "$out"
results=$out/results.txt
: >"$results"

# run REP LABEL IMPL: runs LABEL once on IMPL and appends its metric lines to the results,
# each after "REP ". LABEL is a workload; jitter is at K = 10,000, jitter1000 at K = 1,000, and
# either with _l<L> at a leeway of L µs (TimerLoop's --leeway, libev's timeout collect interval);
# jitter lines are renamed to LABEL to keep them apart. A failed case is reported and leaves
# its rows short.
run() {
  local rep=$1 label=$2 impl=$3 workload=${2%%[0-9_]*} timers= leeway= lines
  case $label in
    jitter1000*) timers=1000 ;;
    jitter*) timers=10000 ;;
    sleep*) timers=$sleep_tasks ;;
  esac
  case $label in *_l*) leeway=${label##*_l} ;; esac
  case $impl in
    timerloop* | continuous)
      set -- "$bench" "$workload" --impl "$impl" --raw ${timers:+--timers "$timers"} \
        ${leeway:+--leeway "$leeway"}
      ;;
    tokio*) case $workload in
        sleep*) set -- "$tokio_sleep" --impl "$impl" "$workload" "$timers" ;;
        *) set -- "$tokio" --impl tokio "$workload" ${timers:+"$timers"} ;;
      esac ;;
    *) set -- "$peers/bench_$impl" "$workload" ${timers:+"$timers"} ${leeway:+3 "$leeway"} ;;
  esac
  lines=$("$@") || echo "warning: $label on $impl failed (repetition $rep)" >&2
  [ "$workload" = "$label" ] || lines=${lines//.jitter./.$label.}
  [ -z "$lines" ] || printf '%s\n' "$lines" | sed "s/^/$rep /" >>"$results"
}

# timerloop-handler: TimerLoop's handler timers (TimerHandler, TimerKey), on million, churn and
# memory. libevent-precise runs jitter only: elsewhere it is libevent's heap with a finer clock.
implementations=(timerloop timerloop-handler libuv libev libevent libevent-ct libevent-precise)
[ -z "$tokio" ] || implementations+=(tokio)
# The leeway sweep: TimerLoop at these leeways besides its default (jitter, jitter1000), libev
# at a 1 ms collect interval besides its default of none (below 1 ms it changes nothing on the
# epoll backend, see bench_libev.c).
sweep=(jitter_l0 jitter_l50 jitter_l500 jitter_l1000 jitter1000_l0 jitter1000_l50 jitter1000_l500
  jitter1000_l1000)
# sleep at T = 100,000 (issue 22, item 5): the loop's sleep with tasks on the loop (timerloop)
# and on the default executor (timerloop-pool), Task.sleep (continuous), tokio's sleep_until on
# a multi-thread (tokio) and a current-thread runtime (tokio-current); as separate tasks, as
# one task group's children (sleep-group; tokio's JoinSet) and, Swift only, as the children of
# nested groups of at most 256 (sleep-nested, the AsyncAwait article's pattern).
sleep_tasks=${SLEEP_TASKS:-100000}
sleepers=(timerloop timerloop-pool continuous)
[ -z "$tokio_sleep" ] || sleepers+=(tokio tokio-current)
start=$SECONDS
loads=()
for rep in $(seq 1 "$runs"); do
  loads+=("$(cut -d' ' -f1-3 /proc/loadavg)")
  if part sleep; then
    shift_by=$(((rep - 1) % ${#sleepers[@]}))
    order=("${sleepers[@]:$shift_by}" "${sleepers[@]:0:$shift_by}")
    for label in sleep sleep-group sleep-nested; do
      echo "[$rep/$runs] $label (T = $sleep_tasks): ${order[*]}" >&2
      for impl in "${order[@]}"; do
        # sleep-nested is the remedy for the Swift runtime's task groups; JoinSet needs none.
        case $label-$impl in sleep-nested-tokio*) ;; *) run "$rep" "$label" "$impl" ;; esac
      done
    done
  fi
  part timers || continue
  # Rotate who goes first, so that no implementation always runs right after the same other.
  shift_by=$(((rep - 1) % ${#implementations[@]}))
  order=("${implementations[@]:$shift_by}" "${implementations[@]:0:$shift_by}")
  for label in million churn jitter jitter1000 memory; do
    echo "[$rep/$runs] $label: ${order[*]}" >&2
    for impl in "${order[@]}"; do
      # 1,000 durations exceed libevent's 256 common timeouts; handler timers do not repeat.
      case $label-$impl in
        million-libevent-ct | jitter*-timerloop-handler) ;;
        million-libevent-precise | churn-libevent-precise | memory-libevent-precise) ;;
        *) run "$rep" "$label" "$impl" ;;
      esac
    done
  done
  echo "[$rep/$runs] leeway sweep: ${sweep[*]} (libev at _l1000 too)" >&2
  for label in "${sweep[@]}"; do
    run "$rep" "$label" timerloop
    [ "${label##*_l}" != 1000 ] || run "$rep" "$label" libev
  done
  echo "[$rep/$runs] scaling: timerloop" >&2
  run "$rep" scaling timerloop
done
loads+=("$(cut -d' ' -f1-3 /proc/loadavg)")
echo "ran $runs repetitions in $((SECONDS - start)) s; metric lines in $results" >&2

# ---- Report ---------------------------------------------------------------------------------

echo "# TimerLoop vs libuv, libev, libevent and tokio"
echo
echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
  "Linux $(uname -r), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
echo "- Toolchains: $(swift --version 2>&1 | head -1); $(gcc --version | head -1)${tokio}${tokio_sleep:+; $(cargo --version)}"
echo "- Command: \`$command\`, $runs repetitions, implementations interleaved"
echo "- Load average (1, 5, 15 min) at the start of each repetition and at the end:" \
  "$(IFS=';'; echo "${loads[*]}" | sed 's/;/; /g')"
echo
python3 - "$results" "$(nproc)" "$parts" "$sleep_tasks" "${loads[@]}" <<'PYTHON'
import statistics
import sys
from collections import defaultdict

# values[key] = the values of metric `<impl>.<workload>.<metric>` over the repetitions;
# by_run[rep][key] = one repetition's value, for ratios taken within a run.
values, by_run, versions = defaultdict(list), defaultdict(dict), {}
for line in open(sys.argv[1]):
    rep, _, metric = line.rstrip("\n").partition(" ")
    key, _, rest = metric.partition("=")
    value, _, unit = rest.partition(" ")
    if unit == "text":
        if key.endswith(".version"):
            versions[key.split(".")[0]] = value
        continue
    values[key].append(float(value))
    by_run[rep][key] = float(value)

PEERS = ["libuv", "libev", "libevent", "libevent-ct", "libevent-precise", "tokio"]
small, large = (f"timerloop.scaling.churn_reset_ns_c{c}" for c in (10_000, 10_000_000))
scaling = [run[large] / run[small] for run in by_run.values() if small in run and large in run]

# TimerLoop's jitter runs by leeway: the sweep's, and the default leeway's (jitter, jitter1000).
def sweep_labels(k_label):
    labels = {f"{k_label}_l{l}" for l in (0, 50, 500, 1000)} | {k_label}
    leeway = lambda label: min(values.get(f"timerloop.{label}.leeway_us", [float("inf")]))
    return sorted((label for label in labels if values.get(f"timerloop.{label}.cpu_s")), key=leeway)

def matched_cpu(k_label):
    """TimerLoop's lowest CPU minimum at a leeway whose p99 minimum is at most libev's
    (default) p99 minimum, as (CPU samples, label); None when no leeway gets there."""
    libev_p99 = values.get(f"libev.{k_label}.p99_us")
    if not libev_p99:
        return None
    fits = [label for label in sweep_labels(k_label)
            if min(values[f"timerloop.{label}.p99_us"]) <= min(libev_p99)]
    if not fits:
        return None
    best = min(fits, key=lambda label: min(values[f"timerloop.{label}.cpu_s"]))
    return values[f"timerloop.{best}.cpu_s"], best

def leeway_text(label):
    return f"{min(values[f'timerloop.{label}.leeway_us']):,.0f} µs"

# (label, metric, target, ranked[, impl]): the goals of issue 11. impl is the TimerLoop
# implementation the row shows (timerloop, its closures, unless given: timerloop-handler for its
# handler timers, or "matched" for the jitter CPU at the cheapest leeway that is as precise as
# libev); target is ("x", f, peer) for at most f times that peer's minimum, ("<=", v) or
# (">=", v) for a bound on timerloop's minimum, or None where the issue sets none; ranked says
# whether the lowest peer value is the best one (costs), which is what the best-peer and ratio
# columns need.
ROWS = [
    ("million init ns/timer (N = 1,000,000)", "million.init_ns_per_timer", ("x", 1.0, "libev"), True),
    ("million run-phase CPU ns/timer", "million.run_cpu_ns_per_timer", ("x", 0.7, "libev"), True),
    ("million allocations/timer", "million.allocs_per_timer", ("<=", 1), False),
    ("million init ns/timer, handler timers", "million.init_ns_per_timer", ("x", 1.0, "libev"),
     True, "timerloop-handler"),
    ("million run-phase CPU ns/timer, handler timers", "million.run_cpu_ns_per_timer",
     ("x", 0.7, "libev"), True, "timerloop-handler"),
    ("million allocations/timer, handler timers", "million.allocs_per_timer", ("<=", 0), False,
     "timerloop-handler"),
    ("churn ns/reset (C = 100,000)", "churn.reset_ns", ("x", 1.0, "libevent-ct"), True),
    ("churn ns/cancel", "churn.cancel_ns", ("x", 1.0, "libevent-ct"), True),
    ("churn allocations/reset", "churn.allocs_per_reset", ("<=", 0), False),
    ("churn allocations/cancel", "churn.allocs_per_cancel", ("<=", 0), False),
    ("churn ns/reset, handler timers", "churn.reset_ns", ("x", 1.0, "libevent-ct"), True,
     "timerloop-handler"),
    ("churn ns/cancel, handler timers", "churn.cancel_ns", ("x", 1.0, "libevent-ct"), True,
     "timerloop-handler"),
    ("jitter K = 10,000 p99 lateness µs, default leeway", "jitter.p99_us", ("<=", 200), True),
    ("jitter K = 10,000 CPU s, default leeway", "jitter.cpu_s", ("x", 1.5, "libev"), True),
    ("jitter K = 10,000 CPU s, at a leeway with p99 ≤ libev's", "jitter.cpu_s",
     ("x", 0.7, "libev"), True, "matched"),
    ("jitter K = 10,000 min lateness µs (never early)", "jitter.min_us", (">=", 0), False),
    ("jitter K = 1,000 p99 lateness µs, default leeway", "jitter1000.p99_us", ("<=", 200), True),
    ("jitter K = 1,000 CPU s, default leeway", "jitter1000.cpu_s", ("x", 1.5, "libev"), True),
    ("jitter K = 1,000 CPU s, at a leeway with p99 ≤ libev's", "jitter1000.cpu_s",
     ("x", 0.7, "libev"), True, "matched"),
    ("jitter K = 1,000 min lateness µs (never early)", "jitter1000.min_us", (">=", 0), False),
    ("memory bytes/timer (N = 1,000,000)", "memory.bytes_per_timer", ("<=", 80), True),
    ("memory bytes/timer, handler timers", "memory.bytes_per_timer", ("<=", 48), True,
     "timerloop-handler"),
    ("scaling ns/reset, C = 10,000,000 ÷ C = 10,000", None, ("<=", 1.5), False),
]

def number(v):
    if v is None:
        return "—"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"

def cell(samples):
    return f"{number(min(samples))} / {number(statistics.median(samples))}" if samples else "—"

def target_text(target):
    if target is None:
        return "none in the issue"
    kind, bound = target[:2]
    versus = target[2] if len(target) > 2 else "best peer"
    return {"x": f"≤ {bound} × {versus}", "<=": f"≤ {bound}", ">=": f"≥ {bound}"}[kind]


# sleep (issue 22, item 5): CPU per wake-up against Task.sleep's (continuous), and lateness, for the separate tasks and the task group's children.
SLEEPERS = [("timerloop", "TimerLoop sleep, tasks prefer the loop"),
            ("timerloop-pool", "TimerLoop sleep, tasks on the default executor"),
            ("continuous", "Task.sleep, default executor"),
            ("tokio", "tokio sleep_until, multi-thread runtime"),
            ("tokio-current", "tokio sleep_until, current-thread runtime")]

def sleep_tables():
    print(f"## sleep: T = {int(sys.argv[4]):,} tasks, five random 1-1,000 ms sleeps each")
    print()
    print("| shape | implementation | CPU µs/wake-up min / median | ÷ Task.sleep's (min/min) "
          "| p50 µs | p99 µs | max µs | total s | bytes/task | target | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for shape, label in (("sleep", "separate tasks"), ("sleep-group", "one task group's children"),
                         ("sleep-nested", "nested groups of ≤ 256 children")):
        base = values.get(f"continuous.{shape}.cpu_us_per_wakeup")
        for impl, about in SLEEPERS:
            cpu = values.get(f"{impl}.{shape}.cpu_us_per_wakeup")
            if not cpu:
                continue
            ratio = min(cpu) / min(base) if base else None
            p99 = values[f"{impl}.{shape}.p99_us"]
            ok = all(v == 1 for v in values.get(f"{impl}.{shape}.ok", [0]))
            if shape == "sleep" and impl in ("timerloop", "timerloop-pool"):
                target = "p99 ≤ 1,000 µs, CPU ≤ 0.25 × Task.sleep's"
                met = ratio is not None and ratio <= 0.25 and min(p99) <= 1000 and ok
                status = "met" if met else "NOT MET"
            else:
                target, status = "—", "no target" if ok else "FAILED a check"
            print(f"| {label} | {impl} | {cell(cpu)} "
                  f"| {f'{ratio:.2f}×' if ratio is not None else '—'} | "
                  + " | ".join(cell(values.get(f"{impl}.{shape}.{m}", []))
                               for m in ("p50_us", "p99_us", "max_us", "total_s", "bytes_per_task"))
                  + f" | {target} | {status} |")
    print()
    print("Implementations: " + "; ".join(f"{impl}: {about}" for impl, about in SLEEPERS) + ". "
          "CPU is the process's user + system time over the whole run (task creation included) "
          "÷ the wake-ups (five per task); lateness is each wake-up's time after its deadline as the task "
          "sees it. Status is judged on minima, as in the first table. tokio rounds every sleep "
          "up to its 1 ms tick.")
    print()

parts = set(sys.argv[3].split())
if "timers" in parts:
    print("| metric | timerloop min / median | "
          + " | ".join(f"{p} min / median" for p in PEERS)
          + " | compared with | timerloop ÷ that peer (min/min) | target | status |")
    print("|---|---|" + "---|" * len(PEERS) + "---|---|---|---|")
    for label, metric, target, ranked, *who in ROWS:
        # The scaling row: timerloop against itself, each repetition's ratio of its two sizes.
        # A fifth element names the TimerLoop implementation of the row (default: closures).
        who = who[0] if who else "timerloop"
        if metric is None:
            mine = scaling
        elif who == "matched":
            found = matched_cpu(metric.split(".")[0])
            mine = found[0] if found else []
            label += f" ({leeway_text(found[1])})" if found else " (no leeway has it)"
        else:
            mine = values[f"{who}.{metric}"]
        ours = min(mine) if mine else None
        peers = {p: values[f"{p}.{metric}"] for p in PEERS if ranked and values[f"{p}.{metric}"]}
        best = min(peers, key=lambda p: min(peers[p])) if peers else None
        if target is not None and len(target) > 2 and target[2] in peers:
            best = target[2]
        ratio = ours / min(peers[best]) if best and ours is not None and min(peers[best]) > 0 else None
        if target is None:
            status = "no target"
        else:
            kind, bound = target[:2]
            measured = ratio if kind == "x" else ours
            met = measured is not None and (measured >= bound if kind == ">=" else measured <= bound)
            status = "met" if met else "NOT MET" if measured is not None else "NOT MET (no data)"
        print(f"| {label} | {cell(mine)} | "
              + " | ".join(cell(values.get(f"{p}.{metric}", [])) for p in PEERS)
              + f" | {best or '—'} | {f'{ratio:.2f}×' if ratio is not None else '—'} "
              f"| {target_text(target)} | {status} |")

    print()
    print(f"Peers: libuv {versions.get('libuv', '?')}, libev {versions.get('libev', '?')}, "
          f"libevent {versions.get('libevent', '?')} (libevent-ct: its common-timeout queues; "
          "it cannot run million, whose 1,000 durations exceed its 256 queues; libevent-precise: "
          "EVENT_BASE_FLAG_PRECISE_TIMER, jitter only), "
          f"tokio {versions.get('tokio', 'not run')} (DelayQueue on a current-thread runtime). "
          "Status is judged on minima over the repetitions: a ratio target on the ratio column "
          "(timerloop's minimum ÷ the named peer's minimum), a bound on timerloop's minimum. "
          "The scaling row's cell is each repetition's reset cost at C = 10,000,000 ÷ its cost "
          "at C = 10,000, both measured in one process.")

    # Precision per unit of CPU: p99 lateness and CPU of every jitter run, by leeway.
    print()
    print("## jitter: p99 lateness against CPU, by leeway")
    print()
    print("| implementation | leeway | K = 1,000 p99 µs | K = 1,000 CPU s | K = 1,000 wake-ups "
          "| K = 10,000 p99 µs | K = 10,000 CPU s | K = 10,000 wake-ups |")
    print("|---|---|---|---|---|---|---|---|")
    rows = [("timerloop", k) for k in sweep_labels("jitter")] + [
        ("libev", "jitter"), ("libev", "jitter_l1000"), ("libevent-precise", "jitter"),
        ("tokio", "jitter")]
    LEEWAY_OF_PEER = {"libev": "timeout collect interval 0 (its default)",
                      "libevent-precise": "no leeway setting",
                      "tokio": "no leeway setting"}
    for impl, label in rows:
        small = label.replace("jitter", "jitter1000", 1)
        if not values.get(f"{impl}.{label}.cpu_s") and not values.get(f"{impl}.{small}.cpu_s"):
            continue
        if impl == "timerloop":
            leeway = leeway_text(label)
        elif label.endswith("_l1000"):
            leeway = "timeout collect interval 1,000 µs"
        else:
            leeway = LEEWAY_OF_PEER[impl]
        cells = []
        for k_label in (small, label):
            for metric in ("p99_us", "cpu_s", "voluntary_switches"):
                cells.append(cell(values.get(f"{impl}.{k_label}.{metric}", [])))
        print(f"| {impl} | {leeway} | " + " | ".join(cells) + " |")
    print()
    print("Cells are min / median over the repetitions. Wake-ups: the process's voluntary context "
          "switches during the run (getrusage's ru_nvcsw), the times its loop thread blocked; tokio's "
          "peer does not report them. The default leeway's runs are the jitter rows of the table "
          "above.")

if "sleep" in parts:
    print()
    sleep_tables()

# Whether the run was quiet enough to trust: the load average against the core count (the same
# rule as timerloop-bench's report), and how far the repetitions of each ranked cost of the
# first table disagree (the largest repetition more than 1.5 times the smallest).
print()
print("## Noise")
print()
cores = int(sys.argv[2])
peak = max(float(load.split()[0]) for load in sys.argv[5:])
print(f"- Load average (1 min) at most {peak:.2f}, on {cores} cores: "
      + ("BUSY." if peak > cores else "quiet."))
spread = []
if "timers" in parts:
    for label, metric, target, ranked, *who in ROWS:
        if metric is None or not ranked:
            continue
        for impl in ["timerloop", "timerloop-handler"] + PEERS:
            samples = values.get(f"{impl}.{metric}", [])
            if len(samples) >= 2 and min(samples) > 0 and max(samples) > 1.5 * min(samples):
                spread.append(f"{impl} {metric} ({number(min(samples))} to {number(max(samples))})")
    spread = sorted(set(spread))
    print("- Repetitions within 1.5× of each other on every ranked cost of the first table."
          if not spread else
          f"- Repetitions that differ by more than 1.5×: {'; '.join(spread)}.")
if peak > cores:
    print("- WARNING: the load average rose above the number of cores: other processes were "
          "waiting for the cores the cases ran on, so times and lateness are noisy. Run again on "
          "a quieter machine to trust them.")
if spread:
    print("- WARNING: repetitions disagree: the minima in the tables are the least disturbed "
          "runs, but a ratio on a row that disagrees is not settled.")
PYTHON
