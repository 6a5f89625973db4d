// The sweep's screen as a learner reads it at 80x24 (issue "The verdict on screen"): the chart's
// title in words ("requests/s by n", no placeholder braces), the `v` table with a row per figure
// named in its left column and explained in a legend (p99 latency; bytes per read call when the
// server reads), the `!` mark on the points that counted errors and what it means, the step's
// expected outcomes judged on the sweep's points once they exist, and, under an outcome this run
// contradicts, the lesson's why.
//
// The fake client (tests/progs/sweep_fake.c) makes every figure known: flat 1000 requests/s,
// linear 10*N, errors counted at N = 300 only. At the default N = 30, flat > linear always, so
// "flat ahead" agrees and "linear ahead" is contradicted, on any machine.
#include <catch2/catch.hpp>

#include "tmux_helpers.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

using namespace iolab_test;

namespace
{

const char *const why_text = "the fake's linear mode answers ten per second for each n, so "
                             "below a hundred it trails flat";

// A pack with one sweep step over the fake: N = 10, 30, 300, 1000 (default 30), errors at 300.
std::string write_fake_pack(const TempDir &t)
{
    std::string dir = t / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "sweep-screen", "title": "Sweep screen",
      "version": "1", "lessons": ["fake"]})");
    std::string fake = build_dir() + "/lib/iolab/iolab-sweep-fake";
    spit(dir + "/fake.json",
         R"({"id": "fake", "title": "Fake sweep", "summary": "known curve",
      "steps": [{"id": "sweep", "title": "Known curve", "kind": "run", "text": "Press w.",
        "programs": [{"name": "load", "role": "client", "program": ")" +
             fake + R"(", "args": ["--value", "{n}", "--errors-at", "300"]}],
        "modes": [{"id": "flat", "title": "flat", "program": "load", "args": ["--mode", "flat"]},
                  {"id": "linear", "title": "linear", "program": "load",
                   "args": ["--mode", "linear"]}],
        "sweep": {"param": "n", "values": ["10", "30", "300", "1000"],
                  "figure": "requests_per_s", "seconds": 0.4, "default": "30"},
        "expect": [
          {"text": "flat ahead", "left": {"mode": "flat", "figure": "requests_per_s"}, "op": ">",
           "right": {"mode": "linear", "figure": "requests_per_s"}},
          {"text": "linear ahead", "left": {"mode": "linear", "figure": "requests_per_s"},
           "op": ">", "right": {"mode": "flat", "figure": "requests_per_s"},
           "why": ")" +
             std::string(why_text) + R"("}]}]})");
    return dir;
}

std::vector<std::string> lines(const std::string &screen)
{
    std::vector<std::string> out;
    std::stringstream ss(screen);
    std::string l;
    while (std::getline(ss, l))
        out.push_back(l);
    return out;
}

// The rows of the right-hand pane (after the text pane's right border and its own left one),
// without its right border and trailing blanks.
std::vector<std::string> right_pane(const std::string &screen)
{
    std::vector<std::string> rows;
    for (std::string line : lines(screen)) {
        size_t at = line.rfind("\u2502\u2502");
        if (at == std::string::npos)
            continue;
        std::string row = line.substr(at + 6);
        if (row.size() >= 3 && row.compare(row.size() - 3, 3, "\u2502") == 0)
            row.erase(row.size() - 3);
        row.erase(row.find_last_not_of(' ') + 1);
        rows.push_back(row);
    }
    return rows;
}

// The rows of the text pane (between its left border and its right one), trimmed.
std::vector<std::string> text_pane(const std::string &screen)
{
    std::vector<std::string> rows;
    for (std::string line : lines(screen)) {
        if (line.rfind("\u2502", 0) != 0)
            continue;
        size_t end = line.find("\u2502", 3);
        std::string row = line.substr(3, end == std::string::npos ? std::string::npos : end - 3);
        row.erase(0, row.find_first_not_of(' '));
        row.erase(row.find_last_not_of(' ') + 1);
        rows.push_back(row);
    }
    return rows;
}

// The table row that starts with a value ("300 ..."), or "".
std::string value_row(const std::vector<std::string> &rows, const std::string &value, size_t *at)
{
    for (size_t i = 0; i < rows.size(); i++)
        if (rows[i].rfind(value + " ", 0) == 0) {
            *at = i;
            return rows[i];
        }
    return "";
}

size_t count(const std::string &s, const std::string &what)
{
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        n++;
    return n;
}

} // namespace

TEST_CASE("sweep screen at 80x24: a title in words and a table whose rows and marks are explained")
{
    TempDir t;
    std::string pack = write_fake_pack(t);
    IolabTerm s(t, "--pack '" + pack + "' --open fake/sweep", "", 80, 24);
    REQUIRE(s.started());
    REQUIRE(s.wait_for("Known curve", 15));
    s.keys("w");
    REQUIRE(s.wait_for("requests/s by n, done", 60));
    std::string sc = s.screen();
    INFO(sc);
    // Nowhere a lesson's key or a placeholder: the chart's title and the status say it in words.
    CHECK(sc.find("{n}") == std::string::npos);
    CHECK(sc.find("requests_per_s") == std::string::npos);

    s.keys("v");
    REQUIRE(s.wait_for("p99: 99 in 100 requests answered within this", 5));
    sc = s.screen();
    INFO(sc);
    std::vector<std::string> rows = right_pane(sc);
    // Every row fits the pane at 80 columns: the legend lines are whole.
    CHECK(std::find(rows.begin(), rows.end(), "p99: 99 in 100 requests answered within this") !=
          rows.end());
    CHECK(std::find(rows.begin(), rows.end(), "! errors here: refused, reset or failed requests") !=
          rows.end());
    // The fake reads nothing: no bytes-per-read row, and no legend line for one.
    CHECK(sc.find("B/read") == std::string::npos);
    // Each value: the sweep's figure per mode, then the p99 row, named, with a latency per mode.
    std::regex latency(R"(^ p99 +[0-9.]+ (us|ms) +[0-9.]+ (us|ms)$)");
    for (const char *v : {"10", "30", "300", "1000"}) {
        size_t at = 0;
        std::string row = value_row(rows, v, &at);
        INFO(v << ": " << row);
        REQUIRE(!row.empty());
        REQUIRE(at + 1 < rows.size());
        CHECK(std::regex_match(rows[at + 1], latency));
        // The mark is on the points that counted errors (N = 300, both modes) and nowhere else.
        CHECK(count(row, "!") == (std::string(v) == "300" ? 2u : 0u));
    }
    CHECK(s.quit());
}

TEST_CASE("sweep screen at 80x24: the expectations are judged on the sweep and a contradiction "
          "shows its why")
{
    TempDir t;
    std::string pack = write_fake_pack(t);
    {
        IolabTerm s(t, "--pack '" + pack + "' --open fake/sweep", "", 80, 24);
        REQUIRE(s.started());
        REQUIRE(s.wait_for("What to expect:", 15));
        // Nothing ran: both outcomes undecided.
        std::vector<std::string> before = text_pane(s.screen());
        for (const std::string &r : before)
            if (r.find("ahead") != std::string::npos)
                CHECK(r.rfind("- ", 0) == 0);
        s.keys("w");
        REQUIRE(s.wait_for("requests/s by n, done", 60));
        REQUIRE(s.wait_for("Unlike the text:", 5));
        std::string sc = s.screen();
        INFO(sc);
        std::vector<std::string> rows = text_pane(sc);
        size_t agree = rows.size(), differ = rows.size();
        for (size_t i = 0; i < rows.size(); i++) {
            if (rows[i].find("flat ahead: sweep") != std::string::npos)
                agree = i;
            if (rows[i].find("linear ahead: sweep") != std::string::npos)
                differ = i;
        }
        REQUIRE(agree < rows.size());
        REQUIRE(differ < rows.size());
        // Judged on the sweep's points at the default value (the row says "sweep at n=30",
        // cut at this width): flat's 1000/s beats linear's 300/s.
        CHECK(rows[agree].rfind("\u2713 ", 0) == 0);
        CHECK(rows[differ].rfind("! ", 0) == 0);
        // Under the contradicted outcome, the lesson's why, whole (it fits in six rows).
        std::string why;
        for (size_t i = differ + 1; i < rows.size() && !rows[i].empty(); i++)
            why += (why.empty() ? "" : " ") + rows[i];
        CHECK(why == "Unlike the text: " + std::string(why_text));
        CHECK(s.quit());
    }
    // The sweep is kept: after a restart the verdicts stand without running anything.
    IolabTerm again(t, "--pack '" + pack + "' --open fake/sweep", "", 80, 24);
    REQUIRE(again.started());
    CHECK(again.wait_for("Unlike the text:", 15));
    std::string sc = again.screen();
    INFO(sc);
    CHECK(sc.find("\u2713 flat ahead") != std::string::npos);
    CHECK(again.quit());
}

TEST_CASE(
    "sweep screen at 80x24: a server that reads gets a bytes-per-read row named and explained")
{
    // The real echo server and client over loopback, two short points: the kernel counts the
    // server's read calls, so the table has the row the fake's lacks.
    TempDir t;
    std::string dir = t / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "sweep-echo", "title": "Sweep echo",
      "version": "1", "lessons": ["echo"]})");
    spit(dir + "/echo.json", R"({"id": "echo", "title": "Echo sweep", "summary": "reads",
      "steps": [{"id": "sweep", "title": "Echo reads", "kind": "run", "text": "Press w.",
        "programs": [
          {"name": "server", "role": "server", "program": ")" +
                                 demo("echo-server") +
                                 R"(", "args": ["--port", "{port}", "--host", "{host}",
           "--mode", "epoll"], "ready": "listening"},
          {"name": "load", "role": "client", "program": ")" +
                                 demo("echo-client") +
                                 R"(", "args": ["--port", "{port}", "--host", "{host}",
           "--connections", "{connections}", "--size", "16"]}],
        "sweep": {"param": "connections", "values": ["1", "8"], "figure": "requests_per_s",
                  "seconds": 0.5}}]})");
    IolabTerm s(t, "--pack '" + dir + "' --open echo/sweep", "", 80, 24);
    REQUIRE(s.started());
    REQUIRE(s.wait_for("Echo reads", 15));
    s.keys("w");
    REQUIRE(s.wait_for("requests/s by connections, done", 60));
    s.keys("v");
    REQUIRE(s.wait_for("B/read: bytes per read call the kernel counted", 5));
    std::string sc = s.screen();
    INFO(sc);
    std::vector<std::string> rows = right_pane(sc);
    // Under each value: p99, then bytes per read call: about the 16-byte message, since the
    // server reads each message whole (a loaded machine may now and then find two at once).
    std::regex bytes(R"(^ B/read +([0-9.]+)$)");
    for (const char *v : {"1", "8"}) {
        size_t at = 0;
        std::string row = value_row(rows, v, &at);
        INFO(v << ": " << row);
        REQUIRE(!row.empty());
        REQUIRE(at + 2 < rows.size());
        CHECK(rows[at + 1].rfind(" p99 ", 0) == 0);
        std::smatch m;
        REQUIRE(std::regex_match(rows[at + 2], m, bytes));
        double b = std::stod(m[1]);
        CHECK(b >= 16);
        CHECK(b < 64);
    }
    CHECK(std::find(rows.begin(), rows.end(), "p99: 99 in 100 requests answered within this") !=
          rows.end());
    CHECK(s.quit());
}
