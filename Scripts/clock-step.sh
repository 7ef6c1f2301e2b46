#!/usr/bin/env bash
# Steps this machine's wall clock (CLOCK_REALTIME) for real, forward and back,
# to check on a real EpollEventLoop what the unit tests check on
# VirtualEventLoop: a wall-clock timer fires at once when the clock jumps past
# its date, and waits when the clock jumps back. The steps are made by the
# opt-in tests in Tests/BlockTimersTests/ClockStepTests.swift (each moves the
# clock by two minutes and moves it back), which are skipped unless
# TIMERLOOP_CLOCK_STEP_TEST=1, as this script sets it.
#
# Opt-in, and never part of .ci/run: setting the clock sets it for every
# process on the machine. Run it only on a throwaway machine (a disposable VM)
# where it runs as root (CAP_SYS_TIME) and no time daemon (chronyd, ntpd,
# systemd-timesyncd) steps the clock meanwhile:
#
#   TIMERLOOP_ALLOW_CLOCK_STEP=1 Scripts/clock-step.sh
#
# Before the tests it records the offset between the wall clock and the
# monotonic clock (which setting the wall clock does not move); on every exit,
# a failed or interrupted test included, it puts the wall clock back at that
# offset if it has drifted from it by more than 1 ms: where the clock would be
# had nobody touched it. It prints the drift it found, in nanoseconds.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${TIMERLOOP_ALLOW_CLOCK_STEP:-}" != 1 ]]; then
  echo "clock-step: refused: this sets the clock of the whole machine." >&2
  echo "Run it only on a throwaway machine, with TIMERLOOP_ALLOW_CLOCK_STEP=1." >&2
  exit 2
fi
if [[ $(id -u) != 0 ]]; then
  echo "clock-step: refused: setting the clock needs root (CAP_SYS_TIME)." >&2
  exit 2
fi
for daemon in chronyd ntpd systemd-timesyncd; do
  # The kernel keeps 15 bytes of a process name, which pgrep -x matches.
  if pgrep -x "${daemon:0:15}" >/dev/null; then
    echo "clock-step: refused: $daemon is running and would fight the steps." >&2
    exit 2
  fi
done

# The offset (wall - monotonic, in ns) read with one clock_gettime of each, and
# its restoration with one clock_settime, both exact to the nanosecond: perl's
# syscall(2), so that no fork sits between reading the clocks and setting one.
clock_offset() {
  perl -e '
    require "syscall.ph";
    sub now {
      my $t = "\0" x 16;
      syscall(&SYS_clock_gettime, $_[0], $t) == 0 or die "clock_gettime: $!";
      my ($s, $ns) = unpack("q q", $t);
      return $s * 1000000000 + $ns;
    }
    if (!@ARGV) { print now(0) - now(1), "\n"; exit; }
    my $offset = $ARGV[0];
    my $drift = now(0) - now(1) - $offset;
    if (abs($drift) > 1000000) {
      my $target = now(1) + $offset;
      syscall(&SYS_clock_settime, 0, pack("q q", int($target / 1000000000), $target % 1000000000)) == 0
        or die "clock_settime: $!";
    }
    print "$drift\n";' "$@"
}

swift build --build-tests
offset=$(clock_offset)
restore() {
  local drift
  drift=$(clock_offset "$offset")
  echo "clock-step: wall clock drift from its offset to the monotonic clock after the run: ${drift} ns$( ((drift > 1000000 || drift < -1000000)) && echo ' (restored)')"
}
trap restore EXIT

started=$(date -u '+%Y-%m-%d %H:%M UTC')
status=0
TIMERLOOP_CLOCK_STEP_TEST=1 swift test --skip-build --filter ClockStepTests || status=$?
if [[ $status == 0 ]]; then
  echo "clock-step: PASSED on $(uname -sr), run at $started"
else
  echo "clock-step: FAILED (swift test exit $status) on $(uname -sr), run at $started"
fi
exit "$status"
