// `iolab lint` and `iolab list` as a learner or instructor runs them: real processes, real pack
// directories, exit statuses and output checked.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <regex>
#include <sstream>

using namespace iolab_test;

namespace
{

// An environment whose installed-pack directory is empty (or the given one).
std::vector<std::string> xdg_env(const std::string &data_home)
{
    return {"XDG_DATA_HOME=" + data_home, "HOME=" + data_home};
}

} // namespace

TEST_CASE("lint: a clean pack exits 0 with a one-line summary")
{
    std::string dir = data("packs/good");
    auto [code, out] = run({bin("iolab"), "lint", dir});
    CHECK(code == 0);
    CHECK(out == dir + ": pack test-pack, 2 lessons, 4 steps: no problems\n");
}

TEST_CASE("lint: a bad pack exits 1 and prints every problem with its position")
{
    std::string dir = data("packs/bad/several");
    auto [code, out] = run({bin("iolab"), "lint", dir});
    CHECK(code == 1);
    std::ifstream in(dir + "/expected.txt");
    int n = 0;
    for (std::string line; std::getline(in, line); n++)
        CHECK(out.find(dir + "/" + line + "\n") != std::string::npos);
    CHECK(n >= 8);
    CHECK(out.find(dir + ": " + std::to_string(n) + " problems\n") != std::string::npos);
}

TEST_CASE("lint: a JSON syntax error names its line and column")
{
    std::string dir = data("packs/bad/syntax");
    auto [code, out] = run({bin("iolab"), "lint", dir});
    CHECK(code == 1);
    CHECK(out.find(dir + "/a.json:9:7: this is not valid JSON") != std::string::npos);
}

TEST_CASE("lint: usage errors exit 2, --help exits 0")
{
    CHECK(run({bin("iolab"), "lint"}).first == 2);
    CHECK(run({bin("iolab"), "lint", "a", "b"}).first == 2);
    auto [code, out] = run({bin("iolab"), "lint", "--help"});
    CHECK(code == 0);
    CHECK(out.find("usage: iolab lint DIR") != std::string::npos);
    TempDir t;
    auto missing = run({bin("iolab"), "lint", t / "nope"});
    CHECK(missing.first == 1);
    CHECK(missing.second.find("cannot open this pack directory") != std::string::npos);
}

TEST_CASE("lint: the built-in pack is clean")
{
    // The tests depend on every demo (iolab-demos), so a missing program is a real problem here.
    std::string dir = build_dir() + "/share/iolab/lessons";
    auto [code, out] = run({bin("iolab"), "lint", dir});
    CHECK(std::regex_match(out, std::regex(dir + ": pack linux-io, [0-9]+ lessons, [0-9]+ steps: "
                                                 "no problems\n")));
    CHECK(code == 0);
}

TEST_CASE("list --json names every pack, lesson and step, installed packs included")
{
    TempDir home;
    std::string installed = home / "iolab";
    REQUIRE(system(("mkdir -p '" + installed + "/packs' && cp -r '" + data("packs/good") + "' '" +
                    installed + "/packs/mine'")
                       .c_str()) == 0);
    Child c;
    c.start({bin("iolab"), "list", "--json"}, xdg_env(home.path));
    int st = c.wait(30);
    REQUIRE(WIFEXITED(st));
    // stdout and stderr are merged here: with a bad pack the JSON would not be first.
    std::string out = c.output();
    size_t start = out.find("{\"packs\"");
    REQUIRE(start != std::string::npos);
    cJSON *root = cJSON_Parse(out.c_str() + start);
    REQUIRE(root);
    std::vector<std::string> steps, packs;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(root, "packs"))
    {
        packs.push_back(cJSON_GetObjectItem(p, "id")->valuestring);
        const cJSON *l, *s;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(p, "lessons"))
            cJSON_ArrayForEach(s, cJSON_GetObjectItem(l, "steps"))
        {
            steps.push_back(cJSON_GetObjectItem(s, "id")->valuestring);
            if (steps.back() == "concurrency/compare") {
                CHECK(std::string(cJSON_GetObjectItem(s, "kind")->valuestring) == "run");
                CHECK(std::string(cJSON_GetObjectItem(s, "default_mode")->valuestring) == "epoll");
                CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(s, "modes")) == 4);
            }
        }
    }
    cJSON_Delete(root);
    CHECK(std::find(packs.begin(), packs.end(), "test-pack") != packs.end());
    CHECK(std::find(steps.begin(), steps.end(), "a/run") != steps.end());
    CHECK(WEXITSTATUS(st) == 0);
    CHECK(std::find(steps.begin(), steps.end(), "concurrency/compare") != steps.end());
    CHECK(std::find(steps.begin(), steps.end(), "zerocopy/compare") != steps.end());
}

TEST_CASE("list: a bad pack is reported on stderr and makes the exit status 1")
{
    TempDir home;
    auto [code, out] =
        run({bin("iolab"), "list", "--pack", data("packs/bad/bad-size")}, xdg_env(home.path));
    CHECK(code == 1);
    CHECK(out.find("a.json:26:46: this is not a size") != std::string::npos);
    CHECK(out.find("is not listed; `iolab lint") != std::string::npos);
    auto [hcode, hout] = run({bin("iolab"), "list", "--bogus"});
    CHECK(hcode == 2);
}

TEST_CASE("lint: an uncounted call is said to be not counted, and calls_per_request is checked")
{
    TempDir pack;
    spit(pack / "pack.json", R"({"format_version": 1, "id": "p", "title": "P",
        "version": "1", "lessons": ["a"]})");
    // One step with a client (where calls_per_request is fine) and one without.
    spit(pack / "a.json", R"({
  "id": "a", "title": "A", "summary": "S.",
  "steps": [
    {"id": "ok", "title": "T", "kind": "run", "text": "W.",
     "programs": [
       {"name": "load", "role": "client", "program": "/bin/cat", "args": ["/dev/null"]},
       {"name": "server", "role": "server", "program": "/bin/cat", "args": ["/dev/null"]}],
     "checks": [
       {"text": "a", "metric": "calls_per_request:recvmmsg", "role": "server", "max": 2},
       {"text": "b", "metric": "calls:io_uring_enter", "role": "server", "min": 1},
       {"text": "c", "metric": "calls_per_request:recvmsgs", "role": "server", "max": 2}]},
    {"id": "alone", "title": "T", "kind": "run", "text": "W.",
     "programs": [{"name": "server", "role": "server", "program": "/bin/cat", "args": ["/dev/null"]}],
     "checks": [
       {"text": "d", "metric": "calls_per_request:sendmmsg", "role": "server", "max": 1}]}
  ]})");
    auto [code, out] = run({bin("iolab"), "lint", pack.path});
    INFO(out);
    CHECK(code == 1);
    // A call iolab does not count: said so, never sent to another call as if it were a typo.
    CHECK(out.find("a.json:11:") != std::string::npos);
    CHECK(out.find("names io_uring_enter, which iolab does not count") != std::string::npos);
    // A typo of a counted call: still not counted, with the counted call as the likely typo.
    CHECK(out.find("names recvmsgs, which iolab does not count") != std::string::npos);
    CHECK(out.find("did you mean \"calls_per_request:recvmsg\"?") != std::string::npos);
    // A ratio over the client's requests in a step with no client.
    CHECK(out.find("divides by the requests the client completes, but this step has no client "
                   "program") != std::string::npos);
    // The good one is not reported.
    CHECK(out.find("calls_per_request:recvmmsg") == std::string::npos);
    CHECK(out.find(": 3 problems") != std::string::npos);
}
