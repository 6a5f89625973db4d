// The headless grader through `iolab run`: every check of a step judged, however many there are,
// each verdict in the JSON as {"text", "ok", "message"} and in the text output; checks with a
// maximum ("no fork") hold only once their mode has run.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>

using namespace iolab_test;

namespace
{

// A pack whose one step runs the epoll echo server (and a fork mode) with the given checks.
void write_pack(const TempDir &dir, const std::string &checks, const std::string &expect = "")
{
    spit(dir / "pack.json", R"({"format_version": 1, "id": "grade", "title": "G",
        "version": "1", "lessons": ["l"]})");
    spit(dir / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 1,
         "programs": [
           {"name": "server", "role": "server", "program": "echo-server",
            "args": ["--port", "{port}", "--host", "{host}"], "ready": "listening"},
           {"name": "load", "role": "client", "program": "echo-client",
            "args": ["--port", "{port}", "--host", "{host}", "--connections", "2"]}],
         "modes": [
           {"id": "epoll", "title": "E", "program": "server", "args": ["--mode", "epoll"]},
           {"id": "fork", "title": "F", "program": "server", "args": ["--mode", "fork"]}],
         "expect": [)" + expect +
                             "], \"checks\": [" + checks + "]}]}");
}

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

Json parse(const std::string &s)
{
    return Json(cJSON_Parse(s.c_str()), cJSON_Delete);
}

} // namespace

TEST_CASE("a step with 40 checks: every one is judged and reported", "[grade]")
{
    std::string checks;
    for (int i = 0; i < 40; i++) {
        if (i)
            checks += ",";
        if (i % 2)
            checks += R"({"text": "requests )" + std::to_string(i) +
                      R"(", "mode": "epoll", "metric": "requests", "min": )" +
                      std::to_string(i + 1) + "}";
        else
            checks += R"({"text": "no fork )" + std::to_string(i) +
                      R"(", "mode": "epoll", "metric": "calls:fork", "role": "server", "max": 0})";
    }
    TempDir pack;
    write_pack(pack, checks);
    auto [code, out] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json"});
    INFO(out);
    REQUIRE(code == 0);
    Json j = parse(out);
    REQUIRE(j);
    const cJSON *list = cJSON_GetObjectItem(j.get(), "checks");
    REQUIRE(cJSON_IsArray(list));
    REQUIRE(cJSON_GetArraySize(list) == 40);
    int ok = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, list)
    {
        REQUIRE(cJSON_IsString(cJSON_GetObjectItem(c, "text")));
        REQUIRE(cJSON_IsString(cJSON_GetObjectItem(c, "message")));
        ok += cJSON_IsTrue(cJSON_GetObjectItem(c, "ok"));
    }
    CHECK(ok == 40); // an epoll echo server answers requests and never forks

    auto [code2, text] = run({bin("iolab"), "run", "l/s", "--pack", pack.path});
    INFO(text);
    REQUIRE(code2 == 0);
    CHECK(text.find("checks (40 of 40 hold):") != std::string::npos);
    CHECK(text.find("[ok] no fork 38: epoll: 0 fork calls, at most 0") != std::string::npos);
}

TEST_CASE("verdicts that fail say what was measured, several modes carry them beside the modes",
          "[grade]")
{
    TempDir pack;
    write_pack(pack, R"({"text": "fork forks", "mode": "fork", "metric": "calls:fork",
                         "role": "server", "min": 1},
                        {"text": "epoll forks", "mode": "epoll", "metric": "calls:fork",
                         "role": "server", "min": 1},
                        {"text": "fork never forks", "mode": "fork", "metric": "calls:fork",
                         "max": 0})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--mode", "epoll,fork"});
    INFO(out);
    REQUIRE(code == 0);
    Json j = parse(out);
    REQUIRE(j);
    REQUIRE(cJSON_GetArraySize(cJSON_GetObjectItem(j.get(), "modes")) == 2);
    const cJSON *list = cJSON_GetObjectItem(j.get(), "checks");
    REQUIRE(cJSON_GetArraySize(list) == 3);
    const cJSON *forks = cJSON_GetArrayItem(list, 0), *epoll = cJSON_GetArrayItem(list, 1),
                *never = cJSON_GetArrayItem(list, 2);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(forks, "ok")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(epoll, "ok")));
    CHECK(std::string(cJSON_GetObjectItem(epoll, "message")->valuestring) ==
          "epoll: 0 of 1 fork calls");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(never, "ok")));

    // A maximum is not met by a mode that never ran: no claim about what it does.
    auto [code1, one] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json"});
    INFO(one);
    REQUIRE(code1 == 0);
    Json j1 = parse(one);
    REQUIRE(j1);
    const cJSON *never1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j1.get(), "checks"), 2);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(never1, "ok")));
    CHECK(std::string(cJSON_GetObjectItem(never1, "message")->valuestring) ==
          "fork: not run yet (fork calls, at most 0)");
}

TEST_CASE("expected outcomes are judged beside the figures, explained when they differ", "[grade]")
{
    TempDir pack;
    write_pack(pack, R"({"text": "run", "mode": "epoll", "metric": "seconds", "min": 0.5})",
               R"({"text": "epoll makes a few calls per request",
                   "left": {"mode": "epoll", "figure": "calls_per_request"}, "op": "<",
                   "value": 10},
                  {"text": "an impossible fork rate",
                   "left": {"mode": "epoll", "figure": "calls:fork/request"}, "op": ">",
                   "value": 1000},
                  {"text": "fork against epoll",
                   "left": {"mode": "fork", "figure": "requests_per_s"}, "op": ">",
                   "right": {"mode": "epoll", "figure": "requests_per_s"}})");
    auto [code, out] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json"});
    INFO(out);
    REQUIRE(code == 0);
    Json j = parse(out);
    REQUIRE(j);
    const cJSON *list = cJSON_GetObjectItem(j.get(), "expected");
    REQUIRE(cJSON_GetArraySize(list) == 3);
    const cJSON *few = cJSON_GetArrayItem(list, 0), *imp = cJSON_GetArrayItem(list, 1),
                *un = cJSON_GetArrayItem(list, 2);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(few, "ok")));
    CHECK(std::string(cJSON_GetObjectItem(few, "message")->valuestring).find("as expected") !=
          std::string::npos);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(imp, "ok")));
    std::string why = cJSON_GetObjectItem(imp, "message")->valuestring;
    CHECK(why.find("not this time") != std::string::npos);
    CHECK(why.find("core") != std::string::npos); // the machine is named
    CHECK(why.find("load average") != std::string::npos);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(un, "ok"))); // fork never ran: undecided
    CHECK(std::string(cJSON_GetObjectItem(un, "message")->valuestring) ==
          "not measured yet: run fork and epoll for a few seconds");

    // lint: a figure that does not exist, and an outcome with neither right nor value.
    TempDir bad;
    write_pack(bad, R"({"text": "run", "mode": "epoll", "metric": "seconds", "min": 0.5})",
               R"({"text": "x", "left": {"mode": "epoll", "figure": "request_per_s"}, "op": ">",
                   "value": 1},
                  {"text": "y", "left": {"mode": "epoll", "figure": "cpu_pct"}, "op": ">"})");
    auto [lc, lint] = run({bin("iolab"), "lint", bad.path});
    INFO(lint);
    CHECK(lc == 1);
    CHECK(lint.find("figure \"request_per_s\" is not known; did you mean \"requests_per_s\"?") !=
          std::string::npos);
    CHECK(lint.find("give exactly one") != std::string::npos);
}
