// iolab new: the pack it writes lints clean, follows the schemas, starts (iolab check --pack),
// its exercise's solution passes and its starter fails; it never writes over anything. And
// iolab check --pack reports, one sentence each, a server that never prints its ready text and a
// program that cannot start in one mode.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace iolab_test;

namespace
{

struct Env {
    TempDir tmp;
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data")};
};

} // namespace

TEST_CASE("new: the pack it writes lints clean, follows the schema and passes iolab check")
{
    Env e;
    std::string pack = e.tmp / "week-5";
    auto [code, out] = run({bin("iolab"), "new", pack, "--title", "Week \"5\": I/O"}, e.env);
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find("id week-5") != std::string::npos);
    std::string pj = slurp(pack + "/pack.json");
    CHECK(pj.find("\"id\": \"week-5\"") != std::string::npos);
    CHECK(pj.find("\"title\": \"Week \\\"5\\\": I/O\"") != std::string::npos);
    // The schemas travel with the pack: a copy in schema/, named by a relative path.
    CHECK(pj.find("\"$schema\": \"schema/pack.schema.json\"") != std::string::npos);
    CHECK(slurp(pack + "/first.json").find("\"$schema\": \"schema/lesson.schema.json\"") !=
          std::string::npos);
    CHECK(slurp(pack + "/schema/lesson.schema.json") ==
          slurp(build_dir() + "/share/iolab/schema/lesson.schema.json"));
    CHECK(slurp(pack + "/README.md").find("iolab lint " + pack) != std::string::npos);

    auto [lcode, lout] = run({bin("iolab"), "lint", pack}, e.env, 120);
    INFO(lout);
    CHECK(lcode == 0);
    CHECK(lout.find("1 lesson, 4 steps: no problems") != std::string::npos);
    std::string lesson = slurp(pack + "/first.json");
    for (const char *kind : {"\"kind\": \"text\"", "\"kind\": \"run\"", "\"kind\": \"quiz\"",
                             "\"kind\": \"exercise\""})
        CHECK(lesson.find(kind) != std::string::npos);

    auto [scode, sout] = run({"/usr/bin/python3", source_dir() + "/tests/schema/schema_check.py",
                              build_dir() + "/share/iolab/schema", "valid", pack});
    INFO(sout);
    CHECK(scode == 0);

    auto [ccode, cout_] = run({bin("iolab"), "check", "--pack", pack}, e.env, 120);
    INFO(cout_);
    CHECK(ccode == 0);
    CHECK(cout_.find("first/watch mode iterative: starts") != std::string::npos);
    CHECK(cout_.find("first/watch mode epoll: starts") != std::string::npos);
    CHECK(cout_.find("2 starts: every program started") != std::string::npos);

    auto [xcode, xout] = run({bin("iolab"), "check", "--pack", pack, "--solutions"}, e.env, 180);
    INFO(xout);
    CHECK(xcode == 0);
    CHECK(xout.find("first/your-echo: solution pass; starter fail") != std::string::npos);
}

TEST_CASE("new: a directory with a space is quoted in the commands it prints and writes")
{
    Env e;
    auto [code, out] = run(
        {"/bin/sh", "-c", "cd \"$0\" && \"$1\" new 'My Pack'", e.tmp / "", bin("iolab")}, e.env);
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find("  iolab lint 'My Pack'\n") != std::string::npos);
    CHECK(out.find("  iolab --pack 'My Pack'\n") != std::string::npos);
    CHECK(slurp(e.tmp / "My Pack/README.md").find("iolab lint 'My Pack'") != std::string::npos);
    // The printed command works as pasted into a shell.
    auto [lcode, lout] =
        run({"/bin/sh", "-c", "cd \"$0\" && PATH=\"$1:$PATH\" && iolab lint 'My Pack'", e.tmp / "",
             build_dir() + "/bin"},
            e.env, 120);
    INFO(lout);
    CHECK(lcode == 0);
}

TEST_CASE("new: never writes over anything, and says so in one sentence")
{
    Env e;
    std::string full = e.tmp / "full";
    REQUIRE(mkdir(full.c_str(), 0755) == 0);
    spit(full + "/notes.txt", "mine\n");
    auto [code, out] = run({bin("iolab"), "new", full}, e.env);
    CHECK(code == 1);
    CHECK(out == "iolab: " + full +
                     " is not empty; iolab new never overwrites anything: name a new directory.\n");
    CHECK(slurp(full + "/notes.txt") == "mine\n");

    // An empty directory is fine; an id that is not one is refused before anything is written.
    std::string empty = e.tmp / "Empty Dir";
    REQUIRE(mkdir(empty.c_str(), 0755) == 0);
    auto [bcode, bout] = run({bin("iolab"), "new", empty, "--id", "Bad Id"}, e.env);
    CHECK(bcode == 2);
    CHECK(bout.find("'Bad Id' is not a pack id") != std::string::npos);
    auto [ecode, eout] = run({bin("iolab"), "new", empty}, e.env);
    INFO(eout);
    CHECK(ecode == 0);
    CHECK(slurp(empty + "/pack.json").find("\"id\": \"empty-dir\"") != std::string::npos);
}

TEST_CASE("check --pack: a server that never gets ready and a mode that cannot start are named")
{
    Env e;
    std::string pack = e.tmp / "broken";
    REQUIRE(run({bin("iolab"), "new", pack}, e.env).first == 0);
    std::string lesson = slurp(pack + "/first.json");
    auto swap = [&](const std::string &from, const std::string &to) {
        auto at = lesson.find(from);
        REQUIRE(at != std::string::npos);
        lesson.replace(at, from.size(), to);
    };
    swap("\"ready\": \"listening\"", "\"ready\": \"never printed\"");
    swap("\"args\": [\"--mode\", \"epoll\"]", "\"args\": [\"--mode\", \"epol\"]");
    spit(pack + "/first.json", lesson);
    REQUIRE(run({bin("iolab"), "lint", pack}, e.env).first == 0); // lint cannot know either

    auto [code, out] = run({bin("iolab"), "check", "--pack", pack}, e.env, 120);
    INFO(out);
    CHECK(code == 1);
    CHECK(out.find("first/watch mode iterative: does not start: the server did not print 'never "
                   "printed' within 5 s") != std::string::npos);
    CHECK(out.find("first/watch mode epoll: does not start: the server (echo-server) exited with "
                   "status 2") != std::string::npos);
    CHECK(out.find("2 starts: problems above") != std::string::npos);
}

TEST_CASE("check --pack: a sweep step starts at its default value, its placeholder given")
{
    // The built-in pack's sweep steps once failed here: their programs got "{size}" itself.
    Env e;
    std::string pack = e.tmp / "swept";
    mkdir(pack.c_str(), 0755);
    spit(pack + "/pack.json", R"({"format_version": 1, "id": "swept", "title": "S",
        "version": "1", "lessons": ["s"]})");
    spit(pack + "/s.json", R"({"id": "s", "title": "S", "summary": "s", "steps": [
        {"id": "sweep", "title": "Sweep", "kind": "run", "text": "x",
         "files": [{"name": "data.bin", "size": "1M"}],
         "programs": [{"name": "reader", "role": "client", "program": "read-sizes",
                       "args": ["--file", "{workdir}/data.bin", "--size", "{size}"]}],
         "modes": [{"id": "read", "title": "read", "key": "1", "program": "reader",
                    "args": ["--mode", "read"]}],
         "sweep": {"param": "size", "values": ["8", "4K", "64K"], "figure": "bytes_per_s",
                   "seconds": 1, "default": "4K"}}]})");
    auto [lint, lout] = run({bin("iolab"), "lint", pack}, e.env);
    INFO(lout);
    REQUIRE(lint == 0);
    auto [code, out] = run({bin("iolab"), "check", "--pack", pack}, e.env, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("s/sweep mode read: starts") != std::string::npos);
    CHECK(out.find("1 start: every program started") != std::string::npos);
}
