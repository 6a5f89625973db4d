#!/bin/bash
# The demo file server against nginx, side by side on this machine.
#
# Usage: tests/bench/bench_nginx.sh [BUILD_DIR]
#   env: ROUNDS (3), SECONDS_ (3, per server and point in a round), SLICE (1: the seconds of one
#        wrk run; a server's SECONDS_ are run as slices in turn with the other servers'),
#        MODES ("read-send read-send-4k sendfile epoll epoll-copy io_uring epoll-twin";
#        read-send-4k is read-send with --buffer 4096, the lesson's small buffer, which must stay
#        visibly worse; epoll-copy is the epoll mode with --copy, every file read and sent from
#        memory; a mode ending in -split, such as epoll-split, runs with --split-head: the head
#        without MSG_MORE; epoll-twin is a second epoll server, and epoll-twin/epoll the ratio
#        of two identical servers at every point, the noise floor a like-with-like ratio is
#        read against, printed and never counted; a mode ending in -unlimited, such
#        as epoll-unlimited, runs with --no-unsent-limit: the kernel's own unsent queue),
#        SIZES ("1K 1M"), CONNS ("8 64 256"), NGINX (nginx on PATH or /usr/sbin/nginx),
#        POINTS ("SIZE:CONNS ...", e.g. "1M:8 64K:256": only these points, instead of every
#        SIZE x CONNS), QUICK=1 (a short look: ROUNDS=3, SECONDS_=2, MODES="read-send epoll
#        epoll-copy io_uring" unless set), RETRY (1: a like-with-like point between 0.95x and 1.0x is
#        measured once more before it counts as lost; 0: not), RESULTS (a file to keep every
#        wrk figure in: "ROUND SIZE CONNS SERVER REQ_PER_S CPU_US_PER_REQUEST" a line)
#
# Both servers run outside the sandbox, on loopback, on the same files (in the page cache), with
# keep-alive; nginx with one worker, access_log off, once with sendfile off and once with it on
# (two servers of one nginx, on two ports). The load is `wrk -t1 -cN`. In each round every
# server is measured once per point, the order reversed every other round, its seconds cut into
# slices taken in turn with the other servers'. Every figure is a median over the rounds (req/s
# for files up to 64 KiB, body GB/s above, and the server's CPU time per request, all its
# threads, from /proc/PID/stat), and every ratio the median of the per-round ratios. CPU per
# request moves less with the machine's other load than the rates do, but on loopback the
# sender's process also does part of the receiver's TCP work (the packets are taken in by a
# softirq that often runs in the sender's context), so it is a hint, not a verdict; it is
# counted in clock ticks (10 ms), coarse for short runs of large files.
#
# Two tables. The first puts each demo mode against the better of nginx's two settings. The
# second compares like with like:
#   epoll     / nginx sending the body the same way: sendfile off for a file the epoll mode
#               copies (up to 16 KiB, file-server.c's SMALL_FILE), sendfile on above;
#   epoll-copy / nginx with sendfile off (one event loop each, both copying the file through
#               their own memory: pread into a buffer, writev from it);
#   io_uring  / epoll (the ring against epoll_wait, one thread each, sending the same way).
# read-send, a thread per connection, is in the first table only: nginx has no such setting.
# A like-with-like point wins at 1.0x or above; one between 0.95x and 1.0x is measured again
# (ROUNDS more alternated rounds of just that pair) and the second median decides.
#
# The load average is read before the first run and after the last one and printed with the
# tables: a start above 0.5 per core is flagged "not idle", and its figures are not headlines.
# The nginx configuration lives in a temporary directory, and only the processes this script
# started are stopped.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
server="$build/libexec/iolab/file-server"
quick=${QUICK:-0}
rounds=${ROUNDS:-3}
secs=${SECONDS_:-$([ "$quick" = 1 ] && echo 2 || echo 3)}
slice=${SLICE:-1} # seconds per wrk run: each server's secs at a point, in turns with the others
slices=$(((secs + slice - 1) / slice))
modes=${MODES:-$([ "$quick" = 1 ] && echo "read-send epoll epoll-copy io_uring" ||
    echo "read-send read-send-4k sendfile epoll epoll-copy io_uring epoll-twin")}
sizes=${SIZES:-1K 1M}
conns=${CONNS:-8 64 256}
retry=${RETRY:-1}
epoll_copy_max=16384 # file-server.c's SMALL_FILE: the epoll mode copies files up to this size
# The points measured: every SIZE x CONNS, or POINTS as given (their sizes are the files made).
points=${POINTS:-$(for s in $sizes; do for c in $conns; do echo -n "$s:$c "; done; done)}
sizes=$(for p in $points; do echo "${p%%:*}"; done | awk '!seen[$0]++' | tr '\n' ' ')
sizes=${sizes% }

# The load average (1 min) and the number of cores, read before and after the runs.
. "$(dirname "$0")/loadavg.sh"
load_begin bench_nginx
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
nginx_master=$!

# The demo's modes, one server each, on ports they pick and print.
declare -A port pid
port[nginx-off]=$port_off
port[nginx-on]=$port_on
for m in $modes; do
    args=(--mode "$m")
    [ "$m" = read-send-4k ] && args=(--mode read-send --buffer 4096)
    [ "$m" = epoll-copy ] && args=(--mode epoll --copy)
    [ "${m%-split}" != "$m" ] && args=(--mode "${m%-split}" --split-head)
    [ "${m%-twin}" != "$m" ] && args=(--mode "${m%-twin}") # a second server of the same mode
    [ "${m%-unlimited}" != "$m" ] && args=(--mode "${m%-unlimited}" --no-unsent-limit)
    "$server" --port 0 --root "$tmp/www" "${args[@]}" >"$tmp/$m.out" 2>&1 &
    pids+=($!)
    pid[$m]=$!
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
# nginx's one worker serves both of its ports: its CPU time is the one to read.
pid[nginx-off]=$(pgrep -P "$nginx_master" | head -1)
pid[nginx-on]=${pid[nginx-off]}
[ -n "${pid[nginx-off]}" ] || { echo "bench_nginx: nginx started no worker" >&2; exit 1; }

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

# The CPU time a server has used so far, all its threads (utime + stime, in clock ticks).
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
# One wrk slice: prints "REQUESTS SECONDS SERVER_CPU_TICKS". The server's CPU per request
# depends less on what else the machine runs than its rate does.
run_slice() { # name size conns
    local before after
    before=$(cpu_ticks "${pid[$1]}")
    wrk -t1 -c"$3" -d"${slice}s" "http://127.0.0.1:${port[$1]}/f$2.bin" >"$tmp/wrk.out"
    after=$(cpu_ticks "${pid[$1]}")
    awk -v t=$((after - before)) '/ requests in / { n = $1; d = $4 + 0 } END { print n + 0, d + 0, t }' "$tmp/wrk.out"
}

servers=(nginx-off nginx-on $modes)
: >"$tmp/results" # round size conns name req_per_s cpu_us_per_request
# One alternated round of these servers at every point: ROUND TAG SERVERS...
# Each server's SECONDS_ at a point are cut into slices of SLICE seconds, run in turn with the
# other servers' (A B C, C B A, A B C, ...), so that every server samples the same stretch of
# the machine's time: on loopback a large file's rate swings by a third from one wrk run to the
# next (the receiver's window closes, TCP loss probes fire), and a whole run per server put
# each server in one such state. Its figure is all its requests over all its slices' time.
measure_round() {
    local r=$1 tag=$2
    shift 2
    local order=("$@") point name k i
    if [ $((r % 2)) -eq 0 ]; then # reversed every other round
        order=()
        for ((i = $#; i >= 1; i--)); do order+=("${!i}"); done
    fi
    for point in $points_now; do
        cat "$tmp/www/f${point%%:*}.bin" >/dev/null # keep it in the page cache
        local -A n=() d=() t=()
        local now=("${order[@]}") back reqs secs_run ticks
        for ((k = 1; k <= slices; k++)); do
            for name in "${now[@]}"; do
                read -r reqs secs_run ticks <<<"$(run_slice "$name" "${point%%:*}" "${point##*:}")"
                n[$name]=$((${n[$name]:-0} + reqs))
                d[$name]=$(awk -v a="${d[$name]:-0}" -v b="$secs_run" 'BEGIN { print a + b }')
                t[$name]=$((${t[$name]:-0} + ticks))
            done
            back=() # the next slice in the other order
            for ((i = ${#now[@]} - 1; i >= 0; i--)); do back+=("${now[i]}"); done
            now=("${back[@]}")
        done
        for name in "$@"; do
            awk -v r="$tag$r" -v p="${point%%:*} ${point##*:}" -v s="$name" -v n="${n[$name]}" \
                -v d="${d[$name]}" -v t="${t[$name]}" -v hz="$hz" \
                'BEGIN { printf "%s %s %s %.2f %.2f\n", r, p, s, (d > 0 ? n / d : 0), (n > 0 ? t / hz / n * 1e6 : 0) }' \
                >>"$tmp/results"
        done
    done
}
points_now=$points
for r in $(seq "$rounds"); do
    measure_round "$r" "" "${servers[@]}"
    echo "round $r of $rounds done (load average $(load_now))" >&2
done

# The like-with-like pairs: "NAME DEMO REFERENCE" where REFERENCE "nginx-same" means nginx
# sending the body as the epoll mode does at that size.
have() { case " $modes " in *" $1 "*) return 0 ;; esac; return 1; }
pairs=""
have epoll && pairs+="epoll/nginx-same epoll nginx-same "
have epoll-copy && pairs+="epoll-copy/nginx-off epoll-copy nginx-off "
have io_uring && have epoll && pairs+="io_uring/epoll io_uring epoll "
# epoll-twin, a second epoll server, against the first: the ratio two identical servers get,
# which is the noise of these measurements. Printed, never counted as won or lost.
have epoll-twin && have epoll && pairs+="A/A:epoll-twin/epoll epoll-twin epoll "

# awk over the results: "table" prints both tables, "retry" lists the like-with-like points
# whose median ratio is in [0.95, 1.0) and that were not measured again yet.
report() { # what
    awk -v what="$1" -v points="$points" -v modes="$modes" -v pairs="$pairs" \
        -v copy_max="$epoll_copy_max" -v retry="$retry" '
function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
function bytes(s) { return s ~ /K$/ ? s * 1024 : s ~ /M$/ ? s * 1048576 : s }
function ref_of(ref, size) { return ref != "nginx-same" ? ref : bytes(size) <= copy_max ? "nginx-off" : "nginx-on" }
# The median ratio demo/ref at a point over the rounds tagged tag ("" for the main rounds).
function ratio(tag, key, demo, ref,   r, n, a, b, rat) {
    n = 0
    for (r = 1; r <= R; r++) {
        a = v[tag r " " key " " demo]; b = v[tag r " " key " " ref]
        if (a != "" && b > 0) rat[++n] = a / b
    }
    return n ? median(rat, n) : -1
}
# The median over rounds of ref CPU per request / demo CPU per request: above 1, the demo
# spends less CPU on a request than the reference.
function cpu_ratio(key, demo, ref,   r, n, a, b, rat) {
    n = 0
    for (r = 1; r <= R; r++) {
        a = u[r " " key " " demo]; b = u[r " " key " " ref]
        if (a > 0 && b != "") rat[++n] = b / a
    }
    return n ? median(rat, n) : -1
}
{ v[$1 " " $2 " " $3 " " $4] = $5; u[$1 " " $2 " " $3 " " $4] = $6; r = $1; sub(/^[^0-9]*/, "", r); if (r + 0 > R) R = r + 0 }
END {
    np = split(points, P, " "); nm = split(modes, M, " "); npair = split(pairs, Q, " ") / 3
    if (what == "table") {
        printf "%-6s %-6s %-12s %12s %10s %8s %12s\n", "size", "conns", "server", "req/s", "GB/s", "vs best", "CPU us/req"
        for (a = 1; a <= np; a++) {
            split(P[a], sc, ":"); key = sc[1] " " sc[2]
            for (k = 0; k <= nm + 1; k++) {
                name = k == 0 ? "nginx-off" : k == 1 ? "nginx-on" : M[k-1]
                n = 0; delete fig; delete rat; delete cpu
                for (r = 1; r <= R; r++) {
                    f = v[r " " key " " name]; off = v[r " " key " nginx-off"]; on = v[r " " key " nginx-on"]
                    best = off > on ? off : on
                    fig[++n] = f; rat[n] = best > 0 ? f / best : 0; cpu[n] = u[r " " key " " name]
                }
                printf "%-6s %-6s %-12s %12.0f %10.2f %8s %12.1f\n", sc[1], sc[2], name, median(fig, n),
                    median(fig, n) * bytes(sc[1]) / 1e9, k < 2 ? "" : sprintf("%.2fx", median(rat, n)),
                    median(cpu, n)
            }
        }
        if (!npair) exit
        printf "\nlike with like (median of per-round ratios; a point in [0.95, 1.0) is measured again;\n"
        printf "CPU = CPU per request of the reference over that of the demo, above 1 where the demo spends less)\n"
        printf "%-6s %-6s %-20s %-10s %8s %8s %6s  %s\n", "size", "conns", "pair", "against", "ratio", "again", "CPU", "verdict"
        won = lost = 0
        for (a = 1; a <= np; a++) for (q = 0; q < npair; q++) {
            split(P[a], sc, ":"); key = sc[1] " " sc[2]
            demo = Q[3*q+2]; ref = ref_of(Q[3*q+3], sc[1])
            x = ratio("", key, demo, ref); y = ratio("again:" Q[3*q+1] ":", key, demo, ref)
            final = y >= 0 ? y : x
            verdict = final >= 1 ? "won" : x >= 0.95 && y < 0 && retry ? "undecided" : "lost"
            if (Q[3*q+1] ~ /^A\/A:/) verdict = "noise (not counted)"
            else if (verdict == "won") won++; else lost++
            printf "%-6s %-6s %-20s %-10s %7.2fx %8s %5.2fx  %s\n", sc[1], sc[2], Q[3*q+1], ref, x,
                (y >= 0 ? sprintf("%.2fx", y) : ""), cpu_ratio(key, demo, ref), verdict
        }
        printf "like with like: %d of %d points at or above 1.0x\n", won, won + lost
    } else {
        for (a = 1; a <= np; a++) for (q = 0; q < npair; q++) {
            split(P[a], sc, ":"); key = sc[1] " " sc[2]
            demo = Q[3*q+2]; ref = ref_of(Q[3*q+3], sc[1])
            x = ratio("", key, demo, ref)
            if (Q[3*q+1] !~ /^A\/A:/ && x >= 0.95 && x < 1 && ratio("again:" Q[3*q+1] ":", key, demo, ref) < 0)
                print Q[3*q+1], P[a], demo, ref
        }
    }
}' "$tmp/results"
}

# A like-with-like point just short of 1.0x gets a second look: the pair alone, ROUNDS rounds.
if [ "$retry" = 1 ] && [ -n "$pairs" ]; then
    report retry >"$tmp/again"
    while read -r pair point demo ref; do
        echo "measuring $pair at $point again" >&2
        points_now=$point
        for r in $(seq "$rounds"); do measure_round "$r" "again:$pair:" "$demo" "$ref"; done
    done <"$tmp/again"
fi
[ -n "${RESULTS:-}" ] && cp "$tmp/results" "$RESULTS"

echo
echo "file-server vs nginx 1 worker; wrk -t1, ${secs}s in slices of ${slice}s, $rounds rounds; $("$nginx" -v 2>&1 | sed 's/.*: //')"
load_report
echo "vs best = median over rounds of (demo / better of nginx off and on); req/s for <= 64 KiB, body GB/s above"
report table
