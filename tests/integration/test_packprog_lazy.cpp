// Installed packs are not built until the learner opens one: plain `iolab` shows a pack
// installed under $XDG_DATA_HOME/iolab/packs/ without compiling its program, `iolab list` never
// compiles it, and opening one of its lessons builds it, saying so once on the status line (the
// first build only: a later open, in the same session or the next, finds it built).
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

// The programs in the build cache: a build leaves one directory there, nothing else does.
size_t built(const TempDir &dir)
{
    size_t n = 0;
    if (DIR *d = opendir((dir / "cache/iolab/build").c_str())) {
        while (struct dirent *e = readdir(d))
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

size_t count(const std::string &s, const std::string &what)
{
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        n++;
    return n;
}

// How many builds iolab.log says were announced: the status line before one (the line after it
// repeats the sentence, followed by "Done." and the step's hint).
size_t announced(const std::string &log)
{
    return count(slurp(log), "status: Building 1 program of pack \"A pack that brings its own "
                             "server\" (the first build of its sources; later runs take it from "
                             "the cache).\n");
}

} // namespace

TEST_CASE("packprog lazy: an installed pack is built when a lesson of it is opened, not before")
{
    TempDir dir;
    std::string packs = dir / "data/iolab/packs";
    REQUIRE(system(("mkdir -p '" + packs + "' && cp -r '" + data("packs/own-program") + "' '" +
                    packs + "/own'")
                       .c_str()) == 0);
    std::string log = dir / "state/iolab/iolab.log";

    // Listing the packs shows it and builds nothing.
    auto [lcode, lout] =
        run({bin("iolab"), "list"},
            {"HOME=" + dir.path, "XDG_DATA_HOME=" + (dir / "data"),
             "XDG_CACHE_HOME=" + (dir / "cache"), "XDG_STATE_HOME=" + (dir / "state")},
            60);
    INFO(lout);
    CHECK(lcode == 0);
    CHECK(lout.find("own-program: A pack that brings its own server") != std::string::npos);
    CHECK(built(dir) == 0);

    {
        IolabTerm t(dir, "");
        REQUIRE(t.started());
        // The start screen lists the installed pack under its heading, and nothing was built.
        REQUIRE(t.wait_for("A pack that brings its own server", 30));
        REQUIRE(t.wait_for("An echo server that reads one byte at a time", 30));
        CHECK(built(dir) == 0);
        CHECK(announced(log) == 0);

        // Its lesson is the last row: up from "continue" wraps around to it. Opening it builds.
        t.keys("Up");
        t.keys("Enter");
        REQUIRE(t.wait_for("bytes per call", 120)); // the step's text
        REQUIRE(t.wait_for("Done.", 30)); // the status line: the build's sentence, then "Done."
        CHECK(built(dir) == 1);
        CHECK(announced(log) == 1);
        CHECK(count(slurp(log), "from the cache). Done.") == 1);

        // Back to the lessons and in again: built already, nothing said. (The first row still
        // offers to start the opened pack: only a lesson of the installed one was opened.)
        t.keys("h");
        REQUIRE(t.wait_for("Start:", 30));
        t.keys("Enter");
        REQUIRE(t.wait_for("bytes per call", 30));
        CHECK(built(dir) == 1);
        CHECK(announced(log) == 1);
        REQUIRE(t.quit());
    }

    // The next session finds it in the cache: opening it says nothing of a build.
    IolabTerm t(dir, "");
    REQUIRE(t.started());
    REQUIRE(t.wait_for("An echo server that reads one byte at a time", 30));
    t.keys("Up");
    t.keys("Enter");
    REQUIRE(t.wait_for("bytes per call", 60));
    CHECK(built(dir) == 1);
    CHECK(announced(log) == 1);
    REQUIRE(t.quit());
}

TEST_CASE("packprog lazy: an installed pack whose program does not build is listed, and opening "
          "it says so on the status line")
{
    TempDir dir;
    std::string pack = dir / "data/iolab/packs/own";
    REQUIRE(system(("mkdir -p '" + dir.path + "/data/iolab/packs' && cp -r '" +
                    data("packs/own-program") + "' '" + pack + "'")
                       .c_str()) == 0);
    {
        std::string src = slurp(pack + "/tools/slow-echo.c");
        auto at = src.find("ssize_t n;");
        REQUIRE(at != std::string::npos);
        src.replace(at, 10, "ssize_t n");
        spit(pack + "/tools/slow-echo.c", src);
    }
    IolabTerm t(dir, "");
    REQUIRE(t.started());
    REQUIRE(t.wait_for("An echo server that reads one byte at a time", 30));
    t.keys("Up");
    t.keys("Enter");
    REQUIRE(t.wait_for("do not build", 120));
    CHECK(t.screen().find("bytes per call") == std::string::npos); // the step did not open
    std::string log = slurp(dir / "state/iolab/iolab.log");
    CHECK(log.find("slow-echo.c:23:14: error:") != std::string::npos); // the compiler's words
    CHECK(built(dir) == 0);
    REQUIRE(t.quit());
}
