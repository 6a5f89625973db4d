// The exercise's code view at 80x24: L shows the learner's file with each counted line's calls
// in the margin. The learner's reader refills one byte per read(): the read() line carries
// millions of calls, and the failing check names the same line.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>

using namespace iolab_test;

TEST_CASE("tui: L shows the learner's file with counted calls in the margin, at 80x24",
          "[sites][tui]")
{
    TempDir home;
    IolabTerm t;
    const std::string step = "stdio/write-buffered-reader";
    REQUIRE(t.start(home.path, "--pack '" + source_dir() + "/lessons' --open '" + step + "'", "",
                    80, 24));
    REQUIRE(t.wait_status("Build 1: ok", 60)); // the starter
    // The learner saves a reader whose refill reads one byte at a time.
    std::string row =
        slurp(source_dir() + "/tests/data/exercises/stdio/write-buffered-reader/wrong/one-byte.c");
    spit(home / ("data/iolab/work/linux-io/" + step + "/reader.c"), row);
    REQUIRE(t.wait_status("Build 2: ok", 60));
    // Its run has counted calls once the check on its reads fails.
    bool judged = t.wait_for("\u2717 One read()", 60);
    INFO(t.last());
    REQUIRE(judged);
    t.keys("L");
    REQUIRE(t.wait_for("Your calls by line", 15));
    // The read() line is further down at 24 rows: PgDn scrolls the view.
    const std::string line = "read(r->fd, r->buf, 1);";
    bool found = t.wait_for(line, 1);
    for (int i = 0; i < 10 && !found; i++) {
        t.keys("NPage");
        found = t.wait_for(line, 1);
    }
    INFO(t.last());
    REQUIRE(found);
    // Its margin: a count (SI: "9.6M") and the call, then the line number 16.
    std::string screen = t.last();
    size_t at = screen.find(line);
    size_t bol = screen.rfind('\n', at);
    std::string shown = screen.substr(bol + 1, at - bol - 1);
    INFO(shown);
    CHECK(shown.find(" read  16 ") != std::string::npos);
    CHECK(shown.find_first_of("0123456789") < shown.find(" read"));
    t.keys("Escape");
    REQUIRE(t.wait_gone("Your calls by line", 15));
    REQUIRE(t.quit());
}
