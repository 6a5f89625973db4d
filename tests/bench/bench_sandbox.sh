#!/bin/sh
# The jail's cost (see bench_sandbox.c): builds the benchmark with the system compiler against
# app/engine/jail.c and runs it. Usage: tests/bench/bench_sandbox.sh [BUILD_DIR] [STARTS] [ROUNDS]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
out=$(mktemp -d /tmp/iolab-bench-bin-XXXXXX)
trap 'rm -rf "$out"' EXIT
cc -std=gnu17 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/app" -o "$out/bench_sandbox" \
    "$src/tests/bench/bench_sandbox.c" "$src/app/engine/jail.c"
"$out/bench_sandbox" "$build" "${2:-200}" "${3:-5}"
