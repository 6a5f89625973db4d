// Nothing uncounted is shown as a figure: a server that spends its time in calls iolab does not
// count is said to, in `iolab run`'s text (its own section and the side-by-side table), and an
// expected outcome on its calls per request is not judged (never "as expected" on a 0).
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <set>

#include "iolab_counters.h"

using namespace iolab_test;

namespace
{

// A step whose server spends its time in calls iolab does not count, under a load that
// completes requests, in two modes so that the comparison has two rows.
void write_pack(const TempDir &pack)
{
    std::string spin = build_dir() + "/lib/iolab/iolab-uncounted-spin";
    std::string fake = build_dir() + "/lib/iolab/iolab-sweep-fake";

    spit(pack / "pack.json", R"({"format_version": 1, "id": "u", "title": "U",
        "version": "1", "lessons": ["l"]})");
    spit(pack / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 2,
         "programs": [
           {"name": "server", "role": "server", "program": ")" +
                              spin + R"(", "ready": "listening"},
           {"name": "load", "role": "client", "program": ")" +
                              fake + R"(", "args": ["--value", "1"]}],
         "modes": [{"id": "one", "title": "One", "program": "server"},
                   {"id": "two", "title": "Two", "program": "server"}],
         "expect": [{"text": "few server calls per request",
                     "left": {"mode": "one", "figure": "calls_per_request", "role": "server"},
                     "op": "<", "value": 5}]}]})");
}

} // namespace

TEST_CASE("a server burning system time in uncounted calls is never shown as 0 calls",
          "[uncounted]")
{
    TempDir pack;
    write_pack(pack);
    auto [code, out] = run(
        {bin("iolab"), "run", "l/s", "--pack", pack.path, "--mode", "one,two", "--seconds", "1.5"},
        {}, 90);
    INFO(out);
    REQUIRE(code == 0);
    // Each mode's server section says why it has no counted call.
    CHECK(out.find("no counted call, yet ") != std::string::npos);
    CHECK(out.find("it makes calls iolab does not count") != std::string::npos);
    // The table's call figure is labelled as counted calls and says "uncounted", not 0.00.
    CHECK(out.find("server counted calls/req") != std::string::npos);
    size_t row = out.find("server counted calls/req");
    REQUIRE(row != std::string::npos);
    std::string line = out.substr(row, out.find('\n', row) - row);
    CHECK(line.find("uncounted") != std::string::npos);
    CHECK(line.find("0.00") == std::string::npos);
    // The expectation is not judged on calls that were not counted.
    CHECK(out.find("as expected") == std::string::npos);
    CHECK(out.find("cannot judge: in one the program made no counted call") != std::string::npos);
}

TEST_CASE("tui: the counters pane says a program makes calls iolab does not count",
          "[uncounted][tui]")
{
    TempDir dir, pack;
    write_pack(pack);
    IolabTerm t(dir, "--pack '" + pack.path + "' --open l/s");
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter", 15));
    t.keys("Enter");
    bool said = t.wait_for("no counted call, yet", 30);
    std::string screen = t.screen();
    INFO(screen);
    CHECK(said);
    CHECK(screen.find("counted call") != std::string::npos);
    CHECK(t.quit());
}

TEST_CASE("iolab list --json lists every counted call, the multi-message ones included",
          "[uncounted]")
{
    auto [code, out] = run({bin("iolab"), "list", "--json"});
    REQUIRE(code == 0);
    cJSON *j = cJSON_Parse(out.c_str());
    REQUIRE(j);
    const cJSON *calls = cJSON_GetObjectItem(j, "counted_calls");
    REQUIRE(cJSON_IsArray(calls));
    CHECK(cJSON_GetArraySize(calls) == IOLAB_NCALLS);
    std::set<std::string> names;
    const cJSON *c;
    cJSON_ArrayForEach(c, calls)
    {
        names.insert(cJSON_GetObjectItem(c, "name")->valuestring);
        CHECK(cJSON_IsString(cJSON_GetObjectItem(c, "system_call")));
    }
    for (const char *n : {"read", "recvmsg", "recvmmsg", "sendmmsg", "sendfile", "epoll_wait"})
        CHECK(names.count(n) == 1);
    CHECK(names.count("io_uring_enter") == 0); // not counted: the demos report it themselves
    cJSON_Delete(j);
}
