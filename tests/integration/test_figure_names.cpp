// The names of look-alike figures (lessons/README.md, "Which figure is which") still lint in
// every format that has them, whatever the figure ids are called inside iolab: a check's
// bytes_per_syscr and calls_per_request:NAME, an outcome's calls_per_request and
// calls:NAME/request, a sweep's bytes_per_syscr as its figure and in its table.
#include <catch2/catch.hpp>

#include "helpers.hpp"

#include <string>

using namespace iolab_test;

TEST_CASE("figure names: the look-alike names lint clean in every format that has them")
{
    TempDir t;
    std::string dir = t / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "names", "title": "Names",
      "version": "1", "lessons": ["a"]})");
    std::string fake = build_dir() + "/lib/iolab/iolab-sweep-fake";
    spit(dir + "/a.json", R"({"id": "a", "title": "A", "summary": "S.",
  "steps": [
    {"id": "checks", "title": "T", "kind": "run", "text": "W.",
     "programs": [
       {"name": "server", "role": "server", "program": "/bin/cat", "args": ["/dev/null"]},
       {"name": "load", "role": "client", "program": "/bin/cat", "args": ["/dev/null"]}],
     "checks": [
       {"text": "a", "metric": "bytes_per_syscr", "role": "server", "min": 1},
       {"text": "b", "metric": "calls_per_request:read", "role": "server", "max": 2},
       {"text": "c", "metric": "cpu_ms_per_request", "role": "server", "max": 2}],
     "expect": [
       {"text": "d", "left": {"figure": "calls_per_request", "role": "server"}, "op": "<",
        "value": 10},
       {"text": "e", "left": {"figure": "calls:read/request", "role": "server"}, "op": "<",
        "value": 10}]},
    {"id": "sweep", "title": "T", "kind": "run", "text": "Press w.",
     "programs": [{"name": "load", "role": "client", "program": ")" +
                              fake + R"(", "args": ["--value", "{n}"]}],
     "sweep": {"param": "n", "values": ["10", "30"], "figure": "bytes_per_syscr", "seconds": 1,
               "table": ["calls_per_request", "p99_ms"]}}
  ]})");
    auto [code, out] = run({bin("iolab"), "lint", dir});
    INFO(out);
    CHECK(code == 0);
}
