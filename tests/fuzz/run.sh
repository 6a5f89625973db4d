#!/usr/bin/env bash
# Builds the fuzz targets (clang, ASan+UBSan, in BUILD, default build-fuzz) and runs both at once,
# each for SECONDS (default 60) or RUNS executions, whichever comes first, from the seed corpus
# plus what earlier runs in BUILD found. Exits non-zero when a target finds a crash, a leak,
# undefined behaviour or a broken promise; the input that did it is left in BUILD/artifacts/.
#
#   tests/fuzz/run.sh                         # CI: about a minute per target
#   tests/fuzz/run.sh build-fuzz 3000 10000000  # the long run of tests/README.md
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-fuzz}
seconds=${2:-60}
runs=${3:--1}
cd "$root"
launcher=()
if command -v ccache >/dev/null 2>&1; then # as setup.sh: hits across checkouts
    export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -DIOLAB_FUZZ=ON -DIOLAB_TESTS=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_lesson fuzz_progress >/dev/null
tests/fuzz/make_corpus.sh "$build/corpus" >/dev/null
mkdir -p "$build/artifacts"
# The two targets run side by side, one process each: each still gets its SECONDS of a core on
# CI's 2-core machine, and the run takes half the time it took one after the other.
fuzz_one() {
    local target=$1
    mkdir -p "$build/found/$target"
    # -detect_leaks stays on: a leak in the loader is a finding. One job per target.
    "$build/bin/fuzz_$target" -max_total_time="$seconds" -runs="$runs" \
        -dict="tests/fuzz/$target.dict" -artifact_prefix="$build/artifacts/$target-" \
        -print_final_stats=1 "$build/found/$target" "$build/corpus/$target" \
        >"$build/fuzz_$target.log" 2>&1
}
targets=(lesson progress)
pids=()
for target in "${targets[@]}"; do
    echo "fuzz_$target: up to ${seconds} s or $runs runs" >&2
    fuzz_one "$target" &
    pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
    target=${targets[$i]}
    if ! wait "${pids[$i]}"; then
        echo "fuzz_$target FAILED; the input is in $build/artifacts/, the log in $build/fuzz_$target.log" >&2
        grep -E '^(==[0-9]+==ERROR|SUMMARY)' "$build/fuzz_$target.log" >&2 || tail -20 "$build/fuzz_$target.log" >&2
        status=1
        continue
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz_$target.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$build/fuzz_$target.log")
    echo "fuzz_$target: $execs executions ($rate/s), no finding" >&2
done
exit "$status"
