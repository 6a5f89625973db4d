// Every failure said out loud by `iolab run`: a load that dies mid-run still gets its figures
// printed (partial, with "clean": false and the cause) and a non-zero exit; a program that counts
// errors makes the run not clean, with its own last words as the cause.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>

using namespace iolab_test;

namespace
{

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

void write_pack(const TempDir &dir, const std::string &programs)
{
    spit(dir / "pack.json", R"({"format_version": 1, "id": "fail", "title": "F",
        "version": "1", "lessons": ["l"]})");
    spit(dir / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 3,
         "programs": [)" + programs +
                             "]}]}");
}

} // namespace

TEST_CASE("a load that dies mid-run: partial figures, the cause, exit 1", "[failures]")
{
    TempDir pack;
    write_pack(pack, R"({"name": "server", "role": "server", "program": "echo-server",
                         "args": ["--port", "{port}", "--host", "{host}", "--mode", "epoll"],
                         "ready": "listening"},
                        {"name": "load", "role": "client", "program": "/bin/sh",
                         "args": ["-c", "sleep 1; echo cannot keep up >&2; exit 3"]})");
    Child c;
    c.start({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json"});
    int st = c.wait(30);
    REQUIRE(st != -1);
    std::string out = c.output();
    INFO(out);
    CHECK(WEXITSTATUS(st) == 1);
    size_t brace = out.find('{');
    REQUIRE(brace != std::string::npos);
    Json j(cJSON_Parse(out.c_str() + brace), cJSON_Delete);
    REQUIRE(j);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
    std::string why = run_problems(j.get());
    CHECK(why.find("exited with status 3") != std::string::npos);
    CHECK(why.find("cannot keep up") != std::string::npos);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j.get(), "processes")) == 2); // figures, partial
}

TEST_CASE("a program that counts errors makes the run not clean, with its own words", "[failures]")
{
    TempDir pack;
    // A "server" that never listens: every connection the load makes is refused and counted.
    write_pack(pack, R"({"name": "server", "role": "server", "program": "/bin/sh",
                         "args": ["-c", "echo listening; exec sleep 30"], "ready": "listening"},
                        {"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}", "--host", "{host}"]})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--seconds", "1"});
    INFO(out);
    CHECK(code == 1);
    size_t brace = out.find('{');
    REQUIRE(brace != std::string::npos);
    Json j(cJSON_Parse(out.c_str() + brace), cJSON_Delete);
    REQUIRE(j);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
    std::string why = run_problems(j.get());
    CHECK(why.find("load: ") != std::string::npos);
    CHECK(why.find(" errors") != std::string::npos);
    CHECK(out.find("the run was not clean") != std::string::npos);

    // And a clean run says so.
    TempDir ok;
    write_pack(ok, R"({"name": "server", "role": "server", "program": "echo-server",
                       "args": ["--port", "{port}", "--host", "{host}", "--mode", "epoll"],
                       "ready": "listening"},
                      {"name": "load", "role": "client", "program": "echo-client",
                       "args": ["--port", "{port}", "--host", "{host}"]})");
    auto [c2, o2] =
        run({bin("iolab"), "run", "l/s", "--pack", ok.path, "--json", "--seconds", "1"});
    INFO(o2);
    CHECK(c2 == 0);
    Json j2(cJSON_Parse(o2.c_str()), cJSON_Delete);
    REQUIRE(j2);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j2.get(), "clean")));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j2.get(), "problems")) == 0);
}
