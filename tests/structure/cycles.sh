#!/bin/sh
# Which source files of iolab call each other in a circle? A file that uses a function another
# file defines depends on it; two files that depend on each other, directly or around a longer
# circle, cannot be understood, tested or moved one without the other. The edges come from the
# compiled objects (nm): a symbol one object leaves undefined and another defines. Files named by
# their source's basename (iolab_page.c is compiled into two libraries: one node).
# Usage: cycles.sh OBJECT...     the objects to look at
#        cycles.sh --list FILE  the objects named in FILE, one a line (ctest's: the app's
#                               libraries' and the shim's, tests/CMakeLists.txt)
#        cycles.sh BUILD_DIR    every *.c.o under BUILD_DIR/app and BUILD_DIR/sandbox (an object
#                               a removed source left behind counts too: prefer the first form)
# Prints each circle with the calls that close it and exits 1 if there is one.
set -eu
[ $# -gt 0 ] || { echo "usage: cycles.sh OBJECT... | BUILD_DIR" >&2; exit 2; }
if [ "$1" = --list ]; then
    [ -f "${2:-}" ] || { echo "cycles.sh: --list needs a file" >&2; exit 2; }
    set -- $(cat "$2")
fi
if [ $# = 1 ] && [ -d "$1" ]; then
    objs=$(find "$1/app" "$1/sandbox" -name '*.c.o' | sort)
else
    objs=""
    missing=0
    for o in "$@"; do
        if [ -f "$o" ]; then objs="$objs $o"; else missing=$((missing + 1)); fi
    done
    [ "$missing" = 0 ] || echo "cycles.sh: $missing objects not built, not looked at"
fi
[ -n "$objs" ] || { echo "cycles.sh: no objects: build first" >&2; exit 1; }
for o in $objs; do
    src=${o##*/}
    src=${src%.o}
    nm "$o" | awk -v src="$src" '
        $1 == "U" { print "U", src, $2; next }
        NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", src, $3 }'
done | awk '
    $1 == "D" { def[$3] = $2; nodes[$2] = 1; next }
    $1 == "U" { use[++nu] = $2 " " $3; nodes[$2] = 1 }
    END {
        n = 0
        for (f in nodes) { id[f] = ++n; name[n] = f }
        edges = 0
        for (i = 1; i <= nu; i++) {
            split(use[i], p, " ")
            if (!(p[2] in def) || def[p[2]] == p[1]) continue
            a = id[p[1]]; b = id[def[p[2]]]
            if (!((a, b) in r)) { r[a, b] = 1; edges++; why[a, b] = p[2] }
        }
        for (k = 1; k <= n; k++)
            for (i = 1; i <= n; i++) {
                if (!((i, k) in r)) continue
                for (j = 1; j <= n; j++)
                    if ((k, j) in r) r[i, j] = 1
            }
        bad = 0
        for (i = 1; i <= n; i++) {
            if (done[i] || !((i, i) in r)) continue
            line = ""
            for (j = 1; j <= n; j++)
                if ((i, j) in r && (j, i) in r) {
                    done[j] = 1
                    line = line " " name[j]
                }
            print "circle:" line
            for (a = 1; a <= n; a++)
                for (b = 1; b <= n; b++)
                    if ((a, b) in why && (i, a) in r && (a, i) in r && (i, b) in r && (b, i) in r)
                        print "  " name[a] " -> " name[b] " (" why[a, b] ")"
            bad = 1
        }
        if (bad) exit 1
        print n " files, " edges " edges between them, no circle"
    }'
