// What a learner reads at 80x24, the smallest terminal iolab promises to serve: the help scrolls
// to its last line (the modes' names the footer points to), in a real terminal (tmux).
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>

using namespace iolab_test;

TEST_CASE("screen at 80x24: the help scrolls to its last line, where the modes are named")
{
    TempDir t;
    IolabTerm term(t, "--open concurrency/compare", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("1-4 modes (? names them)", 30));
    term.keys("?");
    REQUIRE(term.wait_for("j/k scroll", 10));
    // Too long for 24 rows: the title says which rows show, and the modes are below.
    CHECK(term.screen().find("mode thread: a thread per connection") == std::string::npos);
    term.keys("G");
    REQUIRE(term.wait_for("mode thread: a thread per connection", 10));
    CHECK(term.screen().find("mode iterative: one connection at a time") != std::string::npos);
    CHECK(term.screen().find("Mouse: click to") != std::string::npos); // the last line
    // Scrolling back up one row at a time, then any other key closes it.
    term.keys("k");
    term.keys("g");
    REQUIRE(term.wait_for("Enter       start the scenario", 10));
    term.keys("Escape");
    for (int i = 0; i < 100 && term.screen().find("j/k scroll") != std::string::npos; i++)
        usleep(100000);
    CHECK(term.screen().find("j/k scroll") == std::string::npos);
    CHECK(term.quit());
}
