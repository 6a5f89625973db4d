#!/bin/sh
# Produces the README's table of lesson results ("What the lessons show") from `iolab bench
# --json`, so the figures come from the code and anyone can regenerate them:
#
#   tests/bench/readme-table.sh [BUILD_DIR] [REPEAT] [SECONDS] > table.md
#
# Each row is one step's bench: the median figure of each mode, its ratio to the first mode,
# and the step's seed headline beside this machine's ratio when the step has one. Paste the
# output over the table in README.md (only that table).
set -eu
build=${1:-build}
repeat=${2:-3}
seconds=${3:-2}
iolab="$build/bin/iolab"
# The steps the README reports: "STEP|MODES" (MODES empty: every mode of the step).
steps="concurrency/compare|iterative,epoll,fork,thread
zerocopy/compare|read-send,sendfile
pagecache/coldwarm|cold,warm
stdio/sweep|read,fread,fread-setvbuf
copying/sweep|read-write,sendfile
concurrency/sweep|iterative,epoll,fork,thread
tinyfile/sweep|seg1,seg3,seg5
tinyfile/async|sync,async"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| step | figure | median per mode (ratio to the first) | seed's headline | command |"
echo "| --- | --- | --- | --- | --- |"
echo "$steps" | while IFS='|' read -r step modes; do
    set -- bench "$step" --repeat "$repeat" --seconds "$seconds" --json
    [ -n "$modes" ] && set -- "$@" --mode "$modes"
    if ! "$iolab" "$@" > "$tmp/out.json" 2> "$tmp/err"; then
        echo "| \`$step\` | not measured: $(tail -n 1 "$tmp/err") | | | |"
        continue
    fi
    python3 - "$tmp/out.json" "$step" "$modes" "$repeat" "$seconds" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
step, modes, repeat, seconds = sys.argv[2:6]
def human(v, unit):
    if v is None:
        return "-"
    for s in ["", "k", "M", "G"]:
        if abs(v) < 1000:
            break
        v /= 1000
    return f"{v:.3g}{s} {unit}".strip()
# For a sweep: the last value's figures (the right end of the curve), named.
cells = []
for m in b["modes"]:
    p = m["points"][-1]
    at = f" at {b['param']}={p['value']}" if b["param"] else ""
    cells.append(f"{m['mode']} {human(p['median'], b['unit'])} ({p['ratio']:.2f}x){at}")
hl = b["headline"]["sentence"] if b.get("headline") else ""
cmd = f"`iolab bench {step} --repeat {repeat} --seconds {seconds}" + (f" --mode {modes}" if modes else "") + "`"
print(f"| `{step}` | {b['figure']} | {'; '.join(cells)} | {hl} | {cmd} |")
PY
done
