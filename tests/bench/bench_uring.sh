#!/bin/bash
# The io_uring modes against the epoll modes, side by side on this machine.
#
# Usage: tests/bench/bench_uring.sh [BUILD_DIR]
#   env: ROUNDS (3), SECONDS_ (3 per run), CONNS ("8 64 256")
#
# echo: echo-server --mode epoll and --mode io_uring under echo-client (16 B messages);
# file: file-server --mode epoll and --mode io_uring under wrk -t1 (a 1 KiB file, keep-alive).
# Both servers run outside the sandbox without the counting shim. In each round every point is
# measured once per mode, the order reversed every other round; the table prints the median of
# each mode's req/s and the median of the per-round ratios io_uring / epoll. The load average
# is read before the first run and after the last and printed with the table: a start above 0.5
# per core is flagged "not idle", and its figures are not headlines. Only the processes this
# script started are stopped.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
demos="$build/libexec/iolab"
rounds=${ROUNDS:-3}
secs=${SECONDS_:-3}
conns=${CONNS:-8 64 256}
. "$(dirname "$0")/loadavg.sh"
load_begin bench_uring

tmp=$(mktemp -d /tmp/bench_uring.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
ulimit -n 65536 2>/dev/null || true
head -c 1024 /dev/urandom >"$tmp/f1K.bin"

declare -A port
start() { # name program args...
    local name=$1
    shift
    "$@" >"$tmp/$name.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        p=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\).*/\1/p' "$tmp/$name.out")
        [ -n "$p" ] && break
        sleep 0.05
    done
    [ -n "$p" ] || { echo "bench_uring: $name did not start: $(cat "$tmp/$name.out")" >&2; exit 1; }
    port[$name]=$p
}
for m in epoll io_uring; do
    start "echo-$m" "$demos/echo-server" --port 0 --mode "$m"
    start "file-$m" "$demos/file-server" --port 0 --root "$tmp" --mode "$m"
done

measure() { # kind mode conns -> req/s
    if [ "$1" = echo ]; then
        "$demos/echo-client" --port "${port[echo-$2]}" --connections "$3" --seconds "$secs" \
            --size 16 | sed -n 's/.*req_per_s=\([0-9]*\).*/\1/p'
    else
        wrk -t1 -c"$3" -d"${secs}s" "http://127.0.0.1:${port[file-$2]}/f1K.bin" |
            awk '/^Requests\/sec:/ {print $2}'
    fi
}

: >"$tmp/results"
for r in $(seq "$rounds"); do
    order="epoll io_uring"
    [ $((r % 2)) -eq 0 ] && order="io_uring epoll"
    for kind in echo file; do
        for c in $conns; do
            for m in $order; do
                echo "$r $kind $c $m $(measure "$kind" "$m" "$c")" >>"$tmp/results"
            done
        done
    done
    echo "round $r of $rounds done" >&2
done

echo
echo "io_uring vs epoll, $rounds rounds of ${secs}s; ratio = median over rounds of io_uring / epoll"
load_report
awk -v conns="$conns" '
function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
{ v[$1 " " $2 " " $3 " " $4] = $5; if ($1 > R) R = $1 }
END {
    nc = split(conns, C, " ")
    printf "%-6s %-6s %12s %12s %8s\n", "kind", "conns", "epoll req/s", "uring req/s", "ratio"
    split("echo file", K, " ")
    for (k = 1; k <= 2; k++) for (b = 1; b <= nc; b++) {
        n = 0; delete e; delete u; delete q
        for (r = 1; r <= R; r++) {
            ep = v[r " " K[k] " " C[b] " epoll"]; ur = v[r " " K[k] " " C[b] " io_uring"]
            e[++n] = ep; u[n] = ur; q[n] = ep > 0 ? ur / ep : 0
        }
        printf "%-6s %-6s %12.0f %12.0f %7.2fx\n", K[k], C[b], median(e, n), median(u, n), median(q, n)
    }
}' "$tmp/results"
