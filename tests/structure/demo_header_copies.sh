#!/bin/sh
# Do the exercises' copies of the demos' protocol headers still say what the demos say? A pack is
# read from its own directory, so an exercise cannot include sandbox/demos/tinyfile.h: it keeps a
# copy beside its solution (lessons/exercises/tinyfile/*/tinyfile.h, upload/*/upload.h), and the
# reference programs it runs against are the demos, built from the originals. A message layout
# changed on one side only would have the learner's client and the service disagree about bytes.
# Every .h under lessons/exercises/ whose name is a header of sandbox/demos/ must equal it, apart
# from a first line "/* iolab-starter: N */" (the starter generator's version marker).
# Usage: demo_header_copies.sh SOURCE_DIR     exits 1 and names each copy that differs.
set -eu
if [ $# != 1 ] || [ ! -d "$1/sandbox/demos" ]; then
    echo "usage: demo_header_copies.sh SOURCE_DIR" >&2
    exit 2
fi
root=$1
bad=0
copies=0
for copy in $(find "$root/lessons/exercises" -name '*.h' | sort); do
    orig="$root/sandbox/demos/${copy##*/}"
    [ -f "$orig" ] || continue
    copies=$((copies + 1))
    if ! sed '1{/^\/\* iolab-starter: [0-9]* \*\/$/d;}' "$copy" | cmp -s - "$orig"; then
        echo "${copy#"$root"/} differs from ${orig#"$root"/}:"
        sed '1{/^\/\* iolab-starter: [0-9]* \*\/$/d;}' "$copy" | diff "$orig" - | head -20 || true
        bad=1
    fi
done
if [ "$copies" = 0 ]; then
    echo "demo_header_copies.sh: no copy found under lessons/exercises" >&2
    exit 1
fi
exit $bad
