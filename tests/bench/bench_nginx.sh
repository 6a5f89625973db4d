#!/bin/bash
# The demo file server against nginx, side by side on this machine.
#
# Usage: tests/bench/bench_nginx.sh [BUILD_DIR]
#   env: ROUNDS (3), SECONDS_ (3, per wrk run),
#        MODES ("read-send read-send-4k sendfile epoll io_uring"; read-send-4k is read-send with
#        --buffer 4096, the lesson's small buffer, which must stay visibly worse),
#        SIZES ("1K 1M"), CONNS ("8 64 256"), NGINX (nginx on PATH or /usr/sbin/nginx)
#
# Both servers run outside the sandbox, on loopback, on the same files (in the page cache), with
# keep-alive; nginx with one worker, access_log off, once with sendfile off and once with it on
# (two servers of one nginx, on two ports). The load is `wrk -t1 -cN`. In each round every
# server is measured once per point, the order reversed every other round; each round's ratio
# is the demo mode's figure over the better of nginx's two in that round, and the table prints
# the median of those ratios (req/s for files up to 64 KiB, body GB/s above) with the medians of
# the figures themselves. The nginx configuration lives in a temporary directory, and only the
# processes this script started are stopped.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
server="$build/libexec/iolab/file-server"
rounds=${ROUNDS:-3}
secs=${SECONDS_:-3}
modes=${MODES:-read-send read-send-4k sendfile epoll io_uring}
sizes=${SIZES:-1K 1M}
conns=${CONNS:-8 64 256}
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

for tool in wrk curl "$nginx" "$server"; do
    command -v "$tool" >/dev/null || { echo "bench_nginx: $tool is not installed" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/bench_nginx.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkdir -p "$tmp/www" "$tmp/nginx/logs"
chmod 755 "$tmp" "$tmp/www" # nginx started as root reads the files as its worker user
bytes_of() { case $1 in *K) echo $((${1%K} * 1024)) ;; *M) echo $((${1%M} * 1048576)) ;; *) echo "$1" ;; esac; }
for s in $sizes; do head -c "$(bytes_of "$s")" /dev/urandom >"$tmp/www/f$s.bin"; chmod 644 "$tmp/www/f$s.bin"; done

# A free loopback port: bind to 0 and read what the kernel picked.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port_off=$(free_port)
port_on=$(free_port)
cat >"$tmp/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    default_type application/octet-stream;
    keepalive_requests 100000000;
    client_body_temp_path $tmp/nginx/body;
    proxy_temp_path $tmp/nginx/proxy;
    fastcgi_temp_path $tmp/nginx/fastcgi;
    uwsgi_temp_path $tmp/nginx/uwsgi;
    scgi_temp_path $tmp/nginx/scgi;
    server { listen 127.0.0.1:$port_off; root $tmp/www; sendfile off; }
    server { listen 127.0.0.1:$port_on; root $tmp/www; sendfile on; }
}
EOF
ulimit -n 65536 2>/dev/null || true
"$nginx" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/logs/error.log" &
pids+=($!)

# The demo's modes, one server each, on ports they pick and print.
declare -A port
port[nginx-off]=$port_off
port[nginx-on]=$port_on
for m in $modes; do
    args=(--mode "$m")
    [ "$m" = read-send-4k ] && args=(--mode read-send --buffer 4096)
    "$server" --port 0 --root "$tmp/www" "${args[@]}" >"$tmp/$m.out" 2>&1 &
    pids+=($!)
done
for m in $modes; do
    for _ in $(seq 100); do
        p=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\).*/\1/p' "$tmp/$m.out")
        [ -n "$p" ] && break
        sleep 0.05
    done
    [ -n "$p" ] || { echo "bench_nginx: file-server --mode $m did not start: $(cat "$tmp/$m.out")" >&2; exit 1; }
    port[$m]=$p
done
for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$port_on/f${sizes%% *}.bin" && break
    sleep 0.05
done

# Every server must send the right bytes and a head of about nginx's size before we time it.
for name in nginx-off nginx-on $modes; do
    for s in $sizes; do
        curl -sf "http://127.0.0.1:${port[$name]}/f$s.bin" -o "$tmp/check" &&
            cmp -s "$tmp/check" "$tmp/www/f$s.bin" ||
            { echo "bench_nginx: $name served f$s.bin wrongly" >&2; exit 1; }
    done
    printf '%-10s response head: %s bytes\n' "$name" \
        "$(curl -sI "http://127.0.0.1:${port[$name]}/f${sizes%% *}.bin" | wc -c)"
done

# One wrk run: prints "REQ_PER_S".
run_wrk() { # name size conns
    wrk -t1 -c"$3" -d"${secs}s" "http://127.0.0.1:${port[$1]}/f$2.bin" |
        awk '/^Requests\/sec:/ {print $2}'
}

servers=(nginx-off nginx-on $modes)
: >"$tmp/results" # round size conns name req_per_s
for r in $(seq "$rounds"); do
    order=("${servers[@]}")
    if [ $((r % 2)) -eq 0 ]; then # reversed every other round
        order=()
        for ((i = ${#servers[@]} - 1; i >= 0; i--)); do order+=("${servers[i]}"); done
    fi
    for s in $sizes; do
        cat "$tmp/www/f$s.bin" >/dev/null # keep it in the page cache
        for c in $conns; do
            for name in "${order[@]}"; do
                echo "$r $s $c $name $(run_wrk "$name" "$s" "$c")" >>"$tmp/results"
            done
        done
    done
    echo "round $r of $rounds done" >&2
done

echo
echo "file-server vs nginx 1 worker (better of sendfile off/on in each round); wrk -t1, ${secs}s, $rounds rounds"
echo "ratio = median over rounds of (demo / best nginx); req/s for <= 64 KiB, body GB/s above"
awk -v sizes="$sizes" -v conns="$conns" -v modes="$modes" '
function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
function bytes(s) { return s ~ /K$/ ? s * 1024 : s ~ /M$/ ? s * 1048576 : s }
{ v[$1 " " $2 " " $3 " " $4] = $5; if ($1 > R) R = $1 }
END {
    ns = split(sizes, S, " "); nc = split(conns, C, " "); nm = split(modes, M, " ")
    printf "%-6s %-6s %-12s %12s %10s %8s\n", "size", "conns", "server", "req/s", "GB/s", "ratio"
    for (a = 1; a <= ns; a++) for (b = 1; b <= nc; b++) {
        key = S[a] " " C[b]; big = bytes(S[a]) > 65536
        for (k = 0; k <= nm + 2; k++) {
            name = k == 0 ? "nginx-off" : k == 1 ? "nginx-on" : M[k-1]
            if (k > nm + 1) break
            n = 0; delete fig; delete rat
            for (r = 1; r <= R; r++) {
                f = v[r " " key " " name]; off = v[r " " key " nginx-off"]; on = v[r " " key " nginx-on"]
                best = off > on ? off : on
                fig[++n] = f; rat[n] = best > 0 ? f / best : 0
            }
            printf "%-6s %-6s %-12s %12.0f %10.2f %8s\n", S[a], C[b], name, median(fig, n),
                median(fig, n) * bytes(S[a]) / 1e9, k < 2 ? "" : sprintf("%.2fx", median(rat, n))
        }
    }
}' "$tmp/results"
