// The exercise's code view at 80x24: L shows the learner's file with each counted line's calls
// in the margin. The learner's reader refills one byte per read(): the read() line carries
// millions of calls, and the failing check names the same line.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

using namespace iolab_test;

namespace
{

// A margin's figure in SI ("159k", "1.06M", "14.1k/s"): its value.
double si(const std::string &s)
{
    double v = std::atof(s.c_str());
    if (s.find('k') != std::string::npos)
        v *= 1e3;
    else if (s.find('M') != std::string::npos)
        v *= 1e6;
    else if (s.find('G') != std::string::npos)
        v *= 1e9;
    return v;
}

// The margin of a code view's row: its count, its calls a second ("-" before a second look)
// and its call. The row is "│ " then the margin.
struct Margin {
    double count = 0, rate = -1;
    std::string call;
};
Margin margin(const std::string &row)
{
    std::istringstream in(row.substr(row.find(' ')));
    std::string count, rate;
    Margin m;
    in >> count >> rate >> m.call;
    m.count = si(count);
    if (rate.size() > 2 && rate.substr(rate.size() - 2) == "/s")
        m.rate = si(rate);
    return m;
}

// The source line number of the code view's first row ("│ ", a 24-column margin, then the
// number), -1 when no row of the screen has one: what tells a page turn from a count's update.
int first_line(const std::string &screen)
{
    const std::string bar = "\u2502 ";
    std::istringstream rows(screen);
    for (std::string row; std::getline(rows, row);) {
        if (row.rfind(bar, 0) != 0 || row.size() < bar.size() + 24)
            continue;
        char *end = nullptr;
        long n = std::strtol(row.c_str() + bar.size() + 24, &end, 10);
        if (end && end != row.c_str() + bar.size() + 24 && n > 0)
            return (int)n;
    }
    return -1;
}

// Scrolls the code view from its top, a page at a time, to the row that shows `code` with
// `call` in its margin: that margin, or one with no call when no page has it.
Margin find_counted(IolabTerm &t, const std::string &code, const std::string &call)
{
    t.keys("g");
    std::string screen = t.screen();
    for (int page = 0; page < 60; page++) {
        std::istringstream rows(screen);
        for (std::string row; std::getline(rows, row);)
            if (row.find(code) != std::string::npos && margin(row).call == call)
                return margin(row);
        // The last page has no "(more: j)": there is nothing further to turn to. Any other page
        // turns, however slowly a loaded machine redraws it.
        if (screen.find("(more: j)") == std::string::npos)
            break;
        t.keys("NPage");
        int before = first_line(screen);
        if (!t.wait_until(
                [&](const std::string &s) {
                    return before < 0 ? s != screen : first_line(s) != before;
                },
                20))
            break;
        screen = t.last();
    }
    return Margin();
}

} // namespace

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
    // The view cuts a line to what the margin leaves at 80 columns: its start is enough.
    const std::string line = "got = read(r->fd, r->buf";
    bool found = t.wait_for(line, 1);
    for (int i = 0; i < 10 && !found; i++) {
        t.keys("NPage");
        found = t.wait_for(line, 1);
    }
    INFO(t.last());
    REQUIRE(found);
    // Its margin: a count (SI: "9.6M"), the calls a second ("-" until a second look), the
    // call, then the line number 16.
    std::string screen = t.last();
    size_t at = screen.find(line);
    size_t bol = screen.rfind('\n', at);
    std::string shown = screen.substr(bol + 1, at - bol - 1);
    INFO(shown);
    CHECK(shown.find(" read        16  ") != std::string::npos);
    CHECK(shown.find_first_of("0123456789") < shown.find(" read"));
    // The reference mode (2): the view turns to the reference's file (its refill reads 4 KiB at
    // a time, line 22 there), counted since the mode began.
    t.keys("2");
    REQUIRE(t.wait_for("The reference's calls by line", 30));
    Margin ref;
    bool counted = t.wait_until(
        [&](const std::string &) {
            ref = find_counted(t, "got = read(r->fd, r->buf", "read");
            return ref.count >= 1;
        },
        60);
    INFO(t.last());
    CHECK(counted);
    t.keys("Escape");
    REQUIRE(t.wait_gone("calls by line", 15));
    REQUIRE(t.quit());
}

TEST_CASE("tui: L in concurrency/compare shows the epoll server's source, epoll_wait's line "
          "counted with its calls a second, then the fork mode's fork() line, at 80x24",
          "[sites][tui]")
{
    TempDir home;
    IolabTerm t(home, "--open concurrency/compare", "", 80, 24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("1-4 modes (? names them)", 30));
    t.keys("Enter");
    REQUIRE(t.wait_for("Predict before you run", 20));
    t.keys("Escape"); // skips the predictions and starts the scenario (epoll, the default)
    REQUIRE(t.wait_for("mode: epoll", 30));
    t.keys("L");
    REQUIRE(t.wait_for("server's calls by line", 15));
    // A line's rate needs two look-ups a second apart.
    Margin wait;
    bool rated = t.wait_until(
        [&](const std::string &) {
            wait = find_counted(t, "epoll_wait(ep, events", "epoll_wait");
            return wait.rate > 0;
        },
        60);
    INFO(t.last());
    REQUIRE(rated);
    // Tens of thousands a second on a quiet machine; a loaded one runs the load slower, so the
    // test asks for hundreds, and that accept4() ran a few times (the load's 8 connections).
    CHECK(wait.count >= 100);
    CHECK(wait.rate >= 100);
    Margin acc = find_counted(t, "accept4(lfd", "accept4");
    INFO(t.last());
    CHECK(acc.count >= 1);
    CHECK(acc.count < 1000);
    // A live switch to fork: the view stays open, counts restart with the mode, and the fork
    // mode's fork() line is counted.
    t.keys("3");
    REQUIRE(t.wait_for("mode: fork", 30));
    Margin fork;
    bool forked = t.wait_until(
        [&](const std::string &) {
            fork = find_counted(t, "= fork()", "fork");
            return fork.count >= 1;
        },
        60);
    INFO(t.last());
    CHECK(forked);
    t.keys("Escape");
    REQUIRE(t.wait_gone("server's calls by line", 15));
    REQUIRE(t.quit());
}
