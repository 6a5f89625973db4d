#!/bin/sh
# The jail's cost (see bench_sandbox.c), from a build tree where `cmake --build` made it.
# Usage: tests/bench/bench_sandbox.sh [BUILD_DIR] [STARTS] [ROUNDS]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
exec "$build/bin/bench_sandbox" "$build" "${2:-200}" "${3:-5}"
