// The command line as a newcomer meets it: help, bad commands, and an installed tree that still
// works after it is moved somewhere else.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

using namespace iolab_test;

TEST_CASE("cli: --help lists every command and the TUI's keys")
{
    auto [code, out] = run({bin("iolab"), "--help"});
    CHECK(code == 0);
    for (const char *word : {"iolab run", "iolab list", "iolab lint", "iolab progress", "--pack",
                             "Keys:", "comparison", "quit"})
        CHECK(out.find(word) != std::string::npos);
}

TEST_CASE("cli: an unknown command is one sentence and status 2")
{
    auto [code, out] = run({bin("iolab"), "frobnicate"});
    CHECK(code == 2);
    CHECK(out == "iolab: 'frobnicate' is not a command; `iolab --help` lists them.\n");
}

TEST_CASE("cli: an installed tree finds its parts after it is moved")
{
    TempDir dir;
    std::string first = dir / "first", moved = dir / "moved";
    auto [icode, iout] =
        run({"/usr/bin/cmake", "--install", build_dir(), "--prefix", first}, {}, 120);
    INFO(iout);
    REQUIRE(icode == 0);
    REQUIRE(rename(first.c_str(), moved.c_str()) == 0);
    for (const char *part : {"bin/iolab", "bin/iolab-sandbox", "lib/iolab/libiolab-count.so",
                             "libexec/iolab/echo-server", "share/iolab/lessons/pack.json"})
        CHECK(access((moved + "/" + part).c_str(), F_OK) == 0);

    auto [lcode, lout] = run({moved + "/bin/iolab", "lint", moved + "/share/iolab/lessons"});
    INFO(lout);
    CHECK(lcode == 0);

    // A real run from the moved tree: the sandbox, the shim and the demos are all found, and the
    // counts arrive, so every part was located relative to the executable.
    auto [rcode, rout] = run({moved + "/bin/iolab", "run", "concurrency/compare", "--mode", "epoll",
                              "--seconds", "1", "--json"},
                             {}, 60);
    INFO(rout);
    REQUIRE(rcode == 0);
    cJSON *root = cJSON_Parse(rout.c_str());
    REQUIRE(root);
    const cJSON *procs = cJSON_GetObjectItem(root, "processes");
    bool server_counted = false;
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        const cJSON *calls = cJSON_GetObjectItem(p, "calls");
        const cJSON *ew = cJSON_GetObjectItem(calls, "epoll_wait");
        if (!strcmp(cJSON_GetObjectItem(p, "role")->valuestring, "server") && ew)
            server_counted = cJSON_GetObjectItem(ew, "count")->valuedouble > 0;
    }
    CHECK(server_counted);
    cJSON_Delete(root);
}
