#!/usr/bin/env bash
# Soak: a million live timers churned (re-armed, cancelled and replaced, about a
# million steps a second) for SOAK_SECONDS (default 600), printing the resident
# set and the live-timer count every second and, at the end, the growth of the
# resident set after warm-up (the first tenth of the run). Flat means no leak.
# Usage: SOAK_SECONDS=600 SOAK_TIMERS=1000000 bash Benchmarks/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SOAK_SECONDS:-600}
timers=${SOAK_TIMERS:-1000000}
swift build -c release --product timerloop-bench >&2
bin=$(swift build -c release --show-bin-path)/timerloop-bench
"$bin" soak --seconds "$seconds" --timers "$timers" --raw
