#!/usr/bin/env bash
# Instructions per timer operation, counted by callgrind: repeatable where
# timings on a shared machine are not, so a change to the hot path can be
# judged by a few instructions. Runs small fixed workloads of timerloop-bench
# under valgrind (installed with apt-get if missing), about a minute in all.
# Builds release into its own scratch path (with DWARF 4, which valgrind can
# read), so it does not disturb `.build`. Not part of CI: valgrind is slow.
# Usage: bash Benchmarks/callgrind.sh   (SWIFT_SCRATCH sets the scratch path)
# BlockTimer's rows count the same operations through BlockTimers' API, so that
# a change in that layer shows as clearly as one in the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SWIFT_SCRATCH:-.build-callgrind}

if ! command -v valgrind >/dev/null; then
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  $sudo apt-get update >&2
  $sudo apt-get install -y valgrind >&2
fi
swift build -c release --product timerloop-bench --scratch-path "$scratch" \
  -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/timerloop-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Callgrind counts only while collection is on, and each --toggle-collect
# function flips it on entry and back on return. Toggling the pass, the
# benchmark's setup closure (the arms, run as the first pass's task) and its
# timer callback counts the passes without the arms and the callbacks. The
# patterns match mangled names: a function renamed or inlined away matches
# nothing, and a count of 0 stops the script.
pass='*7runPass3now7buffers*ztF'                 # TimerScheduler.runPass(now:buffers:)
setup='*E18runOnCurrentThread*Tg5TA'             # the workload's setup closure
callback='*runTimerLoop*cfU_*cfU_TA'             # a closure timer's callback
handler_callback='*Recorder*timerFired3tag*TW'   # million's TimerHandler
block_callback='*MillionWorkloadO3run*BlockTimers0K5TimerC*cfU_y*cfU_TA'  # million's BlockTimer block
jitter_block='*runBlockTimer*cfU_y0F6Timers*cfU_TA'  # jitter's BlockTimer block

# count NAME TOGGLES... -- ARGS: instructions collected running timerloop-bench ARGS.
count() {
  local name=$1 toggles=()
  shift
  while [ "$1" != -- ]; do toggles+=("--toggle-collect=$1"); shift; done
  shift
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "${toggles[@]}" \
    "$bin" "$@" --raw >"$work/$name.txt" 2>"$work/$name.err"
  sed -n 's/^==[0-9]*== Collected : //p' "$work/$name.err"
}
metric() { sed -n "s/^[a-z-]*\.[a-z]*\.$2=\([0-9]*\) .*/\1/p" "$work/$1.txt"; }
per() {
  [ "${2:-0}" -gt 0 ] || { echo "callgrind.sh: nothing counted for $1" >&2; exit 1; }
  awk -v name="$1" -v total="$2" -v n="$3" -v how="$4" \
    'BEGIN { printf "%-30s %7.1f  %s\n", name, total / n, how }'
}

n=20000
c=10000
k=1000
echo "instructions per operation (release; million N=$n, churn C=$c, jitter K=$k for 1 s)"
per "arm, closure" "$(count arm-c "$setup" -- million --impl timerloop --timers $n)" $n \
  "million's setup closure ÷ N (with the closure's context and the benchmark's loop)"
per "arm, handler" "$(count arm-h "$setup" -- million --impl timerloop-handler --timers $n)" $n \
  "million's setup closure ÷ N (with the benchmark's loop)"
per "cancel, closure" "$(count cancel-c '*SchedulerC6cancelyyAA0A2IDVF' -- \
  churn --impl timerloop --timers $c)" $c "TimerScheduler.cancel(_:) ÷ C"
per "cancel, handler (invalidate)" "$(count cancel-h '*SchedulerC10invalidateyyAA0A2IDVF' -- \
  churn --impl timerloop-handler --timers $c)" $c "TimerScheduler.invalidate(_:) ÷ C"
per "re-arm, closure" "$(count rearm-c '*SchedulerC10reschedule_2toyAA0A2IDV_AA8DeadlineVtF' -- \
  churn --impl timerloop --timers $c)" 2000000 "TimerScheduler.reschedule(_:to:) ÷ R (2,000,000)"
per "one-shot firing, closure" "$(count fire-c "$pass" "$setup" "$callback" -- \
  million --impl timerloop --timers $n)" $n "passes − setup − callbacks, ÷ N"
per "one-shot firing, handler" "$(count fire-h "$pass" "$setup" "$handler_callback" -- \
  million --impl timerloop-handler --timers $n)" $n "passes − setup − timerFired, ÷ N"
per "schedule, BlockTimer" "$(count arm-b "$setup" -- million --impl blocktimer --timers $n)" $n \
  "million's setup closure ÷ N (scheduledTimer(withTimeInterval:repeats:on:block:))"
per "one-shot firing, BlockTimer" "$(count fire-b "$pass" "$setup" "$block_callback" -- \
  million --impl blocktimer --timers $n)" $n "passes − setup − blocks, ÷ N (the end of the one-shot included)"
per "re-arm (fireDate =), BlockTimer" "$(count rearm-b '*11BlockTimers0A5TimerC8fireDate*Vvs' -- \
  churn --impl blocktimer --timers $c)" 2000000 "the fireDate setter ÷ R (2,000,000; the Date() is churn's)"
per "invalidate, BlockTimer" "$(count cancel-b '*11BlockTimers0A5TimerC10invalidateyyF' -- \
  churn --impl blocktimer --timers $c)" $c "BlockTimer.invalidate() ÷ C"
# jitter runs in real time: how many timers each pass finds due, and how far
# the wheel's timers cascade before they do, depend on how far behind
# valgrind's slowdown leaves the loop. The median of three runs, and the range.
for run in 1 2 3; do
  total=$(count jitter "$pass" "$setup" "$callback" -- jitter --impl timerloop --timers $k --seconds 1)
  firings=$(($(metric jitter firings) + k)) # each timer's last call cancels it
  per "repeating firing (fixed-rate)" "$total" $firings "jitter, run $run: passes − setup − callbacks, ÷ $firings calls"
done >"$work/jitter.runs"
median() {
  sort -n -k"$2" "$1" | awk -v k="$2" '{ v[NR] = $k } NR == 2 { line = $0 }
    END { sub(/, run [0-9]:/, " (" v[1] " to " v[3] "), median of 3:", line); print line }'
}
median "$work/jitter.runs" 4
for run in 1 2 3; do
  total=$(count jitter-b "$pass" "$setup" "$jitter_block" -- jitter --impl blocktimer --timers $k --seconds 1)
  firings=$(($(metric jitter-b firings) + k))
  per "repeating firing, BlockTimer" "$total" $firings "jitter, run $run: passes − setup − blocks, ÷ $firings calls"
done >"$work/jitter-b.runs"
median "$work/jitter-b.runs" 4
