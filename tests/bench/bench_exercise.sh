#!/usr/bin/env bash
# Save -> build verdict and save -> all checks decided, for the chat, zero-copy, copying, stdio,
# fib server, residency, fd-passing proxy and TinyFile client (synchronous and asynchronous)
# exercises: their reference solutions as the learner's files (built
# without sanitizers), and, for zero-copy, copying and stdio, a known-wrong program from their
# table (tests/data/exercises), whose failure must be told as soon as it is certain. The fib
# server's "no zombie" check watches for 2.5 s before it is decided with the rest (a child counts
# as left unreaped after a second as a zombie), so its checks take that long.
#
#   tests/bench/bench_exercise.sh BUILD_DIR [RUNS] [LESSON/STEP...]
#
# With steps named, only their rows run (`... build 7 ipc/write-fd-proxy tinyfile/write-client`),
# to spare a shared machine.
#
# Each run changes the file (a new comment, so the build cache cannot answer), then runs
# `iolab check --json` at once: the save is the write, the verdicts are the timings iolab reports
# from its start (timing.build_verdict_s, timing.checks_decided_s) plus the process start, i.e.
# the wall time from the write to each verdict. Prints the medians. Targets (issue 17): build
# verdict <= 0.5 s, all checks decided <= 3 s.
set -euo pipefail
build=${1:?usage: bench_exercise.sh BUILD_DIR [RUNS] [LESSON/STEP...]}
runs=${2:-7}
only=" ${*:3} "
src=$(cd "$(dirname "$0")/../.." && pwd)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export HOME=$home XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache
rows=$src/tests/data/exercises
for spec in chat/write-epoll-server:chat/epoll-server \
    zerocopy/write-sendfile:zerocopy/sendfile \
    zerocopy/write-sendfile:zerocopy/sendfile:wrong/giveup-eintr.c \
    copying/write-sendfile-copy:copying/memfd \
    copying/write-sendfile-copy:copying/memfd:wrong/giveup-eintr.c \
    stdio/write-buffered-reader:stdio/reader \
    stdio/write-buffered-reader:stdio/reader:wrong/drop-leftover.c \
    concurrency/write-fib-server:concurrency/fib-server \
    pagecache/count-resident:pagecache/resident \
    ipc/write-fd-proxy:ipc/fd-proxy \
    tinyfile/write-client:tinyfile/client \
    tinyfile/write-async:tinyfile/async; do
    IFS=: read -r step exdir row <<<"$spec"
    [ "$only" = "  " ] || [[ $only == *" $step "* ]] || continue
    dir=$home/$exdir${row:+-${row//\//-}}
    mkdir -p "$dir"
    cp "$src/lessons/exercises/$exdir"/* "$dir/"
    file=$(grep -l "/\* TODO" "$dir"/*.c | head -1) # the learner's: the one with a TODO
    [ -z "$row" ] || cp "$rows/$step/$row" "$file"
    step_label=$step${row:+ ($row)}
    builds=() decided=()
    for i in $(seq "$runs"); do
        echo "/* save $i $RANDOM */" >>"$file"
        t0=$(date +%s.%N)
        out=$("$build/bin/iolab" check "$step" --pack "$src/lessons" --dir "$dir" --json || true)
        t1=$(date +%s.%N)
        read -r b d st < <(python3 -c '
import json,sys
j=json.loads(sys.argv[1]); t=j["timing"]
print(t["build_verdict_s"], t["checks_decided_s"], j["status"])' "$out")
        wall=$(python3 -c "print($t1 - $t0)")
        builds+=("$b") decided+=("$d")
        printf '%s run %d: status %s, build verdict %.3f s, all checks decided %.3f s (wall, write to exit: %.3f s)\n' \
            "$step_label" "$i" "$st" "$b" "$d" "$wall"
    done
    python3 - "$step_label" "${builds[*]}" "${decided[*]}" <<'PY'
import statistics, sys
step, b, d = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
print(f"{step}: median build verdict {statistics.median(b):.3f} s (target 0.5), "
      f"median all checks decided {statistics.median(d):.3f} s (target 3), over {len(b)} runs")
PY
done
