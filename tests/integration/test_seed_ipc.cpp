// The exercises of the two IPC seeds, headless (`iolab check --dir`): the proxy that receives the
// cache's open file over a Unix socket and sendfile()s it (ipc/write-fd-proxy, seed 001), and
// the TinyFile client's synchronous call through System V segments and semaphores
// (tinyfile/write-client, seed 003). For each: the starter builds, runs and fails with a sentence
// that names its TODO, and the solution passes with the figures the checks read (the kernel's
// and the reference programs', not the learner's). Their known-wrong and other correct programs
// are rows of tests/data/exercises/{ipc,tinyfile} (test_exercise_table.cpp).
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

using namespace iolab_test;

namespace
{

const Exercise kProxy{"ipc/write-fd-proxy", "ipc/fd-proxy", "ipc-proxy.c", {"ipc-fd.h"}};
const Exercise kTiny{"tinyfile/write-client", "tinyfile/client", "tiny-client.c", {"tinyfile.h"}};

} // namespace

TEST_CASE("ipc: the starter loses the descriptor and says so; the solution receives it, "
          "sendfile()s it and closes it",
          "[exercises]")
{
    // The starter reads the reply with recv(): the kernel drops the descriptor, the proxy says
    // so, and the check points at TODO 1.
    expect_starter_fails(kProxy, "The descriptor arrives");
    TempDir home;
    Result s = check(home, kProxy, {});
    CHECK(has(verdict(s, "The descriptor arrives"), "TODO 1 of ipc-proxy.c"));
    CHECK(has(s.out, "came without its descriptor"));

    // The solution: every file whole (the client compared every byte), one recvmsg() per file,
    // sendfile() from a file to a socket, no read() of a file, and no leak under a 64-descriptor
    // limit over hundreds of requests.
    Result ok = check(home, kProxy, {"--dir", solution_dir(kProxy)});
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(has(verdict(ok, "Downloads arrive whole"), "ok: "));
    CHECK(has(verdict(ok, "The proxy receives with recvmsg()"), "ok: "));
    CHECK(has(verdict(ok, "file to the socket with sendfile()"), "on a file to a socket"));
    CHECK(has(verdict(ok, "no read() of the file"), "ok: yours: 0 read calls on a file"));
    CHECK(has(verdict(ok, "closed after use"), "ok: yours: 0 matching lines"));
}

TEST_CASE("tinyfile: the starter's results are wrong and it says where; the solution's chunks "
          "reach the service and every client detaches",
          "[exercises]")
{
    // The starter moves no chunk through the service: the result does not decompress, and the
    // sentence names the TODOs of the handshake.
    expect_starter_fails(kTiny, "Every result is the service's compression");
    TempDir home;
    Result s = check(home, kTiny, {});
    CHECK(has(verdict(s, "Every result is the service's compression"), "TODO 3 of tiny-client.c"));

    // The solution: the service counted the chunks it compressed, the shim counted four semop
    // calls a chunk or more and a shmdt() at every leave.
    Result ok = check(home, kTiny, {"--dir", solution_dir(kTiny)});
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(has(verdict(ok, "The service compresses 300 chunks"), "ok: "));
    CHECK(has(verdict(ok, "Four semaphore operations per chunk"), "ok: "));
    CHECK(has(verdict(ok, "detaches its segments"), "ok: "));
    CHECK(has(verdict(ok, "Every request gets its reply"), "ok: yours: 0 matching lines"));
}
