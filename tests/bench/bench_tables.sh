#!/usr/bin/env bash
# Every row of the exercise tables (tests/data/exercises: known-wrong programs and other correct
# ones), each checked RUNS times with `iolab check --json`, as test_exercise_table.cpp checks it
# once: a row whose verdict was ever not the one its first line expects (a wrong program that
# passed, a right one that failed, a failure without its sentence) is printed with how often, and
# with what the failing checks of each such run said.
# A checker whose verdict depends on the run is no verdict: this is how a rare event left to
# chance shows up.
#
#   tests/bench/bench_tables.sh BUILD_DIR [RUNS] [LESSON/STEP...]
#
# RUNS defaults to 5. With steps named, only their tables run. The last line counts the rows and
# the rows that changed; the exit status is 0 whatever was found (a benchmark judges nothing).
set -euo pipefail
build=${1:?usage: bench_tables.sh BUILD_DIR [RUNS] [LESSON/STEP...]}
runs=${2:-5}
only=" ${*:3} "
src=$(cd "$(dirname "$0")/../.." && pwd)
iolab=$(cd "$build" && pwd)/bin/iolab
home=$(mktemp -d /var/tmp/iolab-tables-XXXXXX)
trap 'rm -rf "$home"' EXIT
export HOME=$home XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache
# A shared machine's load is part of what a verdict must withstand: it is printed with the count.
. "$(dirname "$0")/loadavg.sh"
load_begin bench_tables

# The exercise's directory under lessons/ for LESSON/STEP (its "dir").
exercise_dir() {
    python3 - "$src/lessons/${1%%/*}.json" "${1#*/}" <<'EOF'
import json, sys
for s in json.load(open(sys.argv[1]))["steps"]:
    if s["id"] == sys.argv[2]:
        print(s["dir"])
EOF
}

# "pass", or "fail" when some check that is not a pass says the sentence, or what was seen.
verdict_of() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("no-json"); sys.exit()
want = sys.argv[2]
status = d.get("status", "?")
if status != "fail" or not want:
    print(status); sys.exit()
# "A || B": either sentence, as test_exercise_table.cpp reads a row's first line.
said = any(one in (c.get("message") or "") for c in d.get("checks", []) if c.get("ok") is not True
           for one in want.split(" || "))
print("fail" if said else "fail-without-sentence")
EOF
}

# What the checks that did not hold said in run RUN, so that a verdict that changed can be read.
said_by() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print(f"    run {sys.argv[2]}: no JSON"); sys.exit()
print(f"    run {sys.argv[2]}: {d.get('status')} {d.get('error') or ''}")
for c in d.get("checks", []):
    if c.get("ok") is False:
        print(f"      {(c.get('message') or '')[:300]}")
EOF
}

rows=0 changed=0
for table in "$src"/tests/data/exercises/*/*/; do
    step=${table%/}
    step=${step#"$src/tests/data/exercises/"}
    [ "$only" = "  " ] || [[ $only == *" $step "* ]] || continue
    dir=$(exercise_dir "$step")
    for row in "$table"wrong/*.c "$table"right/*.c; do
        [ -e "$row" ] || continue
        first=$(head -1 "$row")
        case $first in
        *"expect: pass"*) want=pass sentence= ;;
        *"expect: fail: "*)
            want=fail
            sentence=${first#*expect: fail: }
            sentence=${sentence% \*/}
            ;;
        *) continue ;;
        esac
        ws=$home/ws
        rm -rf "$ws" && mkdir -p "$ws" && cp "$src/lessons/$dir"/* "$ws/"
        file=$(grep -l "TODO" "$ws"/*.c | head -1)
        cp "$row" "$file"
        rows=$((rows + 1))
        seen=""
        : >"$home/odd"
        for i in $(seq "$runs"); do
            "$iolab" check "$step" --dir "$ws" --json >"$home/out.json" 2>/dev/null || true
            v=$(verdict_of "$home/out.json" "$sentence")
            seen+="$v "
            [ "$v" = "$want" ] || said_by "$home/out.json" "$i" >>"$home/odd"
        done
        bad=$(tr ' ' '\n' <<<"$seen" | grep -c -v -x -e "$want" -e '' || true)
        if [ "$bad" -gt 0 ]; then
            changed=$((changed + 1))
            printf '%s %s: expected %s, got %s\n' "$step" "${row#"$table"}" "$want" "$seen"
            cat "$home/odd"
        fi
    done
done
echo "$rows rows, $runs runs each: $changed with a verdict other than expected in some run"
load_report
