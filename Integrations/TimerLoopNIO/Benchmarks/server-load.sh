#!/usr/bin/env bash
# nio-keepalive-server under wrk, with each timer implementation
# (--timers timerloop, --timers nio) at 1,000 and 10,000 connections, on
# 127.0.0.1 only: wrk's requests/s and latency, and the server's CPU time per
# request (utime + stime from /proc/<pid>/stat over the wrk run, divided by
# the requests wrk completed). Then a short idle check per implementation:
# idle connections closed by the idle timeout, none early. Builds the server
# (release) first; installs wrk from Debian's packages if missing. Each wrk run
# is bounded by DURATION; everything started is stopped on exit.
# Usage: DURATION=5 IDLE_TIMEOUT=2 REQUEST_DEADLINE=2 PORT=18090 bash Benchmarks/server-load.sh
# Build offline as the README says (TIMERLOOP_NIO_PATH, SWIFTCI_USE_LOCAL_DEPS).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-18090}
duration=${DURATION:-5}
idle=${IDLE_TIMEOUT:-2}
deadline=${REQUEST_DEADLINE:-2}
# Each side (wrk, the server) needs 10,000+ descriptors for 10,000 connections.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 11000 ]; then
  echo "note: open-file limit $(ulimit -n) is below 11,000; the 10,000-connection run will hit EMFILE" >&2
fi
if ! command -v wrk >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq wrk) >&2
fi
swift build -c release --product nio-keepalive-server >&2
bin="$(swift build -c release --show-bin-path)/nio-keepalive-server"
ticks=$(getconf CLK_TCK)
log=$(mktemp)
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -f "$log"' EXIT

# The server's CPU time so far, in clock ticks (fields 14 and 15 of /proc/<pid>/stat).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "# nio-keepalive-server under wrk ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, loadavg $(cut -d' ' -f1-3 /proc/loadavg); idle timeout ${idle} s, request deadline ${deadline} s)"
for timers in timerloop nio; do
  "$bin" --timers "$timers" --port "$port" --idle-timeout "$idle" --request-deadline "$deadline" > "$log" 2>&1 &
  server=$!
  for _ in $(seq 300); do grep -q '^listening=' "$log" && break; sleep 0.1; done
  grep -q '^listening=' "$log" || { echo "the server did not start:"; cat "$log"; exit 1; }
  for connections in 1000 10000; do
    echo
    echo "## --timers $timers: wrk -t2 -c$connections -d${duration}s --latency"
    before=$(cpu_ticks "$server")
    out=$(wrk -t2 -c"$connections" -d"${duration}s" --latency "http://127.0.0.1:$port/")
    after=$(cpu_ticks "$server")
    echo "$out" | grep -E 'Requests/sec|requests in|Socket errors|^ +(50|99)%|Latency  '
    requests=$(echo "$out" | awk '/requests in/ { print $1 }')
    awk -v t="$timers" -v c="$connections" -v d="$((after - before))" -v hz="$ticks" -v r="$requests" \
      'BEGIN { printf "server_cpu: %s c=%d cpu_s=%.2f requests=%d cpu_us_per_request=%.3f\n", t, c, d / hz, r, (r > 0 ? d / hz * 1e6 / r : 0) }'
  done
  echo
  echo "## --timers $timers: idle check"
  python3 - "$port" "$idle" <<'PY'
import socket, sys, time
port, idle = int(sys.argv[1]), float(sys.argv[2])
sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
for s in sockets:
    s.setblocking(False)
started, closed = time.time(), {}
while len(closed) < len(sockets) and time.time() < started + idle * 3 + 5:
    for s in sockets:
        if s in closed:
            continue
        try:
            if s.recv(64) == b"":
                closed[s] = time.time() - started
        except BlockingIOError:
            pass
        except OSError:
            closed[s] = time.time() - started
    time.sleep(0.05)
done = list(closed.values())
early = [t for t in done if t < idle]
print(f"idle: {len(done)} of {len(sockets)} closed, after {min(done):.2f} to {max(done):.2f} s "
      f"(timeout {idle:g} s), {len(early)} early" if done else "idle: none closed")
sys.exit(0 if len(done) == len(sockets) and not early else 1)
PY
  sleep 1  # the next once-a-second counter line includes the idle closes
  echo "server counters: $(tail -n 1 "$log")"
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=
done
