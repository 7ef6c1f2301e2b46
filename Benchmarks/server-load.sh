#!/usr/bin/env bash
# Real load from a real client: builds the example keep-alive server, starts it
# on 127.0.0.1, runs wrk against it with 1,000 and 10,000 concurrent connections,
# then checks the timers: idle connections must be closed by the idle timeout
# (none early), and a slowloris client by the request deadline. Prints wrk's
# requests/s and latency percentiles, the server's idle-timer re-arms per
# second, and the timeout results. Installs wrk from Debian's packages if
# missing. Traffic stays on loopback; everything started is stopped on exit.
# Usage: DURATION=10 IDLE_TIMEOUT=5 REQUEST_DEADLINE=2 PORT=18080 bash Benchmarks/server-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-18080}
duration=${DURATION:-10}
idle=${IDLE_TIMEOUT:-5}
deadline=${REQUEST_DEADLINE:-2}
# Each side (wrk, the server) needs 10,000+ descriptors for 10,000 connections.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 11000 ]; then
  echo "note: open-file limit $(ulimit -n) is below 11,000; the 10,000-connection run will hit EMFILE" >&2
fi

if ! command -v wrk >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq wrk) >&2
fi
swift build -c release --product keepalive-server >&2
bin="$(swift build -c release --show-bin-path)/keepalive-server"
log=$(mktemp)
"$bin" --port "$port" --idle-timeout "$idle" --request-deadline "$deadline" > "$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 300); do grep -q '^listening=' "$log" && break; sleep 0.1; done
grep -q '^listening=' "$log" || { echo "the server did not start:"; cat "$log"; exit 1; }

echo "# keepalive-server under wrk ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores; idle timeout ${idle} s, request deadline ${deadline} s)"
for connections in 1000 10000; do
  echo
  echo "## wrk -t2 -c$connections -d${duration}s --latency"
  mark=$(wc -l < "$log")
  wrk -t2 -c"$connections" -d"${duration}s" --latency "http://127.0.0.1:$port/" \
    | grep -E 'Requests/sec|requests in|Socket errors|^ +(50|75|90|99)%|Latency  '
  tail -n +"$((mark + 1))" "$log" | awk -F'rearms_per_s=' 'NF > 1 { split($2, a, " "); if (a[1] > 0) { s += a[1]; n++ } }
    END { if (n) printf "server: idle-timer re-arms per second, mean of %d busy seconds: %.0f\n", n, s / n }'
done

echo
echo "## timeouts"
python3 - "$port" "$idle" "$deadline" <<'PY'
import socket, sys, time
port, idle, deadline = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])

def closed_after(sockets, started, send_slowly=False):
    """Seconds from `started` to end of stream for each socket, or None after a bound."""
    closed = {}
    bound = time.time() + max(idle, deadline) * 3 + 5
    while len(closed) < len(sockets) and time.time() < bound:
        for s in sockets:
            if s in closed:
                continue
            try:
                if send_slowly:
                    s.send(b"X")
                data = s.recv(64)
                if data == b"":
                    closed[s] = time.time() - started
            except BlockingIOError:
                pass
            except OSError:
                closed[s] = time.time() - started
        time.sleep(0.2 if not send_slowly else 1.0)
    return [closed.get(s) for s in sockets]

idle_sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(200)]
for s in idle_sockets:
    s.setblocking(False)
started = time.time()
times = closed_after(idle_sockets, started)
done = [t for t in times if t is not None]
early = [t for t in done if t < idle]
print(f"idle: {len(done)} of {len(times)} idle connections closed, after {min(done):.2f} to {max(done):.2f} s "
      f"(timeout {idle:g} s), {len(early)} early" if done else "idle: none closed")

slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
for s in slow:
    s.send(b"GET / HTTP/1.1\r\n")
    s.setblocking(False)
started = time.time()
times = closed_after(slow, started, send_slowly=True)
done = [t for t in times if t is not None]
print(f"slowloris: {len(done)} of {len(times)} one-byte-a-second clients closed, after {min(done):.2f} to "
      f"{max(done):.2f} s (request deadline {deadline:g} s)" if done else "slowloris: none closed")
ok = len(done) == len(times) and not early
sys.exit(0 if ok else 1)
PY
echo
echo "## faults"
python3 - "$port" <<'PY'
import socket, struct, sys
port = int(sys.argv[1])
request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
def served():
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        return s.recv(256).startswith(b"HTTP/1.1 200")
# A peer that resets: SO_LINGER 0 turns close() into a RST.
for _ in range(50):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request[:10])
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
print(f"reset: 50 connections reset mid-request; server still serving: {served()}")
# A half-closed client: sends its request, shuts down its writing side, reads the answer.
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall(request)
    s.shutdown(socket.SHUT_WR)
    answer = s.recv(256)
print(f"half-close: answered after the client's FIN: {answer.startswith(b'HTTP/1.1 200')}")
PY
echo
sleep 1  # the next once-a-second counter line includes the faults
echo "server counters: $(tail -n 1 "$log")"

# Out of descriptors: a second server limited to 64 open files is flooded
# with connections; it must keep serving the ones it has and recover.
emfile_log=$(mktemp)
(ulimit -n 64; exec "$bin" --port "$((port + 1))" --loops 1 --idle-timeout 2 > "$emfile_log" 2>&1) &
emfile_server=$!
trap 'kill "$server" "$emfile_server" 2>/dev/null || true; wait 2>/dev/null || true; rm -f "$log" "$emfile_log"' EXIT
for _ in $(seq 300); do grep -q '^listening=' "$emfile_log" && break; sleep 0.1; done
python3 - "$((port + 1))" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
flood = [socket.create_connection(("127.0.0.1", port)) for _ in range(150)]  # beyond its 64 files
first = flood[0]
first.settimeout(5)
first.sendall(request)
print(f"EMFILE: 150 connections against a 64-file limit; an accepted one still served: "
      f"{first.recv(256).startswith(b'HTTP/1.1 200')}")
for s in flood:
    s.close()
time.sleep(3)  # the idle timeout (2 s) and the accept retry (100 ms) free and resume
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall(request)
    print(f"EMFILE: after the flood, a new connection is served: {s.recv(256).startswith(b'HTTP/1.1 200')}")
PY
sleep 1
echo "EMFILE server counters: $(tail -n 1 "$emfile_log")"
