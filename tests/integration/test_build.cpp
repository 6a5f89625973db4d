// The build path for exercises and packs' own programs: a real compiler inside the sandbox,
// messages that name the learner's files, a cache keyed by content, and a compiler that cannot
// hang iolab.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <uv.h>

extern "C" {
#include "exercise/build.h"
}

using namespace iolab_test;

namespace
{

struct Outcome {
    bool done = false;
    build_result r{};
    std::string log;
};

void on_done(void *data, const build_result *r)
{
    auto *o = static_cast<Outcome *>(data);
    o->done = true;
    o->r = *r;
    o->log = r->log ? r->log : "";
    o->r.log = nullptr;
}

Outcome build_it(const std::string &src, const std::string &cache,
                 const std::vector<std::string> &files, double timeout = 20)
{
    static const char *cmd[] = {BUILD_DEFAULT_COMMAND, nullptr};
    std::vector<const char *> f;
    for (const auto &s : files)
        f.push_back(s.c_str());
    std::string sandbox = bin("iolab-sandbox");
    build_spec spec = {};
    spec.command = cmd;
    spec.src_dir = src.c_str();
    spec.files = f.data();
    spec.nfiles = f.size();
    spec.sources = f.data();
    spec.nsources = 1;
    spec.cache_dir = cache.c_str();
    spec.sandbox = sandbox.c_str();
    spec.timeout_s = timeout;
    uv_loop_t loop;
    uv_loop_init(&loop);
    Outcome o;
    struct build *b = nullptr;
    REQUIRE(build_start(&loop, &spec, on_done, &o, &b) == 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
    return o;
}

} // namespace

TEST_CASE("a program builds in the sandbox, runs, and is not built twice", "[build]")
{
    TempDir src, cache;
    spit(src / "hello.c", "#include <stdio.h>\nint main(void) { puts(\"hello\"); }\n");
    Outcome a = build_it(src.path, cache.path, {"hello.c"});
    INFO(a.log << a.r.message);
    REQUIRE(a.done);
    REQUIRE(a.r.status == BUILD_OK);
    CHECK_FALSE(a.r.cached);
    auto [code, out] = run({a.r.exe});
    CHECK(code == 0);
    CHECK(out == "hello\n");
    Outcome b = build_it(src.path, cache.path, {"hello.c"});
    CHECK(b.r.status == BUILD_OK);
    CHECK(b.r.cached);
    CHECK(std::string(b.r.exe) == a.r.exe);
    // A changed source is a new program.
    spit(src / "hello.c", "#include <stdio.h>\nint main(void) { puts(\"again\"); }\n");
    Outcome c = build_it(src.path, cache.path, {"hello.c"});
    REQUIRE(c.r.status == BUILD_OK);
    CHECK_FALSE(c.r.cached);
    CHECK(run({c.r.exe}).second == "again\n");
}

TEST_CASE("compiler errors name the learner's own file, line and column", "[build]")
{
    TempDir src, cache;
    spit(src / "server.c", "int main(void)\n{\n    return nope;\n}\n");
    Outcome o = build_it(src.path, cache.path, {"server.c"});
    REQUIRE(o.done);
    CHECK(o.r.status == BUILD_FAILED);
    INFO(o.log);
    CHECK(o.log.find(src.path + "/server.c:3:12: error") != std::string::npos);
    CHECK(o.log.find("iolab-build-") == std::string::npos); // never the jail's copy
}

TEST_CASE("a compiler fed /dev/zero ends within its limit with a sentence", "[build]")
{
    TempDir src, cache;
    spit(src / "zero.c", "#include \"/dev/zero\"\nint main(void) { return 0; }\n");
    Outcome o = build_it(src.path, cache.path, {"zero.c"}, 3);
    REQUIRE(o.done);
    INFO(o.log << o.r.message);
    CHECK(o.r.status != BUILD_OK);
    // Stopped by its limit (time or memory), or the compiler gave up: each one says so.
    if (o.r.status == BUILD_TIMEOUT || o.r.status == BUILD_LIMIT)
        CHECK(std::string(o.r.message).size() > 0);
    else
        CHECK(o.r.status == BUILD_FAILED);
}

TEST_CASE("a missing file is an error before anything runs", "[build]")
{
    TempDir src, cache;
    Outcome o = build_it(src.path, cache.path, {"absent.c"});
    REQUIRE(o.done);
    CHECK(o.r.status == BUILD_ERROR);
    CHECK(std::string(o.r.message).find("cannot read") != std::string::npos);
}
