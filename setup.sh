#!/usr/bin/env bash
# One command from a fresh Debian or Ubuntu machine to a running iolab, or to a tested one:
#
#   ./setup.sh                 install what is missing, build, open iolab on the built-in pack
#   ./setup.sh --test          the same set-up, then the whole test suite
#   ./setup.sh --test --sanitize   the suite again, built with AddressSanitizer + UBSan
#
# Anything after `--` goes to iolab itself (./setup.sh -- run concurrency --json).
set -euo pipefail
cd "$(dirname "$0")"

mode=run
sanitize=0
while [ $# -gt 0 ]; do
    case "$1" in
    --test) mode=test ;;
    --sanitize) sanitize=1 ;;
    -h | --help)
        sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    --) shift; break ;;
    *)
        echo "setup.sh: unknown option '$1'; ./setup.sh --help lists the options." >&2
        exit 2
        ;;
    esac
    shift
done

# What the build and the program use, by Debian/Ubuntu package name; the tests need more.
packages=(
    build-essential cmake pkg-config       # the toolchain
    libncurses-dev libuv1-dev libcjson-dev libdw-dev # iolab's libraries (libdw: call sites to lines)
    liburing-dev                           # the demos' io_uring modes (optional: without it
                                           # they say they are missing)
)
test_packages=(
    catch2                     # the tests (Catch2 v2: Debian 12, Ubuntu 22.04)
    strace tmux curl wrk       # compare with strace, drive a real terminal, load real servers
    nginx-light                # the production server beside the demo (zerocopy/nginx)
    iproute2 procps util-linux # ip, /proc tools, setpriv
    clang libclang-rt-14-dev   # the libFuzzer targets (tests/fuzz, run by .ci/run)
    python3-jsonschema         # validate pack files against assets/schema (it_schema)
    dpkg-dev lintian           # cpack -G DEB's dpkg-shlibdeps, and Debian's checker (it_package)
    ccache                     # the three builds of a test run (normal, fuzz, sanitized) again
)
[ "$mode" = test ] && packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
# With ccache, a build in another checkout of the same sources (CI clones afresh each time)
# compiles only what changed: paths are hashed relative to the checkout, not the directory. The
# test programs are the exception: each is compiled with its checkout's paths as string literals,
# so a clone at another path compiles them again (tests/README.md, "Build time").
launcher=()
if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ "$sanitize" = 1 ]; then
    build=build-sanitize
    cmake -S . -B "$build" -DIOLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug "${launcher[@]}" >/dev/null
else
    build=build
    # Opening iolab needs no test framework; the test run builds the tests too.
    tests=OFF
    [ "$mode" = test ] && tests=ON
    cmake -S . -B "$build" -DIOLAB_TESTS=$tests "${launcher[@]}" >/dev/null
fi
targets=()
# The sanitized run builds only what it runs (tests/CMakeLists.txt, memory_suite).
[ "$sanitize" = 1 ] && [ "$mode" = test ] && targets=(--target memory_suite)
cmake --build "$build" -j "$jobs" "${targets[@]}"

if [ "$mode" = test ]; then
    if [ "$sanitize" = 1 ]; then
        # Preloaded programs put the counting shim ahead of the ASan runtime on purpose.
        export ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:abort_on_error=1"
        export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    fi
    # One test more than cores: most integration tests wait on processes, terminals and time
    # windows rather than compute, and the suite must fit CI's time on a 2-core machine. The
    # sanitized build runs what exercises memory (every unit test and the tests labelled
    # "memory": tests/README.md says which and why); the normal build runs everything.
    labels=()
    [ "$sanitize" = 1 ] && labels=(-L 'unit|memory')
    exec ctest --test-dir "$build" --output-on-failure -j "$((jobs + 1))" --timeout 300 "${labels[@]}"
fi

if [ -t 0 ] && [ -t 1 ]; then
    exec "$build/bin/iolab" "$@"
fi
echo "setup.sh: no terminal here, so iolab runs the echo lesson headless instead of opening." >&2
exec "$build/bin/iolab" run concurrency --seconds 3 "$@"
