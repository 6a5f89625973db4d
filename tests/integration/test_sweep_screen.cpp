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
#include <map>
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

namespace
{

// The words of a row, split at blanks: {"B/read", "4.0K", "-"}.
std::vector<std::string> words(const std::string &row)
{
    std::vector<std::string> out;
    std::stringstream ss(row);
    std::string w;
    while (ss >> w)
        out.push_back(w);
    return out;
}

// "4.0K" -> 4096, "63K" -> 64512, "1.0M" -> 1048576, "16" -> 16.
double binary_size(const std::string &s)
{
    double v = std::stod(s);
    switch (s.back()) {
    case 'K':
        return v * 1024;
    case 'M':
        return v * 1024 * 1024;
    case 'G':
        return v * 1024 * 1024 * 1024;
    default:
        return v;
    }
}

// A progress store holding a finished sweep of copying/sweep, as the TUI saves one: read-write
// reads its buffer's worth per call, sendfile and copy_file_range the 4 MiB file in one call,
// splice and mmap move the bytes without read calls (their kernel rchar next to nothing, a few
// reads of something else making a meaningless bytes-per-read), and mmap's copies are a hundred
// times slower than the others', as on the machine the issue was seen on.
std::string copying_sweep_progress()
{
    const char *values[] = {"4K", "16K", "64K", "128K", "256K", "1M"};
    const double x[] = {4096, 16384, 65536, 131072, 262144, 1048576};
    const char *modes[] = {"read-write", "splice", "sendfile", "copy-file-range", "mmap"};
    std::string points;
    for (size_t v = 0; v < 6; v++)
        for (size_t m = 0; m < 5; m++) {
            bool reads = m == 0 || m == 2 || m == 3;
            double speed = m == 4 ? 1e8 + 1e7 * (double)v : 8e9 + 1e9 * (double)m;
            double per_read = m == 0 ? x[v] : reads ? 4194304 : 4e8;
            double calls = m == 0 ? 2 * 4194304 / x[v] + 2 : m == 1 ? 2 * 4194304 / x[v] : 1;
            char p[640];
            snprintf(p, sizeof p,
                     R"(%s{"mode": "%s", "value": "%s", "x": %.0f, "measured": true,
                 "figure": %.0f, "seconds": 1, "requests": 100, "bytes": 419430400,
                 "errors": 0, "connections": 0, "waiting": 0, "failed": 0,
                 "requests_per_s": 100, "bytes_per_s": %.0f, "calls_per_request": %.4f,
                 "syscr_per_request": 1, "bytes_per_syscr": %.1f, "rchar_per_byte": %s,
                 "ctx_per_request": 0.1, "cpu_pct": 95, "p50_ms": 1, "p99_ms": 2,
                 "problem": null})",
                     points.empty() ? "" : ", ", modes[m], values[v], x[v], speed, speed, calls,
                     per_read, reads ? "1" : "0.0001");
            points += p;
        }
    return R"({"format": 1, "packs": {"linux-io": {"done": [], "answers": {},
      "last": {"lesson": "copying", "step": "sweep"},
      "steps": {"copying/sweep": {"fields": {"sweep": {"param": "buffer",
        "figure": "bytes_per_s", "unit": "B/s", "seconds_per_point": 1, "scale": "log",
        "tier": "full", "finished": true, "stopped": false, "points_done": 30,
        "values": ["4K", "16K", "64K", "128K", "256K", "1M"],
        "modes": ["read-write", "splice", "sendfile", "copy-file-range", "mmap"],
        "points": [)" +
           points + "]}}}}}}}";
}

} // namespace

TEST_CASE("sweep screen at 80x24: copying/sweep's chart shows every mark and v the bytes per read "
          "call and the calls per copy")
{
    TempDir t;
    REQUIRE(system(("mkdir -p '" + (t / "state/iolab") + "'").c_str()) == 0);
    spit(t / "state/iolab/progress.json", copying_sweep_progress());
    IolabTerm s(t, "--open copying/sweep", "", 80, 24);
    REQUIRE(s.started());
    // The step opens on the sweep it kept: the chart, its legend on as many rows as it needs.
    REQUIRE(s.wait_for("bytes/s by buffer, done", 15));
    std::string sc = s.screen();
    INFO(sc);
    std::vector<std::string> rows = right_pane(sc);
    std::string pane;
    for (const std::string &r : rows)
        pane += r + "\n";
    for (const char *mark :
         {"* read-write", "o splice", "+ sendfile", "x copy-file-range", "# mmap"})
        CHECK(pane.find(mark) != std::string::npos);
    // mmap's copies, a hundred times slower, are on a log axis that says so in words, and no
    // bare "x" stands for anything but copy-file-range.
    CHECK(pane.find("log scale") != std::string::npos);
    CHECK(pane.find("x log") == std::string::npos);
    // Every series is drawn: each mark is on the plot at least once beyond the legend.
    for (const char *mark : {"*", "o", "+", "x", "#"})
        CHECK(count(pane, mark) >= 2);

    s.keys("v");
    REQUIRE(s.wait_for("B/read: bytes per read call the kernel counted", 5));
    sc = s.screen();
    INFO(sc);
    rows = right_pane(sc);
    // Six sizes in five modes: a block per mode, the sizes as columns, and under each mode the
    // two rows the step's text names, each with a figure for every size.
    std::vector<std::string> head = words(rows.at(0));
    CHECK(head == std::vector<std::string>{"buffer", "4K", "16K", "64K", "128K", "256K", "1M"});
    std::map<std::string, std::vector<std::string>> by_read, calls;
    std::string mode;
    for (const std::string &r : rows) {
        std::vector<std::string> w = words(r);
        if (w.empty())
            continue;
        if (r[0] != ' ' && w.size() == 7)
            mode = w[0];
        else if (r[0] == ' ' && w[0] == "B/read")
            by_read[mode] = std::vector<std::string>(w.begin() + 1, w.end());
        else if (r[0] == ' ' && w[0] == "calls")
            calls[mode] = std::vector<std::string>(w.begin() + 1, w.end());
    }
    for (const char *m : {"read-write", "splice", "sendfile", "copy-file-range", "mmap"}) {
        INFO(m);
        CHECK(by_read[m].size() == 6);
        CHECK(calls[m].size() == 6);
    }
    // For read-write the bytes per read call are the buffer itself, in the sizes' own units.
    const double buffers[] = {4096, 16384, 65536, 131072, 262144, 1048576};
    for (size_t i = 0; i < 6 && by_read["read-write"].size() == 6; i++)
        CHECK(binary_size(by_read["read-write"][i]) == Approx(buffers[i]).epsilon(0.05));
    // splice and mmap read nothing: "-", and the legend says why; sendfile's one call is 4 MiB.
    CHECK(by_read["splice"] == std::vector<std::string>(6, "-"));
    CHECK(by_read["mmap"] == std::vector<std::string>(6, "-"));
    CHECK(by_read["sendfile"] == std::vector<std::string>(6, "4.0M"));
    CHECK(std::find(rows.begin(), rows.end(),
                    "- under B/read: the bytes moved without read calls") != rows.end());
    // The calls per copy the text promises, named as the step names its copies.
    CHECK(calls["sendfile"] == std::vector<std::string>(6, "1.00"));
    CHECK(std::find(rows.begin(), rows.end(), "calls: counted system calls per copy") !=
          rows.end());
    // No figure in e-notation, none cut.
    CHECK(sc.find("e+") == std::string::npos);
    CHECK(count(pane, "\u2026") == 0);
    CHECK(s.quit());
}

TEST_CASE("sweep screen at 80x24: a live copy sweep measures bytes per read call, - where the "
          "bytes moved without reads, and says the time left")
{
    TempDir t;
    std::string dir = t / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "sweep-copy", "title": "Sweep copy",
      "version": "1", "lessons": ["copy"]})");
    spit(dir + "/copy.json", R"({"id": "copy", "title": "Copy sweep", "summary": "reads",
      "steps": [{"id": "sweep", "title": "Copy reads", "kind": "run", "text": "Press w.",
        "programs": [{"name": "copy", "role": "client", "program": ")" +
                                 demo("copy-file") +
                                 R"(", "args": ["--dir", "{workdir}", "--size", "1M",
           "--buffer", "{buffer}"]}],
        "modes": [{"id": "read-write", "title": "rw", "program": "copy",
                   "args": ["--mode", "read-write"]},
                  {"id": "splice", "title": "splice", "program": "copy",
                   "args": ["--mode", "splice"]},
                  {"id": "mmap", "title": "mmap", "program": "copy", "args": ["--mode", "mmap"]}],
        "unit": "copies",
        "sweep": {"param": "buffer", "values": ["4K", "64K"], "figure": "bytes_per_s",
                  "role": "client", "seconds": 0.5,
                  "table": ["bytes_per_syscr", "calls_per_request"]}}]})");
    IolabTerm s(t, "--pack '" + dir + "' --open copy/sweep", "", 80, 24);
    REQUIRE(s.started());
    REQUIRE(s.wait_for("Copy reads", 15));
    s.keys("w");
    // While it runs, the progress row says how long the rest will take.
    CHECK(s.wait_until(
        [](const std::string &sc) {
            return std::regex_search(sc, std::regex(R"([~>][0-9]+ (s|min) left)"));
        },
        30));
    REQUIRE(s.wait_for("bytes/s by buffer, done", 90));
    s.keys("v");
    REQUIRE(s.wait_for("B/read: bytes per read call the kernel counted", 5));
    std::string sc = s.screen();
    INFO(sc);
    std::vector<std::string> rows = right_pane(sc);
    const double buffers[] = {4096, 65536};
    const char *values[] = {"4K", "64K"};
    for (size_t i = 0; i < 2; i++) {
        size_t at = 0;
        std::string row = value_row(rows, values[i], &at);
        INFO(values[i] << ": " << row);
        REQUIRE(!row.empty());
        REQUIRE(at + 2 < rows.size());
        std::vector<std::string> w = words(rows[at + 1]);
        REQUIRE(w.size() == 4);
        CHECK(w[0] == "B/read");
        // read-write reads a buffer per call (the last one at the end of the file shorter).
        CHECK(binary_size(w[1]) <= buffers[i]);
        CHECK(binary_size(w[1]) > buffers[i] / 2);
        CHECK(w[2] == "-");
        CHECK(w[3] == "-");
        CHECK(words(rows[at + 2]).at(0) == "calls");
    }
    CHECK(std::find(rows.begin(), rows.end(),
                    "- under B/read: the bytes moved without read calls") != rows.end());
    CHECK(s.quit());
}
