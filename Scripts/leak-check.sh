#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer, whose LeakSanitizer checks
# at exit that nothing allocated was left unreachable. Any leak or memory error
# fails the run. Separate build directory, so it does not disturb `.build`.
# Usage: bash Scripts/leak-check.sh [extra swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Scripts/lsan-suppressions.txt:print_suppressions=0}
swift test --sanitize=address --scratch-path .build-asan "$@"
