#!/bin/sh
# Every test case must have a name ctest can run: catch_discover_tests keeps the names in a CMake
# list, so a ';' in one splits it into names that match no test case, and Catch then runs nothing
# and exits 0 (ctest says Passed). Usage: check_test_names.sh TEST_PROGRAM...
bad=0
names=0
for prog in "$@"; do
    # Catch v2 exits with the number of test cases listed: the output is what counts.
    list=$("$prog" --list-test-names-only 2>&1)
    [ -n "$list" ] || { echo "$prog: lists no test case" >&2; exit 1; }
    names=$((names + $(printf '%s\n' "$list" | grep -c .)))
    hits=$(printf '%s\n' "$list" | grep ';') && {
        printf '%s: a name with a ;, which ctest cannot run: %s\n' "${prog##*/}" "$hits" >&2
        bad=1
    }
done
[ "$bad" = 0 ] || { echo "rename them (a comma is fine)" >&2; exit 1; }
echo "$# test programs, $names test case names, none with a ';'"
