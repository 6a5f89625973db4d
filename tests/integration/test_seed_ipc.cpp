// The exercises of the two IPC seeds, headless (`iolab check --dir`): the proxy that receives the
// cache's open file over a Unix socket and sendfile()s it (ipc/write-fd-proxy, seed 001), and
// the TinyFile client's synchronous call through System V segments and semaphores
// (tinyfile/write-client, seed 003). For each: the starter builds, runs and fails with a sentence
// that names its TODO, and the solution passes with the figures the checks read (the kernel's
// and the reference programs', not the learner's). Their known-wrong and other correct programs
// are rows of tests/data/exercises/{ipc,tinyfile} (test_exercise_table.cpp).
#include "counter_page.hpp"
#include "exercise_helpers.hpp"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>

using namespace iolab_test;

namespace
{

const Exercise kProxy{"ipc/write-fd-proxy", "ipc/fd-proxy", "ipc-proxy.c", {"ipc-fd.h"}};
const Exercise kTiny{"tinyfile/write-client", "tinyfile/client", "tiny-client.c", {"tinyfile.h"}};

} // namespace

TEST_CASE("ipc: the starter loses the descriptor and says so, the solution receives it, "
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

TEST_CASE("tinyfile: the starter's results are wrong and it says where, the solution's chunks "
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

namespace
{

// A process's count of one call label in `iolab run --json`, by the process's program name.
long run_count(const cJSON *json, const std::string &program, const char *label)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(json, "processes"))
    {
        const cJSON *name = cJSON_GetObjectItem(p, "name");
        if (!cJSON_IsString(name) || program != name->valuestring)
            continue;
        const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "calls"), label);
        const cJSON *n = c ? cJSON_GetObjectItem(c, "count") : nullptr;
        return cJSON_IsNumber(n) ? (long)n->valuedouble : 0;
    }
    return -1;
}

} // namespace

TEST_CASE("recvmsg_rights counts the recvmsg() calls that brought a descriptor, and only those",
          "[exercises]")
{
    // The lesson's demo proxy makes one recvmsg() per file in its descriptor modes, each bringing
    // the cache's open file; in shm mode it makes none. The count is the shim's reading of the
    // control data the kernel filled in, so the two figures must agree (within the one call per
    // thread a snapshot may catch between the two adds).
    TempDir home;
    for (const char *mode : {"fd-sendfile", "shm"}) {
        DYNAMIC_SECTION(mode)
        {
            auto [code, out] = run(
                {bin("iolab"), "run", "ipc/fd-passing", "--mode", mode, "--seconds", "2", "--json"},
                {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                 "XDG_CACHE_HOME=" + (home / "cache")},
                120);
            INFO(out);
            REQUIRE(code == 0);
            JsonPtr j(cJSON_Parse(out.c_str()), cJSON_Delete);
            REQUIRE(j);
            long rights = run_count(j.get(), "proxy", "recvmsg_rights");
            long recvmsg = run_count(j.get(), "proxy", "recvmsg");
            if (std::string(mode) == "shm") {
                CHECK(rights == 0);
                continue;
            }
            // Each of the proxy's threads can be caught between the two adds at the end.
            long threads = 1;
            const cJSON *p;
            cJSON_ArrayForEach(p, cJSON_GetObjectItem(j.get(), "processes"))
            {
                const cJSON *name = cJSON_GetObjectItem(p, "name");
                const cJSON *t = cJSON_GetObjectItem(p, "threads");
                if (cJSON_IsString(name) && !strcmp(name->valuestring, "proxy") &&
                    cJSON_IsNumber(t) && t->valuedouble > threads)
                    threads = (long)t->valuedouble;
            }
            INFO("proxy threads: " << threads);
            CHECK(recvmsg >= 20);
            CHECK(rights >= recvmsg - threads);
            CHECK(rights <= recvmsg);
        }
    }
}

namespace
{

// A loopback port nobody listens on now (the kernel's pick for a socket bound to port 0).
int free_port()
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    REQUIRE(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

} // namespace

TEST_CASE("recvmsg_rights agrees with strace: the recvmsg() calls that returned an SCM_RIGHTS "
          "descriptor",
          "[exercises]")
{
    // ipc-proxy in fd-sendfile mode under strace and the shim, behind it ipc-cache, in front a
    // client making 40 verified downloads: strace prints each recvmsg() with the control data
    // the kernel filled in, and the shim's count must be the number of those that carried
    // SCM_RIGHTS (and recvmsg the number of recvmsg() calls).
    TempDir dir, trace;
    {
        std::ofstream f(dir / "page.bin", std::ios::binary);
        for (int i = 0; i < 65536; i++)
            f.put((char)(i * 7 + i / 251));
    }
    std::vector<std::string> session = {"IOLAB_SESSION=seed2-rights-" + std::to_string(getpid())};
    Child cache;
    cache.start({demo("ipc-cache"), "--dir", dir.path, "--segments", "1"}, session);
    REQUIRE(cache.read_until("listening on mq", 20));
    CounterPage page(64);
    std::vector<std::string> argv = {"/usr/bin/strace", "-f", "-qq",      "-e",
                                     "trace=recvmsg",   "-o", trace / "t"};
    for (const auto &e : page.env(0)) {
        argv.push_back("-E");
        argv.push_back(e);
    }
    argv.push_back("-E");
    argv.push_back(session[0]);
    std::string port = std::to_string(free_port());
    argv.insert(argv.end(),
                {demo("ipc-proxy"), "--dir", dir.path, "--listen", port, "--via", "fd-sendfile"});
    Child proxy;
    proxy.start(argv);
    REQUIRE(proxy.read_until("listening on", 20));
    auto [code, out] = run({demo("file-client"), "--port", port, "--path", "/page.bin",
                            "--connections", "2", "--requests", "40", "--verify", dir / "page.bin"},
                           {}, 120);
    INFO(out);
    REQUIRE(code == 0);
    proxy.stop();
    cache.stop();

    std::ifstream t(trace / "t");
    std::string line;
    long calls = 0, with_rights = 0;
    // With several threads strace splits a blocking call: "recvmsg(... <unfinished ...>", then
    // "<... recvmsg resumed>...) = N" with what the kernel filled in. Each call ends once.
    while (std::getline(t, line)) {
        bool whole = line.find("recvmsg(") != std::string::npos &&
                     line.find("<unfinished") == std::string::npos;
        bool resumed = line.find("<... recvmsg resumed>") != std::string::npos;
        if (!whole && !resumed)
            continue;
        calls++;
        if (line.find("SCM_RIGHTS") != std::string::npos)
            with_rights++;
    }
    auto shim = page.calls();
    INFO("strace: " << calls << " recvmsg, " << with_rights << " with SCM_RIGHTS");
    CHECK(with_rights >= 40);
    CHECK((long)shim["recvmsg"] == calls);
    CHECK((long)shim["recvmsg_rights"] == with_rights);
}
