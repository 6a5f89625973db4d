// iolab starter LESSON/STEP --out DIR writes exactly the files a learner's workspace begins with,
// never over anything; and marker errors in an exercise's solution are reported at the C file's
// own line.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

struct Course {
    TempDir tmp;
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "TMPDIR=" + (tmp / "")};
    std::string pack = tmp / "course";
    std::string solution = pack + "/exercises/first/echo/echo.c";
    Course()
    {
        auto [code, out] = run({bin("iolab"), "new", pack}, env);
        INFO(out);
        REQUIRE(code == 0);
    }
};

} // namespace

TEST_CASE("starter: writes what the learner starts from, and never over files")
{
    Course c;
    std::string out = c.tmp / "skel";
    auto [code, text] =
        run({bin("iolab"), "starter", "first/your-echo", "--pack", c.pack, "--out", out}, c.env);
    INFO(text);
    REQUIRE(code == 0);
    CHECK(text.find(out + "/echo.c") != std::string::npos);
    std::string starter = slurp(out + "/echo.c");
    // The TODO's comment stays, its answer is gone, the REPLACE line is code.
    CHECK(starter.find("TODO 1: read() what the client sent") != std::string::npos);
    CHECK(starter.find("while ((n = read(c, buf, sizeof buf)) > 0)") == std::string::npos);
    CHECK(starter.find("\n    (void)buf;") != std::string::npos);

    // The learner's workspace, as `iolab check` makes it, holds the same bytes.
    run({bin("iolab"), "check", "first/your-echo", "--pack", c.pack, "--seconds", "1"}, c.env, 120);
    CHECK(slurp(c.tmp / "data/iolab/work/course/first/your-echo/echo.c") == starter);

    // A directory with files in it is left alone, in one sentence.
    auto [again, said] =
        run({bin("iolab"), "starter", "first/your-echo", "--pack", c.pack, "--out", out}, c.env);
    CHECK(again == 2);
    CHECK(said.find("is not empty") != std::string::npos);
    auto [notex, why] = run(
        {bin("iolab"), "starter", "first/check", "--pack", c.pack, "--out", c.tmp / "q"}, c.env);
    CHECK(notex == 2);
}

TEST_CASE("lint: a marker error is reported at the C file's line, without a false 'no TODO'")
{
    Course c;
    // REPLACE 3 reaches `close(c);`, a line of code where the starter's `// code` must be.
    std::string text = slurp(c.solution);
    size_t at = text.find("/* REPLACE 1 */");
    REQUIRE(at != std::string::npos);
    text.replace(at, 15, "/* REPLACE 3 */");
    spit(c.solution, text);
    int line = 1;
    for (size_t i = 0; i < at; i++)
        line += text[i] == '\n';
    auto [code, out] = run({bin("iolab"), "lint", c.pack}, c.env, 120);
    INFO(out);
    CHECK(code != 0);
    CHECK(out.find(c.solution + ":" + std::to_string(line + 2) + ":5: line " +
                   std::to_string(line + 2) + " is under a REPLACE marker") != std::string::npos);
    CHECK(out.find("no file of this exercise has a TODO marker") == std::string::npos);
    CHECK(out.find("1 problem") != std::string::npos);
}
