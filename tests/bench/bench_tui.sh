#!/bin/bash
# bench_tui.sh: what the TUI itself costs while a scenario runs, measured in a real terminal
# (a private tmux server), never pass/fail.
#
#   - time to the first frame: from a timestamp taken right before exec to the wall-clock time
#     iolab logs when its first full screen has been refreshed (--log-first-frame);
#   - CPU share of the iolab process (utime+stime from /proc/PID/stat) over SECONDS seconds
#     while the concurrency lesson's run step (echo server, 8 connections) runs, at --tick-hz;
#   - time per frame: that CPU time divided by the ticks in the span (each tick samples and
#     redraws), in ms;
#   - memory: VmRSS at the end and VmHWM (peak) of the iolab process.
# With LOAD="procs N" or LOAD="threads N", the scenario is instead N idle-ish processes (or one
# process of N threads) that wake every 50 ms (bench_sampler --load), to see what the sampler's
# reads of /proc cost in the TUI. The step asks the sandbox for room for N processes and threads
# (its "limits"), so N may go to 1,000 and beyond.
# Prints each run and the medians. Targets (issue 3): <= 1% of a core at 10 Hz, <= 16 MB RSS,
# <= 50 ms to the first frame; (issue 20) <= 1% at 256 processes.
#
# usage: tests/bench/bench_tui.sh [BUILD_DIR] (env: RUNS=5 SECONDS_=20 HZ=10 LOAD=)
set -euo pipefail
build=$(cd "${1:-$(dirname "$0")/../../build}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-5}
secs=${SECONDS_:-20}
hz=${HZ:-10}
tmp=$(mktemp -d /tmp/iolab-bench-tui-XXXXXX)
sock=iolab-bench-$$
trap 'tmux -L $sock kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
load=${LOAD:-}
mkdir -p "$tmp/pack"
chmod 755 "$tmp"
if [ -n "$load" ]; then
    read -r kind n <<<"$load"
    cat >"$tmp/pack/concurrency.json" <<JSON
{"id": "concurrency", "title": "load", "summary": "s", "steps": [
 {"id": "compare", "title": "load", "kind": "run", "text": ["$load"],
  "limits": {"processes": $((n + 64)), "open_files": $((4 * n + 1024))},
  "programs": [{"name": "load", "role": "server", "program": "${LOADER:-$build/bin/bench_sampler}",
                "args": ["--load", "$kind", "$n"], "ready": "ready"}]}]}
JSON
    needle="procs "
else
    ln -s "$src/lessons/concurrency.json" "$tmp/pack/concurrency.json"
    needle="epoll_wait"
fi
cat >"$tmp/pack/pack.json" <<JSON
{"format_version": 1, "id": "bench", "title": "bench", "version": "1", "lessons": ["concurrency"]}
JSON
clk=$(getconf CLK_TCK)
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
wait_screen() { # needle timeout_s
    local end=$((SECONDS + $2))
    while ((SECONDS < end)); do
        tmux -L $sock capture-pane -p | grep -qF -- "$1" && return 0
        sleep 0.05
    done
    echo "bench_tui: '$1' did not appear" >&2
    return 1
}

echo "run  first_frame_ms  cpu_pct_of_core  ms_per_frame  rss_kb  hwm_kb"
: >"$tmp/ff" >"$tmp/cpu" >"$tmp/frame" >"$tmp/rss" >"$tmp/hwm"
for run in $(seq "$runs"); do
    state="$tmp/state$run"
    cat >"$tmp/run.sh" <<SH
export HOME=$tmp XDG_STATE_HOME=$state TERM=xterm-256color
date +%s.%N > $tmp/t0
exec $build/bin/iolab --pack $tmp/pack --tick-hz $hz --open concurrency/compare --log-first-frame
SH
    tmux -L $sock -f /dev/null new-session -d -x 160 -y 48 "sh $tmp/run.sh"
    wait_screen "Enter starts the scenario" 10
    pid=$(tmux -L $sock display-message -p '#{pane_pid}')
    t0=$(cat "$tmp/t0")
    t1=$(grep -o 'first frame .* at [0-9.]*' "$state/iolab/iolab.log" | tail -1 | awk '{print $NF}')
    ff=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) * 1000}')
    tmux -L $sock send-keys Enter
    wait_screen "$needle" 20
    sleep "${WARM:-1}" # past the start-up transient (the first reads of every process)
    read -r u0 s0 < <(awk '{print $14, $15}' /proc/$pid/stat)
    sleep "$secs"
    read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
    cpu=$(awk -v d=$((u1 + s1 - u0 - s0)) -v hz="$clk" -v s="$secs" \
        'BEGIN {printf "%.2f", d / hz / s * 100}')
    frame=$(awk -v d=$((u1 + s1 - u0 - s0)) -v hz="$clk" -v s="$secs" -v f="$hz" \
        'BEGIN {printf "%.3f", d / hz / (s * f) * 1000}')
    rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
    hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
    echo "$run  $ff  $cpu  $frame  $rss  $hwm"
    echo "$ff" >>"$tmp/ff"; echo "$cpu" >>"$tmp/cpu"; echo "$frame" >>"$tmp/frame"
    echo "$rss" >>"$tmp/rss"; echo "$hwm" >>"$tmp/hwm"
    tmux -L $sock send-keys q y
    for _ in $(seq 100); do [ -e /proc/$pid ] || break; sleep 0.05; done
    tmux -L $sock kill-server 2>/dev/null || true
done
echo "median first frame: $(median <"$tmp/ff") ms (target <= 50)"
echo "median iolab CPU at $hz Hz: $(median <"$tmp/cpu") % of one core over $secs s (target <= 1)${load:+ with $load}"
echo "median CPU per frame (sample + draw): $(median <"$tmp/frame") ms"
echo "median RSS: $(median <"$tmp/rss") kB, peak $(median <"$tmp/hwm") kB (target <= 16384)"
echo "reproduce: RUNS=$runs SECONDS_=$secs HZ=$hz${load:+ LOAD=\"$load\"} tests/bench/bench_tui.sh $build"
