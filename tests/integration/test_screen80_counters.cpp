// The counters pane and the comparison at 80x24, in a real terminal (tmux): the calls a step
// names (its "watch") show for each role that makes them, the comparison has a row for every
// mode tried with headers that are not cut, and a figure an exercise never measured is not
// shown as a zero.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace iolab_test;

namespace
{

std::vector<std::string> lines_of(const std::string &screen)
{
    std::vector<std::string> rows;
    std::stringstream ss(screen);
    for (std::string line; std::getline(ss, line);)
        rows.push_back(line);
    return rows;
}

// The right column of a run step's screen: what follows the text pane's border ("││").
std::string right_of(const std::string &row)
{
    size_t at = row.find("\u2502\u2502");
    return at == std::string::npos ? "" : row.substr(at + 6);
}

// One role's block of the counters pane: its rows from the role's header ("server cpu") to the
// next role's header or the client's throughput lines.
std::string role_block(const std::string &screen, const std::string &role)
{
    std::string out;
    bool in = false;
    for (const std::string &row : lines_of(screen)) {
        std::string r = right_of(row);
        if (r.find(" " + role + " cpu ") != std::string::npos) {
            in = true;
        } else if (in && (r.find(" cpu ") != std::string::npos ||
                          r.find("requests/s") != std::string::npos ||
                          r.find("calls: counted") != std::string::npos || r.find("\u2514") == 0)) {
            break;
        }
        if (in)
            out += r + "\n";
    }
    return out;
}

// Polls until every word is in the role's block; the last block seen is left in *seen.
bool wait_block(IolabTerm &term, const std::string &role, const std::vector<std::string> &words,
                double secs, std::string *seen)
{
    for (int i = 0; i < secs * 10; i++) {
        *seen = role_block(term.screen(), role);
        bool all = !seen->empty();
        for (const std::string &w : words)
            all = all && seen->find(w) != std::string::npos;
        if (all)
            return true;
        usleep(100000);
    }
    return false;
}

// The comparison's rows (the right column from its heading row down), and whether a mode's row
// is among them: "│ ID " or "│ ID *" at the start.
std::string compare_rows(const std::string &screen)
{
    std::string out;
    bool in = false;
    for (const std::string &row : lines_of(screen)) {
        std::string r = right_of(row);
        if (row.find("Comparison of the modes tried") != std::string::npos)
            in = true;
        else if (in)
            out += r + "\n";
    }
    return out;
}

bool has_row(const std::string &rows, const std::string &id)
{
    return rows.find("\n " + id + " ") != std::string::npos ||
           rows.find("\n " + id + "*") != std::string::npos || rows.rfind(" " + id + " ", 0) == 0 ||
           rows.rfind(" " + id + "*", 0) == 0;
}

// Switches to each mode in turn (its key) and waits for its row in the open comparison. A key
// pressed while the previous switch is still under way is not taken: it is pressed again every
// 10 s until the mode has its row.
void try_modes(IolabTerm &term, const std::vector<std::pair<std::string, std::string>> &modes)
{
    for (const auto &m : modes) {
        std::string rows;
        bool there = false;
        for (int i = 0; i < 900 && !there; i++) {
            if (i % 100 == 0)
                term.keys(m.second);
            rows = compare_rows(term.screen());
            there = has_row(rows, m.first);
            if (!there)
                usleep(100000);
        }
        INFO("mode " << m.first << "\n" << rows);
        REQUIRE(there);
    }
}

// The comparison's heading row, and a check that no header on it is cut ("…").
std::string heading_row(const std::string &rows)
{
    for (const std::string &r : lines_of(rows))
        if (r.find(" mode ") == 0)
            return r;
    return "";
}

} // namespace

TEST_CASE("counters at 80x24: the calls the concurrency step names show for each role, the "
          "epoll server's epoll_wait and accept4, then the fork server's fork")
{
    TempDir t;
    IolabTerm term(t, "--open concurrency/compare", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("1-4 modes (? names them)", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("Predict before you run", 20));
    term.keys("Escape"); // skips the predictions and starts the scenario (epoll, the default)
    std::string seen;
    bool server = wait_block(term, "server", {"epoll_wait", "accept4"}, 60, &seen);
    INFO("server block:\n" << seen);
    CHECK(server);
    // The load is an epoll client: its own epoll_wait shows in its block too.
    bool client = wait_block(term, "client", {"epoll_wait"}, 30, &seen);
    INFO("client block:\n" << seen);
    CHECK(client);
    // The client publishes its requests: that line is there (the reader exercise has none).
    CHECK(term.screen().find("requests/s") != std::string::npos);
    term.keys("3");
    REQUIRE(term.wait_for("calls since fork started", 30));
    bool forked = wait_block(term, "server", {"fork ", "accept4"}, 60, &seen);
    INFO("server block in fork mode:\n" << seen);
    CHECK(forked);
    CHECK(term.quit());
}

TEST_CASE("counters at 80x24: the zerocopy step's sendfile server shows sendfile")
{
    TempDir t;
    IolabTerm term(t, "--open zerocopy/compare", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("1-3 modes", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("Predict before you run", 20));
    term.keys("Escape");
    std::string seen;
    bool read_send = wait_block(term, "server", {"read", "sendto"}, 60, &seen);
    INFO("server block in read-send mode:\n" << seen);
    CHECK(read_send);
    term.keys("2");
    REQUIRE(term.wait_for("calls since sendfile started", 30));
    bool sendfile = wait_block(term, "server", {"sendfile "}, 60, &seen);
    INFO("server block in sendfile mode:\n" << seen);
    CHECK(sendfile);
    // The step's unit labels its rate, with a space before the value ("downloads/s 3.0", never
    // "downloads/s3.0").
    bool rate = term.wait_for("downloads/s ", 60);
    INFO(term.last());
    CHECK(rate);
    CHECK_FALSE(std::regex_search(term.last(), std::regex(R"(downloads/s\S)")));
    CHECK(term.quit());
}

TEST_CASE("comparison at 80x24: all four modes of concurrency/compare, with headers not cut")
{
    TempDir t;
    IolabTerm term(t, "--open concurrency/compare", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("1-4 modes (? names them)", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("Predict before you run", 20));
    term.keys("Escape");
    REQUIRE(term.wait_for("calls since epoll started", 30));
    term.keys("c");
    REQUIRE(term.wait_for("Comparison of the modes tried", 10));
    try_modes(term, {{"epoll", "2"}, {"iterative", "1"}, {"fork", "3"}, {"thread", "4"}});
    std::string rows = compare_rows(term.screen());
    INFO(rows);
    for (const char *id : {"epoll", "iterative", "fork", "thread"})
        CHECK(has_row(rows, id));
    CHECK(rows.find(" thread *") != std::string::npos); // the mode running now, marked
    std::string head = heading_row(rows);
    CHECK(head.find("\u2026") == std::string::npos);
    for (const char *h : {"req/s", "B/s", "call/r", "ctx/r", "cpu%"})
        CHECK(head.find(h) != std::string::npos);
    // The short headers are spelled out under the rows, and nothing there is cut.
    CHECK(rows.find("req/s: requests/s") != std::string::npos);
    CHECK(rows.find("\u2026") == std::string::npos);
    CHECK(term.quit());
}

TEST_CASE("comparison at 80x24: all seven modes of stdio/aio, one row each")
{
    TempDir t;
    IolabTerm term(t, "--open stdio/aio", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("1-7 modes", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("calls since aio-8 started", 30));
    term.keys("c");
    REQUIRE(term.wait_for("Comparison of the modes tried", 10));
    try_modes(term, {{"aio-8", "1"},
                     {"read-8", "2"},
                     {"fread-8", "3"},
                     {"aio-64k", "4"},
                     {"read-64k", "5"},
                     {"aio-64k-work", "6"},
                     {"read-64k-work", "7"}});
    std::string rows = compare_rows(term.screen());
    INFO(rows);
    for (const char *id :
         {"aio-8", "read-8", "fread-8", "aio-64k", "read-64k", "aio-64k-work", "read-64k-work"})
        CHECK(has_row(rows, id));
    CHECK((rows.find(" read-64k-work *") != std::string::npos ||
           rows.find(" read-64k-work*") != std::string::npos));
    // Short headers, or full ones while no request has completed in any mode (the columns per
    // request are left out then): never cut either way.
    std::string head = heading_row(rows);
    CHECK(head.find("\u2026") == std::string::npos);
    CHECK((head.find("cpu%") != std::string::npos || head.find("cpu %core") != std::string::npos));
    CHECK(rows.find("\u2026") == std::string::npos); // nor is the footer
    CHECK(term.quit());
}

TEST_CASE("counters at 80x24: the stdio reader exercise shows no figure it never measured, the "
          "feeder's passes and the reader's read() calls")
{
    TempDir t;
    IolabTerm term(t, "--open stdio/write-buffered-reader", "", 80, 24);
    REQUIRE(term.started());
    // The starter builds and runs by itself; the feeder's pass lines (a pass is a request it
    // published) are on screen once the reader has read its stream, long after the first
    // samples. Two programs share the width, so a line is wrapped: wait for its last words.
    bool passes = term.wait_for("all as sent", 120);
    INFO(term.screen());
    REQUIRE(passes);
    std::string seen;
    // The reader is the step's server (the feeder, a client, counts the passes it gets back).
    bool reads = wait_block(term, "server", {"read "}, 60, &seen);
    INFO("server block:\n" << seen);
    CHECK(reads);
    std::string screen = term.screen();
    INFO(screen);
    CHECK(screen.find("server cpu") != std::string::npos);
    // The feeder (the client) measures each pass it got back whole: its latency and bytes/s.
    CHECK(screen.find("latency: none measured") == std::string::npos);
    CHECK(screen.find("bytes/s        0") == std::string::npos);
    CHECK(term.quit());
}

TEST_CASE("a mouse report split 60 ms after its Esc is dropped whole: no mode switch, no "
          "totals, no leaving the step, and the next key acts")
{
    TempDir t;
    IolabTerm term(t, "--open stdio/small", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter start", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("calls since read started", 60));
    // One tmux command list, so that the gap is the server's own 60 ms wait: the Esc, then the
    // rest of an SGR press whose digits (3, 2) are mode keys of this step.
    auto r = term.tmux({"send-keys", "-H", "1b", ";", "run-shell", "sleep 0.06", ";", "send-keys",
                        "-l", "[<0;3;2M"});
    REQUIRE(r.first == 0);
    // A key typed after the report acts, so by the time it has, the report was read.
    term.keys("t");
    bool totals = term.wait_for("totals since the start", 30);
    std::string screen = term.last();
    INFO(screen);
    CHECK(totals);
    CHECK(screen.find("mode: read ") != std::string::npos);
    std::string log = term.log();
    INFO(log);
    CHECK(log.find("Switching the reader") == std::string::npos);
    CHECK(log.find("Stayed in the step") == std::string::npos);
    // And a mode key still switches.
    term.keys("2");
    CHECK(term.wait_for("mode: fread ", 30));
    CHECK(term.quit());
}

namespace
{

// The comparison's row of a mode as cells under the heading's cells: {"call/r", "-"}, ... Both
// rows are split at spaces; the short headers (80 columns) hold none.
std::map<std::string, std::string> compare_cells(const std::string &rows, const std::string &id)
{
    auto words = [](const std::string &line) {
        std::vector<std::string> out;
        std::stringstream ss(line);
        for (std::string w; ss >> w;)
            if (w != "\u2502")
                out.push_back(w);
        return out;
    };
    std::vector<std::string> head, row;
    for (const std::string &r : lines_of(rows)) {
        if (r.find(" mode ") == 0)
            head = words(r);
        else if (r.rfind(" " + id + " ", 0) == 0 || r.rfind(" " + id + "*", 0) == 0)
            row = words(r);
    }
    std::map<std::string, std::string> cells;
    if (!row.empty() && (row[1] == "*"))
        row.erase(row.begin() + 1);
    for (size_t i = 1; i < head.size() && i < row.size(); i++)
        cells[head[i]] = row[i];
    return cells;
}

} // namespace

TEST_CASE("comparison at 80x24: stdio/small's read mode before its first pass shows \"-\" for "
          "calls and context switches per pass, not 0, and fread's kernel reads per pass")
{
    TempDir t;
    // The lesson as shipped, with a file large enough that read() 8 bytes at a time finishes no
    // pass before the switch to fread (16 MiB takes about 2 s here; 256 MiB a half minute).
    std::string pack = t.path + "/pack";
    REQUIRE(run({"/bin/cp", "-r", source_dir() + "/lessons", pack}).first == 0);
    std::string json = slurp(pack + "/stdio.json");
    size_t at = json.find("\"size\": \"16M\"");
    REQUIRE(at != std::string::npos);
    json.replace(at, 13, "\"size\": \"256M\"");
    spit(pack + "/stdio.json", json);

    IolabTerm term(t, "--pack '" + pack + "' --open stdio/small", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter start", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("calls since read started", 60));
    term.keys("c");
    REQUIRE(term.wait_for("Comparison of the modes tried", 10));
    // fread's passes finish in a few seconds: then the per-pass columns are there, and read's
    // row has nothing to divide by.
    try_modes(term, {{"fread", "2"}});
    std::map<std::string, std::string> read, fread;
    bool both = term.wait_until(
        [&](const std::string &screen) {
            std::string rows = compare_rows(screen);
            read = compare_cells(rows, "read");
            fread = compare_cells(rows, "fread");
            return read.count("call/r") && fread.count("call/r") && fread["call/r"] != "-";
        },
        120);
    std::string rows = compare_rows(term.last());
    INFO(rows);
    REQUIRE(both);
    CHECK(read["call/r"] == "-");
    CHECK(read["ctx/r"] == "-");
    CHECK(read["syscr/r"] == "-");
    CHECK(read["cpu%"] != "-"); // a share of time is a figure without a pass
    // fread: the kernel's reads per pass are there beside the counted calls, and not "-".
    REQUIRE(fread.count("syscr/r"));
    CHECK(fread["syscr/r"] != "-");
    CHECK(fread["ctx/r"] != "-");
    // The footer says why, per pass (its words joined across the lines it wraps to).
    std::string text;
    std::stringstream ss(rows);
    for (std::string w; ss >> w;)
        if (w != "\u2502")
            text += w + " ";
    CHECK(text.find("-: no pass done in that mode yet.") != std::string::npos);
    CHECK(text.find("ctx/r: ctx switches per pass.") != std::string::npos);
    CHECK(term.quit());
}

TEST_CASE("counters at 80x24: c10k's two watched figures, the server's threads and the clients "
          "waiting, are on screen")
{
    TempDir t;
    IolabTerm term(t, "--open concurrency/c10k", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter start", 30));
    term.keys("Enter");
    std::string seen;
    bool threads = wait_block(term, "server", {"threads 1"}, 120, &seen);
    INFO("server block:\n" << seen);
    CHECK(threads);
    // The latency line once requests are timed: how many wait, whole, 0 included.
    bool waiting = term.wait_until(
        [](const std::string &screen) {
            for (const std::string &row : lines_of(screen)) {
                std::string r = right_of(row);
                size_t at = r.find(" waiting");
                if (r.find("latency p50") != std::string::npos && at != std::string::npos)
                    return true;
            }
            return false;
        },
        120);
    INFO(term.last());
    CHECK(waiting);
    CHECK(term.quit());
}

TEST_CASE("counters at 80x24: a step without modes counts from the scenario's start, the "
          "clients' first calls included")
{
    // chat/room has no modes: its counters once started from the first sample and called that
    // "calls since the start", leaving out the epoll_ctl of the clients that joined before it.
    TempDir t;
    IolabTerm term(t, "--open chat/room", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter", 30));
    term.keys("Enter");
    if (term.wait_for("Predict before you run", 5))
        term.keys("Escape");
    std::string seen;
    bool server = wait_block(term, "server", {"epoll_ctl"}, 60, &seen);
    INFO("server block:\n" << seen);
    CHECK(server);
    std::string screen = term.screen();
    INFO(screen);
    CHECK(screen.find("totals since the start") != std::string::npos);
    CHECK(screen.find("calls since the start") == std::string::npos);
    CHECK(term.quit());
}
