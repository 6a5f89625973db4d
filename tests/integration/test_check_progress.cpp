// Headless `iolab check` records in the learner's progress what the TUI records: one attempt per
// build of content the learner changed (not the starter as generated, not an unchanged file built
// again), and the pass, which marks the step done.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

// The step's exercise record and whether it is done, from a real JSON parser.
const char *progress_reader = R"PY(
import sys, json, os
path = sys.argv[1]
if not os.path.exists(path):
    print("no progress"); sys.exit(0)
p = json.load(open(path))["packs"]["course"]
rec = p["steps"].get("first/your-echo", {}).get("fields", {}).get("exercise", {})
print("attempts=%s pass=%s done=%s" % (rec.get("attempts", 0), "first_pass" in rec,
      "first/your-echo" in p["done"]))
)PY";

} // namespace

TEST_CASE("check: a headless check records attempts and the pass in the learner's progress")
{
    TempDir tmp;
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "TMPDIR=" + (tmp / "")};
    std::string pack = tmp / "course";
    auto [ncode, nout] = run({bin("iolab"), "new", pack}, env);
    INFO(nout);
    REQUIRE(ncode == 0);
    std::string progress = tmp / "state/iolab/progress.json";
    std::string work = tmp / "data/iolab/work/course/first/your-echo/echo.c";
    auto check = [&](int want) {
        auto [code, out] =
            run({bin("iolab"), "check", "first/your-echo", "--pack", pack}, env, 120);
        INFO(out);
        CHECK(code == want);
        auto [pcode, pout] = run({"/usr/bin/python3", "-c", progress_reader, progress});
        INFO(pout);
        REQUIRE(pcode == 0);
        return pout;
    };

    // The starter as generated: the learner has tried nothing yet.
    CHECK(check(1).find("no progress") != std::string::npos);

    // A change that still fails: one attempt; the same file checked again is no new attempt.
    spit_append(work, "/* my first try */\n");
    CHECK(check(1).find("attempts=1 pass=False done=False") != std::string::npos);
    CHECK(check(1).find("attempts=1 pass=False done=False") != std::string::npos);

    // The learner's own completed TODO: a second attempt, and the pass marks the step done.
    std::string solution = slurp(pack + "/exercises/first/echo/echo.c");
    {
        spit(work, solution + "/* done, I think */\n");
    }
    CHECK(check(0).find("attempts=2 pass=True done=True") != std::string::npos);
}
