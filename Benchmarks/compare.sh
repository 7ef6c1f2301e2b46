#!/usr/bin/env bash
# Side-by-side comparison of TimerLoop with libuv, libev and libevent on the workloads of Benchmarks/README.md,
# measured in one run on one machine, printed as a Markdown table (see README.md next to this).
#
# Usage: [RUNS=3] [SWIFT_SCRATCH=.build] bash Benchmarks/compare.sh
#   RUNS           repetitions of every case, at least 3 (default 3); a repetition runs every
#                  workload on every implementation back to back, so they share the machine's mood
#   SWIFT_SCRATCH  SwiftPM's scratch path (default .build); the C programs are built into
#                  $SWIFT_SCRATCH/peers and the raw metric lines are kept in $SWIFT_SCRATCH/compare
#
# Installs libuv1-dev, libev-dev and libevent-dev with apt-get when missing. Progress goes to standard error,
# the table to standard output.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
scratch=${SWIFT_SCRATCH:-$root/.build}
case $runs in
  '' | *[!0-9]*) echo "RUNS must be a whole number, not '$runs'" >&2; exit 2 ;;
esac
if [ "$runs" -lt 3 ]; then echo "RUNS must be at least 3 for a median to mean something" >&2; exit 2; fi
command="${RUNS:+RUNS=$RUNS }${SWIFT_SCRATCH:+SWIFT_SCRATCH=$SWIFT_SCRATCH }bash $0${*:+ $*}"

# ---- Build ----------------------------------------------------------------------------------

command -v python3 >/dev/null || { echo "compare.sh needs python3 for the table" >&2; exit 1; }

missing=()
for package in libuv1-dev libev-dev libevent-dev; do
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
# libevent again, on its common-timeout queues (see bench_libevent.c).
gcc -O2 -Wall -Wextra -DCOMMON_TIMEOUTS -o "$peers/bench_libevent-ct" \
  "$root/Benchmarks/peers/bench_libevent.c" -levent

echo "building timerloop-bench ..." >&2
swift build -c release --package-path "$root" --scratch-path "$scratch" --product timerloop-bench >&2
bench=$(swift build -c release --package-path "$root" --scratch-path "$scratch" --show-bin-path)/timerloop-bench

# ---- Run ------------------------------------------------------------------------------------

out=$scratch/compare
mkdir -p "$out"
results=$out/results.txt
: >"$results"

# run REP LABEL IMPL: runs LABEL once on IMPL and appends its metric lines to the results,
# each after "REP ". LABEL is a workload, or jitter1000: jitter at K = 1,000, its lines renamed
# to keep them apart from K = 10,000's. A failed case is reported and leaves its rows short.
run() {
  local rep=$1 label=$2 impl=$3 workload=${2%1000} timers= lines
  case $label in
    jitter) timers=10000 ;;
    jitter1000) timers=1000 ;;
  esac
  if [ "${impl#timerloop}" != "$impl" ]; then
    set -- "$bench" "$workload" --impl "$impl" --raw ${timers:+--timers "$timers"}
  else
    set -- "$peers/bench_$impl" "$workload" ${timers:+"$timers"}
  fi
  lines=$("$@") || echo "warning: $label on $impl failed (repetition $rep)" >&2
  [ "$label" = jitter1000 ] && lines=${lines//.jitter./.jitter1000.}
  [ -z "$lines" ] || printf '%s\n' "$lines" | sed "s/^/$rep /" >>"$results"
}

# timerloop-handler: TimerLoop's handler timers (TimerHandler, TimerKey), on million, churn and memory.
implementations=(timerloop timerloop-handler libuv libev libevent libevent-ct)
start=$SECONDS
for rep in $(seq 1 "$runs"); do
  # Rotate who goes first, so that no implementation always runs right after the same other.
  shift_by=$(((rep - 1) % ${#implementations[@]}))
  order=("${implementations[@]:$shift_by}" "${implementations[@]:0:$shift_by}")
  for label in million churn jitter jitter1000 memory; do
    echo "[$rep/$runs] $label: ${order[*]}" >&2
    for impl in "${order[@]}"; do
      # 1,000 durations exceed libevent's 256 common timeouts; handler timers do not repeat.
      case $label-$impl in
        million-libevent-ct | jitter*-timerloop-handler) ;;
        *) run "$rep" "$label" "$impl" ;;
      esac
    done
  done
  echo "[$rep/$runs] scaling: timerloop" >&2
  run "$rep" scaling timerloop
done
echo "ran $runs repetitions in $((SECONDS - start)) s; metric lines in $results" >&2

# ---- Report ---------------------------------------------------------------------------------

echo "# TimerLoop vs libuv, libev and libevent"
echo
echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
  "Linux $(uname -r), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
echo "- Toolchains: $(swift --version 2>&1 | head -1); $(gcc --version | head -1)"
echo "- Command: \`$command\`, $runs repetitions, implementations interleaved"
echo
python3 - "$results" <<'PYTHON'
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
        versions[key.split(".")[0]] = value
        continue
    values[key].append(float(value))
    by_run[rep][key] = float(value)

PEERS = ["libuv", "libev", "libevent", "libevent-ct"]
small, large = (f"timerloop.scaling.churn_reset_ns_c{c}" for c in (10_000, 10_000_000))
scaling = [run[large] / run[small] for run in by_run.values() if small in run and large in run]

# (label, metric, target, ranked[, impl]): impl is the TimerLoop implementation the row shows
# (timerloop, its closures, unless given: timerloop-handler for its handler timers); target is ("x", f) for at most f times the best peer's
# minimum (("x", f, peer) against that peer, where the issue names one), ("<=", v) or
# (">=", v) for a bound on timerloop's minimum, or None where the issue sets none; ranked says
# whether the lowest peer value is the best one (costs), which is what the best-peer and ratio
# columns need.
ROWS = [
    ("million init ns/timer (N = 1,000,000)", "million.init_ns_per_timer", ("x", 1.0), True),
    ("million run-phase CPU ns/timer", "million.run_cpu_ns_per_timer", ("x", 0.7), True),
    ("million allocations/timer", "million.allocs_per_timer", ("<=", 1), False),
    ("million init ns/timer, handler timers", "million.init_ns_per_timer", ("x", 1.0), True,
     "timerloop-handler"),
    ("million run-phase CPU ns/timer, handler timers", "million.run_cpu_ns_per_timer",
     ("x", 0.7), True, "timerloop-handler"),
    ("million allocations/timer, handler timers", "million.allocs_per_timer", ("<=", 0), False,
     "timerloop-handler"),
    ("churn ns/reset (C = 100,000)", "churn.reset_ns", ("x", 1.0), True),
    ("churn ns/cancel", "churn.cancel_ns", ("x", 1.0), True),
    ("churn allocations/reset", "churn.allocs_per_reset", ("<=", 0), False),
    ("churn allocations/cancel", "churn.allocs_per_cancel", ("<=", 0), False),
    ("churn ns/reset, handler timers", "churn.reset_ns", ("x", 1.0), True, "timerloop-handler"),
    ("churn ns/cancel, handler timers", "churn.cancel_ns", ("x", 1.0), True, "timerloop-handler"),
    ("jitter K = 10,000 p99 lateness µs", "jitter.p99_us", ("<=", 200), True),
    ("jitter K = 10,000 CPU s", "jitter.cpu_s", ("x", 1.0, "libev"), True),
    ("jitter K = 10,000 min lateness µs (never early)", "jitter.min_us", (">=", 0), False),
    ("jitter K = 1,000 p99 lateness µs", "jitter1000.p99_us", None, True),
    ("jitter K = 1,000 CPU s", "jitter1000.cpu_s", None, True),
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

print("| metric | timerloop min / median | "
      + " | ".join(f"{p} min / median" for p in PEERS)
      + " | compared with | timerloop ÷ that peer (min/min) | target | status |")
print("|---|---|" + "---|" * len(PEERS) + "---|---|---|---|")
for label, metric, target, ranked, *who in ROWS:
    # The scaling row: timerloop against itself, each repetition's ratio of its two sizes.
    # A fifth element names the TimerLoop implementation of the row (default: closures).
    mine = scaling if metric is None else values[f"{(who or ['timerloop'])[0]}.{metric}"]
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
      "it cannot run million, whose 1,000 durations exceed its 256 queues). "
      "Status is judged on minima over the repetitions: a ratio target on the ratio column "
      "(timerloop's minimum ÷ the best peer's minimum), a bound on timerloop's minimum. "
      "The scaling row's cell is each repetition's reset cost at C = 10,000,000 ÷ its cost "
      "at C = 10,000, both measured in one process.")
PYTHON
