#!/bin/sh
# Does every folder of the program and the sandbox say what each of its files is? A newcomer opens
# a folder's README.md to find the file that does a thing; a table that names a file no longer
# there, or leaves out one that is, sends them to the wrong place. For every folder under app/ and
# sandbox/ that holds C sources, its README.md must have a table whose header's first cell is
# "file"; the first column of such tables names files in backquotes (`a.c`, or `a.c`, `a.h` in
# one cell). Every .c and .h of the folder must be named there, except a header beside a named .c
# of the same stem (the module's pair: `figure.c` stands for figure.h too), and every name there
# must be a file of the folder.
# Usage: readme_files.sh SOURCE_DIR     exits 1 and names each folder and file that differ.
set -eu
[ $# = 1 ] && [ -d "$1/app" ] || { echo "usage: readme_files.sh SOURCE_DIR" >&2; exit 2; }
root=$1
bad=0
for dir in $(find "$root/app" "$root/sandbox" -mindepth 1 -type d | sort); do
    ls "$dir"/*.c "$dir"/*.h >/dev/null 2>&1 || continue
    rel=${dir#"$root"/}
    if [ ! -f "$dir/README.md" ]; then
        echo "$rel: no README.md, and the folder has C sources"
        bad=1
        continue
    fi
    # The first cells of every table headed by "file": names in backquotes, one a line.
    named=$(awk '
        /^\|/ {
            split($0, cell, "|")
            first = cell[2]
            if (!intable) {
                intable = 1
                head = first
                gsub(/[ \t]/, "", head)
                filetable = (head == "file" || head == "files")
                next
            }
            if (!filetable || first ~ /^ *-+ *$/) next
            while (match(first, /`[^`]+`/)) {
                print substr(first, RSTART + 1, RLENGTH - 2)
                first = substr(first, RSTART + RLENGTH)
            }
            next
        }
        { intable = 0 }' "$dir/README.md" | sort -u)
    if [ -z "$named" ]; then
        echo "$rel/README.md: no table whose first column is \"file\""
        bad=1
        continue
    fi
    for name in $named; do
        if [ ! -f "$dir/$name" ]; then
            echo "$rel/README.md names $name, which is not in the folder"
            bad=1
        fi
    done
    for path in "$dir"/*.c "$dir"/*.h; do
        [ -f "$path" ] || continue
        f=${path##*/}
        echo "$named" | grep -qxF "$f" && continue
        case $f in
        *.h) echo "$named" | grep -qxF "${f%.h}.c" && continue ;;
        esac
        echo "$rel/README.md does not name $f"
        bad=1
    done
done
exit $bad
