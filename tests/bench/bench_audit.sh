#!/bin/sh
# The audit's cost per traced call (iolab-sandbox --audit, sandbox/launcher/audit.h): a program
# makes N one-byte read()s of /dev/zero, run through the launcher with and without
# `--audit read` (every read stops twice: its seccomp stop, where the tracer also names its
# descriptor's kind, and its exit, where it reads what the call returned), ROUNDS times each.
# Prints the medians and the difference per call. The program times its own loop (clock_gettime
# around the calls), so the launcher's start and the tracer's set-up are not in the figure.
# Usage: tests/bench/bench_audit.sh [BUILD_DIR] [N] [ROUNDS]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
n=${2:-200000}
rounds=${3:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/reads.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    int fd = open("/dev/zero", O_RDONLY);
    char c;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        if (read(fd, &c, 1) != 1)
            return 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
C
cc -O2 -o "$tmp/reads" "$tmp/reads.c"
# The page iolab would hand over: a memfd with the magic, made by python3 and passed as fd 5.
page='import os,struct,sys; fd=os.memfd_create("a",0); os.ftruncate(fd,1<<16); os.pwrite(fd,struct.pack("<Q",0x696f6c6162617564),0); os.dup2(fd,5); os.execv(sys.argv[1],sys.argv[1:])'
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for mode in plain audited; do
    : > "$tmp/$mode"
    for r in $(seq "$rounds"); do
        if [ $mode = plain ]; then
            python3 -c "$page" "$build/bin/iolab-sandbox" --quiet --tier minimal -- "$tmp/reads" "$n"
        else
            python3 -c "$page" "$build/bin/iolab-sandbox" --quiet --tier minimal --audit read \
                --audit-fd 5 -- "$tmp/reads" "$n"
        fi >> "$tmp/$mode"
    done
done
p=$(median < "$tmp/plain")
a=$(median < "$tmp/audited")
echo "read() of 1 byte, $n calls, median of $rounds: untraced $p ns, traced $a ns, audit +$(echo "$a - $p" | bc) ns per call"
