// What a learner reads at 80x24, the smallest terminal iolab promises to serve, in a real terminal
// (tmux): the help scrolls to its last line (the modes' names the footer points to); an
// exercise's failing checks are named with a sentence, a compile error is readable, a pass stays.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <vector>

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

namespace
{

// The rows of the text pane (the left column) of an 80x24 screen.
std::vector<std::string> left_rows(const std::string &screen)
{
    std::vector<std::string> rows;
    std::stringstream ss(screen);
    for (std::string line; std::getline(ss, line);) {
        size_t end = line.find("\u2502\u2502"); // where the text pane's border meets the next
        rows.push_back(end == std::string::npos ? line : line.substr(0, end));
    }
    return rows;
}

} // namespace

TEST_CASE("screen at 80x24: an exercise's failing checks are named with the first one's sentence, "
          "a compile error is readable at its file:line:col, and the pass stays in sight")
{
    TempDir t;
    IolabTerm term(t, "--open zerocopy/write-sendfile", "", 80, 24);
    REQUIRE(term.started());
    std::string ws = t / "data/iolab/work/linux-io/zerocopy/write-sendfile";
    // The starter runs and fails: each failing check has its own row and mark, and the first
    // one's sentence (the figure, then why) is wrapped under its name.
    REQUIRE(term.wait_for("To complete this step:", 60));
    bool named = false;
    std::string seen;
    for (int i = 0; i < 600 && !named; i++) {
        seen = term.screen();
        std::vector<std::string> rows = left_rows(seen);
        for (size_t r = 0; r + 1 < rows.size() && !named; r++)
            named = rows[r].find("\u2717 ") != std::string::npos &&
                    rows[r + 1].find("     yours: ") != std::string::npos;
        if (!named)
            usleep(100000);
    }
    INFO(seen);
    REQUIRE(named);

    // A typo: the compiler's message is on screen with the learner's own file name, its line
    // and column, and the caret line under the source line.
    std::string file = ws + "/file-server.c", good = slurp(file);
    spit_append(file, "int oops = ;\n");
    REQUIRE(term.wait_for("failed", 60));
    std::regex at("file-server\\.c:\\d+:\\d+: error: expected expression");
    bool readable = false;
    for (int i = 0; i < 300 && !readable; i++) {
        seen = term.screen();
        readable = std::regex_search(seen, at);
        if (!readable)
            usleep(100000);
    }
    INFO(seen);
    REQUIRE(readable);
    // No workspace path in front of the message: the file is named as the learner knows it.
    CHECK(seen.find("/write-sendfile/file-server.c:") == std::string::npos);
    CHECK(seen.find("int oops = ;") != std::string::npos); // the source line
    CHECK(seen.find("^") != std::string::npos);            // and its caret

    // The reference solution passes: the pass is on screen, in the title and above the checks,
    // and it stays after the status line has moved on.
    spit(file, slurp(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c"));
    REQUIRE(term.wait_for("Step done. n: next", 90));
    CHECK(term.screen().find("iolab (done) - ") != std::string::npos);
    term.keys("H"); // a hint replaces the status line; the pass stays
    REQUIRE(term.wait_for("Hint 1:", 10));
    CHECK(term.screen().find("Step done. n: next") != std::string::npos);
    CHECK(term.quit());
}
