#!/bin/sh
# Is the load the bottleneck at N connections? First the echo client alone against the epoll
# echo server outside iolab (no sandbox, no counting), with the CPU each used; then the same
# server and client inside iolab (the concurrency/c10k step: 10,000 connections, counted,
# sandboxed). The client is not the bottleneck when its CPU share stays well under one core.
# Usage: [MODE=epoll|io_uring] tests/bench/bench_c10k.sh [BUILD_DIR] [CONNECTIONS] [SECONDS]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
conns=${2:-10000}
secs=${3:-10}
mode=${MODE:-epoll}
demos=$build/libexec/iolab
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Each connection is a descriptor in the server and in the client.
ulimit -n $((conns + 1024))
ticks=$(getconf CLK_TCK)
"$demos/echo-server" --port 0 --mode "$mode" >"$tmp/server.out" 2>&1 &
server_pid=$!
i=0
until grep -q listening "$tmp/server.out"; do
    i=$((i + 1))
    [ $i -lt 100 ] || { echo "the server did not start" >&2; exit 1; }
    sleep 0.05
done
port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$tmp/server.out")
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
s0=$(cpu "$server_pid")
"$demos/echo-client" --port "$port" --connections "$conns" --seconds "$secs" >"$tmp/client.out" &
client_pid=$!
c_last=0
while kill -0 "$client_pid" 2>/dev/null; do
    c_last=$(cpu "$client_pid" 2>/dev/null || echo "$c_last")
    sleep 0.2
done
wait "$client_pid" || true
s1=$(cpu "$server_pid")
echo "outside iolab, $mode, $conns connections, $secs s (load average: $(cut -d' ' -f1 /proc/loadavg)):"
echo "  client: $(cat "$tmp/client.out")"
awk -v c="$c_last" -v s=$((s1 - s0)) -v t="$ticks" -v secs="$secs" 'BEGIN {
    printf "  client CPU %.0f%% of a core (at least; its last ticks are not seen), server CPU %.0f%%\n",
           100 * c / t / secs, 100 * s / t / secs }'
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=

echo "inside iolab (iolab run concurrency/c10k --mode $mode --seconds $secs --json):"
"$build/bin/iolab" run concurrency/c10k --mode "$mode" --seconds "$secs" --json >"$tmp/run.json" || true
python3 - "$tmp/run.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
lat = d["latency_us"]
print("  requests/s %.0f, p50 %.0f ms, p99 %.0f ms, %d waiting at the end, clean %s" % (
    d["throughput"]["requests_per_s"], lat["p50"] / 1000, lat["p99"] / 1000, lat["waiting"],
    d["clean"]))
for p in d["processes"]:
    cpu = p["cpu"]["user_s"] + p["cpu"]["sys_s"]
    print("  %-6s conns %d, errors %d, threads %d, CPU %.0f%% of a core" % (
        p["name"], p["app"]["conns_opened"], p["app"]["errors"], p["threads"],
        100 * cpu / d["duration_s"]))
EOF
