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
void write_pack(const TempDir &dir, const std::string &checks)
{
    std::ofstream(dir / "pack.json") << R"({"format_version": 1, "id": "grade", "title": "G",
        "version": "1", "lessons": ["l"]})";
    std::ofstream(dir / "l.json") << R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 1,
         "programs": [
           {"name": "server", "role": "server", "program": "echo-server",
            "args": ["--port", "{port}", "--host", "{host}"], "ready": "listening"},
           {"name": "load", "role": "client", "program": "echo-client",
            "args": ["--port", "{port}", "--host", "{host}", "--connections", "2"]}],
         "modes": [
           {"id": "epoll", "title": "E", "program": "server", "args": ["--mode", "epoll"]},
           {"id": "fork", "title": "F", "program": "server", "args": ["--mode", "fork"]}],
         "checks": [)" + checks + "]}]}";
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

TEST_CASE("verdicts that fail say what was measured; several modes carry them beside the modes",
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
