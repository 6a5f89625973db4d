// A pack that brings its own C program (pack.json "build"): iolab builds it in the sandbox with
// the exercises' build path, the shim counts it like a demo, it publishes its own figures through
// iolab_counters.h, an edit rebuilds it, and a build error names the pack's own file:line:col.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

void replace_in(const std::string &path, const std::string &from, const std::string &to)
{
    std::string t = slurp(path);
    auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    spit(path, t);
}

size_t entries(const std::string &dir)
{
    size_t n = 0;
    if (DIR *d = opendir(dir.c_str())) {
        while (struct dirent *e = readdir(d))
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

// The copied test pack in a temporary directory, with a cache of its own.
struct OwnPack {
    TempDir tmp;
    std::string pack = tmp / "own-program";
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data")};
    OwnPack()
    {
        std::string cmd = "cp -r '" + data("packs/own-program") + "' '" + pack + "'";
        REQUIRE(system(cmd.c_str()) == 0);
    }
    std::string cache() const
    {
        return tmp / "cache/iolab/build";
    }
};

struct ServerFigures {
    bool announced = false; // stderr said a build would compile first
    bool counted = false;
    double reads = 0, requests = 0, app_requests = 0;
};

// One headless run of the pack's step; the server's counted reads and the requests it published.
ServerFigures run_step(const OwnPack &p)
{
    auto [code, out] =
        run({bin("iolab"), "run", "slow/watch", "--pack", p.pack, "--seconds", "2", "--json"},
            p.env, 120);
    INFO(out);
    REQUIRE(code == 0);
    // stderr's announcement of a build, when there is one, comes before the JSON.
    cJSON *root = cJSON_Parse(out.c_str() + out.find('{'));
    REQUIRE(root);
    ServerFigures f;
    f.announced = out.find("iolab: Building 1 program of pack") != std::string::npos;
    const cJSON *proc;
    cJSON_ArrayForEach(proc, cJSON_GetObjectItem(root, "processes"))
    {
        std::string role = cJSON_GetObjectItem(proc, "role")->valuestring;
        const cJSON *app = cJSON_GetObjectItem(proc, "app");
        if (role == "server") {
            f.counted = cJSON_IsTrue(cJSON_GetObjectItem(proc, "counted"));
            const cJSON *read = cJSON_GetObjectItem(cJSON_GetObjectItem(proc, "calls"), "read");
            f.reads = read ? cJSON_GetObjectItem(read, "count")->valuedouble : 0;
            f.app_requests = cJSON_GetObjectItem(app, "requests")->valuedouble;
        } else {
            f.requests = cJSON_GetObjectItem(app, "requests")->valuedouble;
        }
    }
    cJSON_Delete(root);
    return f;
}

} // namespace

TEST_CASE("packprog: a pack's own C program is built, counted, run, and rebuilt after an edit")
{
    OwnPack p;
    auto [lcode, lout] = run({bin("iolab"), "lint", p.pack}, p.env, 120);
    INFO(lout);
    REQUIRE(lcode == 0);
    CHECK(entries(p.cache()) == 1); // lint built it, and said so first
    CHECK(lout.find("iolab: Building 1 program of pack \"A pack that brings its own server\" (the "
                    "first build of its sources") != std::string::npos);

    // One byte per read(): the 16-byte messages take about 16 reads each.
    ServerFigures one = run_step(p);
    CHECK(one.counted);
    REQUIRE(one.requests > 0);
    CHECK(one.reads / one.requests > 8);
    CHECK(one.app_requests > 0);    // published by the program itself, through iolab_counters.h
    CHECK(entries(p.cache()) == 1); // unchanged: the cached build served the run
    CHECK_FALSE(one.announced);

    // An edit of a header it includes rebuilds it, and the new program is what runs.
    replace_in(p.pack + "/tools/slow.h", "#define SLOW_CHUNK 1", "#define SLOW_CHUNK 4096");
    ServerFigures big = run_step(p);
    REQUIRE(big.requests > 0);
    CHECK(big.reads / big.requests < 4);
    CHECK(entries(p.cache()) == 2);
    CHECK(big.announced); // the edited sources had never been built
}

TEST_CASE("packprog: a build error names the pack's own file:line:col and lint fails")
{
    OwnPack p;
    replace_in(p.pack + "/tools/slow-echo.c", "ssize_t n;", "ssize_t n");
    auto [code, out] = run({bin("iolab"), "lint", p.pack}, p.env, 120);
    INFO(out);
    CHECK(code == 1);
    CHECK(out.find(p.pack + "/tools/slow-echo.c:23:14: error:") != std::string::npos);
    CHECK(out.find(p.pack + "/pack.json:9:5: program \"tools/slow-echo\" does not build") !=
          std::string::npos);
    CHECK(out.find("iolab-build-") == std::string::npos); // no sandbox copy's path leaks out

    // And a run of it says so in one sentence rather than starting anything.
    auto [rcode, rout] =
        run({bin("iolab"), "run", "slow/watch", "--pack", p.pack, "--seconds", "1"}, p.env, 120);
    CHECK(rcode != 0);
    CHECK(rout.find("does not build") != std::string::npos);
}

TEST_CASE("packprog: a program named relative to the pack must be in it or built by it")
{
    OwnPack p;
    // An executable file shipped in the pack runs as it is.
    spit(p.pack + "/tools/hello.sh", "#!/bin/sh\necho listening\nexec sleep 30\n");
    REQUIRE(chmod((p.pack + "/tools/hello.sh").c_str(), 0755) == 0);
    replace_in(p.pack + "/slow.json", "\"./tools/slow-echo\"", "\"./tools/hello.sh\"");
    auto [ok, okout] = run({bin("iolab"), "lint", p.pack}, p.env, 120);
    INFO(okout);
    CHECK(ok == 0);

    replace_in(p.pack + "/slow.json", "\"./tools/hello.sh\"", "\"./tools/nope\"");
    auto [code, out] = run({bin("iolab"), "lint", p.pack}, p.env, 120);
    CHECK(code == 1);
    CHECK(out.find("slow.json:13:57: program \"./tools/nope\" is neither an executable file of "
                   "this pack") != std::string::npos);

    replace_in(p.pack + "/slow.json", "\"./tools/nope\"", "\"../../bin/sh\"");
    auto [code2, out2] = run({bin("iolab"), "lint", p.pack}, p.env, 120);
    CHECK(code2 == 1);
    CHECK(out2.find("program \"../../bin/sh\" leaves the pack") != std::string::npos);
}
