#!/bin/sh
# The cost of a sweep itself: 6 points x 3 modes at S seconds per point (default 1) over the
# fake client of the tests (tests/progs/sweep_fake.c), whose programs start and stop at once, so
# that what is left above 18 x S is iolab's own overhead: creating an engine, the jail, waiting
# for the first running snapshot, stopping and reaping, per point. Prints each run's wall time
# and the median overhead per point.
#
#   tests/bench/bench_sweep.sh [BUILD_DIR] [RUNS] [SECONDS]
set -eu
build=${1:-build}
runs=${2:-3}
secs=${3:-1}
fake="$(cd "$build" && pwd)/lib/iolab/iolab-sweep-fake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pack"
cat > "$tmp/pack/pack.json" <<JSON
{"format_version": 1, "id": "bench-sweep", "title": "Sweep bench", "version": "1", "lessons": ["fake"]}
JSON
cat > "$tmp/pack/fake.json" <<JSON
{"id": "fake", "title": "Fake", "summary": "6 points x 3 modes",
 "steps": [{"id": "sweep", "title": "Sweep", "kind": "run", "text": "bench",
  "programs": [{"name": "load", "role": "client", "program": "$fake", "args": ["--value", "{n}"]}],
  "modes": [{"id": "a", "title": "a", "program": "load", "args": ["--mode", "flat"]},
            {"id": "b", "title": "b", "program": "load", "args": ["--mode", "linear"]},
            {"id": "c", "title": "c", "program": "load", "args": ["--mode", "flat"]}],
  "sweep": {"param": "n", "values": ["1", "4", "16", "64", "256", "1024"],
            "figure": "requests_per_s", "seconds": $secs}}]}
JSON
i=0
: > "$tmp/times"
while [ "$i" -lt "$runs" ]; do
    start=$(date +%s.%N)
    "$build/bin/iolab" run fake/sweep --pack "$tmp/pack" --json > "$tmp/out.json"
    end=$(date +%s.%N)
    measured=$(python3 -c "import json; d=json.load(open('$tmp/out.json')); print(sum(p['seconds'] for p in d['points']))")
    echo "$start $end $measured" | awk -v s="$secs" '{t=$2-$1; printf "run: %.2f s wall for 18 points of %g s (%.2f s measured inside them); overhead %.0f ms per point\n", t, s, $3, (t-18*s)/18*1000}'
    echo "$start $end" | awk -v s="$secs" '{print ($2-$1-18*s)/18*1000}' >> "$tmp/times"
    i=$((i + 1))
done
sort -n "$tmp/times" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "median overhead per point: %.0f ms (18 points: %.1f s above the points themselves)\n", m, m*18/1000}'
