// Exercises in a real terminal (tmux). Hostile learner code: a program that floods its output,
// one that spins and one that forks without end, a compiler fed /dev/zero, a server that never
// listens; each is built and run on save, and the TUI answers keys throughout; quitting leaves no
// process behind, and the progress record counts the attempts. And what the learner sees: `e`
// opens every file with a TODO in one editor, the solution's code after a confirmation, the
// warnings of a build that succeeds, a sanitizer's report, "yours" beside "reference".
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <thread>

using namespace iolab_test;

namespace
{

// A workspace's file set before iolab opens the step: its name and its text.
using Seed = std::vector<std::pair<std::string, std::string>>;

// iolab in a terminal (tmux_helpers.hpp) on a step of the built-in pack; env is more
// `NAME='value'` to export, seed the learner's files to find in the workspace (which iolab never
// overwrites). A build's status is read from iolab's log (IolabTerm::wait_status). The directory
// is a base before the terminal, so it outlives iolab.
struct TuiDir {
    TempDir dir_;
};
class Tui : TuiDir, public IolabTerm
{
  public:
    explicit Tui(const std::string &step, const std::vector<std::string> &env = {},
                 const Seed &seed = {}, const std::string &pack = source_dir() + "/lessons")
    {
        std::string ws = dir_ / ("data/iolab/work/linux-io/" + step);
        if (!seed.empty())
            run({"/bin/mkdir", "-p", ws});
        for (const auto &[name, text] : seed)
            spit(ws + "/" + name, text);
        std::string exports;
        for (const auto &e : env)
            exports += e + " ";
        if (!start(dir_.path, "--pack '" + pack + "' --open '" + step + "'", exports, 120, 40))
            throw std::runtime_error("tmux new-session failed: " + last());
    }
    bool wait_for(const std::string &needle, double timeout_s = 10)
    {
        return IolabTerm::wait_for(needle, timeout_s);
    }
    const TempDir &dir() const
    {
        return dir_;
    }
};

const char *kHead = "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                    "int main(void)\n{\n    printf(\"listening\\n\");\n    fflush(stdout);\n";

} // namespace

TEST_CASE("tui: hostile learner code (a flood, an endless loop, a fork loop) leaves the TUI "
          "responsive and nothing behind")
{
    Tui t("ordered/write-server-loop");
    REQUIRE(t.wait_status("Build 1: ok", 60)); // the starter
    std::string file =
        t.dir() / "data/iolab/work/linux-io/ordered/write-server-loop/ordered-server.c";
    const std::vector<std::string> bodies = {
        // 1 GB of output, then silence
        "    static char line[65536];\n    memset(line, 'x', sizeof line - 1);\n"
        "    line[sizeof line - 1] = '\\n';\n    for (long i = 0; i < 16384; i++)\n"
        "        fwrite(line, 1, sizeof line, stdout);\n    for (;;)\n        pause();\n",
        // an endless loop
        "    for (volatile unsigned long i = 0;; i++) {\n    }\n",
        // a fork loop
        "    for (;;)\n        fork();\n",
    };
    for (size_t i = 0; i < bodies.size(); i++) {
        // Saved by rename, as an editor does: the watcher rebuilds and runs it.
        spit(file + ".tmp", std::string(kHead) + bodies[i] + "}\n");
        REQUIRE(rename((file + ".tmp").c_str(), file.c_str()) == 0);
        std::string build = "Build " + std::to_string(i + 2) + ": ok";
        bool built = t.wait_status(build, 60);
        INFO(t.last());
        REQUIRE(built);
        // After it, a key is still answered: the hint shows beside this build's status. (The
        // program never listens, so the scenario fails at once and stops it: there is no run
        // still going to order the hint against.)
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        t.keys("H");
        bool hint = t.wait_for("Hint " + std::to_string(i + 1) + ":", 30);
        INFO(t.last());
        CHECK(hint);
        CHECK(t.last().find(build) != std::string::npos);
    }
    // The checks say what went wrong while iolab runs on (the hints fill the pane: a shows the
    // checks whole): the first client could not connect, the run's first certain failure.
    t.keys("a");
    CHECK(t.wait_for("first exited with status 1", 30));
    t.keys("x");
    t.keys("q");
    if (t.wait_for("quit?", 5))
        t.keys("y");
    REQUIRE(t.wait_for("IOLAB-EXITED", 30));
    // Nothing of the scenario is left: only the shell's sleep.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::set<pid_t> left;
    do {
        left.clear();
        for (pid_t p : t.processes())
            if (!gone(p) && read_proc("/proc/" + std::to_string(p) + "/comm") != "sleep\n")
                left.insert(p);
        if (left.empty())
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    CHECK(left.empty());
    // The progress record counts every build of the learner's program as an attempt.
    std::string progress = slurp(t.dir() / "state/iolab/progress.json");
    INFO(progress);
    cJSON *p = cJSON_Parse(progress.c_str());
    REQUIRE(p);
    const cJSON *ex = cJSON_GetObjectItem(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "packs"), "linux-io"),
                                "steps"),
            "ordered/write-server-loop"),
        "fields");
    ex = cJSON_GetObjectItem(ex, "exercise");
    REQUIRE(ex);
    // One attempt per save of changed content: three, however many times the watcher and the
    // poll saw each save by rename, and the starter's own build is none.
    CHECK(cJSON_GetObjectItem(ex, "attempts")->valuedouble == 3);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(ex, "solution_viewed")));
    CHECK(!cJSON_GetObjectItem(ex, "first_pass"));
    cJSON_Delete(p);
}

namespace
{

const std::string kOrderedStep = "ordered/write-server-loop";

std::string workspace(const Tui &t, const std::string &step)
{
    return t.dir() / ("data/iolab/work/linux-io/" + step);
}

// Saves text as the learner's file by rename, as vim does: the watcher rebuilds.
void save(const std::string &file, const std::string &text)
{
    spit(file + ".tmp", text);
    REQUIRE(rename((file + ".tmp").c_str(), file.c_str()) == 0);
}

// text with its first `from` replaced by `to` (which must be there).
std::string edited(std::string text, const std::string &from, const std::string &to)
{
    size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

void quit(Tui &t)
{
    t.keys("q");
    if (t.wait_for("quit?", 5))
        t.keys("y");
    REQUIRE(t.wait_for("IOLAB-EXITED", 20));
}

// Checks that keys k bring needle on screen before iolab logs `later` (a status, a failure):
// the key is answered while what ends with `later` still goes on. Order, not time: the wait for
// the screen is generous, and the log is read after the screen that shows needle.
void check_answered_before(Tui &t, const std::string &k, const std::string &needle,
                           const std::string &later)
{
    size_t from = t.log().size();
    t.keys(k);
    bool seen = t.wait_for(needle, 60);
    std::string log = t.log();
    INFO(t.last() << "\nlog since the key:\n" << log.substr(std::min(from, log.size())));
    CHECK(seen);
    CHECK(log.find(later, from) == std::string::npos);
}

// The mode ids with a row in the comparison view on screen (as test_tui.cpp reads them).
std::set<std::string> compare_rows(const std::string &screen)
{
    static const std::regex row("(?:\u2502|\\|) ([a-z0-9_-]+)(?: \\*)? +[0-9]");
    std::set<std::string> ids;
    bool below = false;
    std::stringstream ss(screen);
    for (std::string line; std::getline(ss, line);) {
        if (line.find("Comparison of the modes tried") != std::string::npos) {
            below = true;
            continue;
        }
        std::smatch m;
        if (below && std::regex_search(line, m, row))
            ids.insert(m[1]);
    }
    return ids;
}

} // namespace

TEST_CASE("tui: e opens every file with a TODO in one editor, and the screen names the files")
{
    // A fake editor that writes down the arguments it was given, one a line.
    TempDir tools;
    std::string args = tools / "args";
    // It also adds a comment to the first file, as a learner's edit would: what changed builds.
    spit(tools / "ed.sh", "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + args +
                              "'\nprintf '/* edited */\\n' >> \"$1\"\n");
    chmod((tools / "ed.sh").c_str(), 0755);
    Tui t("chat/write-epoll-server", {"EDITOR='" + (tools / "ed.sh") + "'", "VISUAL="});
    REQUIRE(t.wait_status("Build 1: ok", 60));
    // The workspace's files are named, and which of them e opens (both have a TODO).
    CHECK(t.wait_for("Your files: chat-server.c,", 30));
    CHECK(t.wait_for("e opens both", 30));
    t.keys("e");
    REQUIRE(t.wait_status("Build 2", 30)); // back from the editor: the changed files build again
    std::string ws = workspace(t, "chat/write-epoll-server");
    CHECK(slurp(args) == ws + "/chat-server.c\n" + ws + "/w_epoll.h\n");
    quit(t);
}

TEST_CASE("tui: S before a pass asks first, then shows the solution's code, scrolled with the "
          "text's keys")
{
    Tui t(kOrderedStep);
    REQUIRE(t.wait_status("Build 1: ok", 60));
    REQUIRE(t.wait_for("The server keeps the conversation until exit", 30)); // the starter fails
    t.keys("S");
    REQUIRE(t.wait_for("See the solution before", 30));
    INFO(t.last());
    CHECK(t.last().find("The reference solution:") == std::string::npos);
    t.keys("y");
    REQUIRE(t.wait_for("The reference solution:", 30));
    // The answer to the TODO is further down: PgDn scrolls the solution, not the step's text.
    const std::string answer = "while (read_line(sock, &in, line, sizeof line)) {";
    bool found = t.wait_for(answer, 1);
    for (int i = 0; i < 10 && !found; i++) {
        t.keys("NPage");
        found = t.wait_for(answer, 1);
    }
    INFO(t.last());
    REQUIRE(found);
    CHECK(t.last().find("/* TODO 1:") != std::string::npos); // the TODO above its answer
    CHECK(t.last().find("REPLACE") == std::string::npos);    // the starter's own lines are not
    // Esc closes it: the run's panes and the learner's files are back.
    t.keys("Escape");
    REQUIRE(t.wait_for("Your files:", 30));
    CHECK(t.last().find(answer) == std::string::npos);
    quit(t);
    // The progress record says the solution was seen, and before a pass.
    std::string progress = slurp(t.dir() / "state/iolab/progress.json");
    INFO(progress);
    cJSON *p = cJSON_Parse(progress.c_str());
    REQUIRE(p);
    const cJSON *steps = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(p, "packs"), "linux-io"), "steps");
    const cJSON *ex = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(steps, kOrderedStep.c_str()), "fields"),
        "exercise");
    REQUIRE(ex);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ex, "solution_viewed")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ex, "solution_before_pass")));
    cJSON_Delete(p);
}

TEST_CASE("tui: a workspace made from an older starter is told so, and not built")
{
    // The built-in pack with ordered-server.c's starter at version 2; the learner's file is
    // today's solution, version 1.
    TempDir pack;
    REQUIRE(run({"/bin/cp", "-R", source_dir() + "/lessons/.", pack.path}).first == 0);
    std::string sol = pack / "exercises/ordered/exit-loop/ordered-server.c";
    std::string text = slurp(sol);
    REQUIRE(text.rfind("/* iolab-starter: 1 */\n", 0) == 0);
    spit(sol, "/* iolab-starter: 2 */\n" + text.substr(text.find('\n') + 1));
    Tui t(kOrderedStep, {}, {{"ordered-server.c", text}}, pack.path);
    bool said =
        t.wait_status(workspace(t, kOrderedStep) +
                          "/ordered-server.c was made from an older starter of this exercise "
                          "(version 1, now 2): move it aside (mv ordered-server.c "
                          "ordered-server.c.old)",
                      60);
    INFO(t.last());
    CHECK(said);
    // The status line has the start; the exercise's pane the whole sentence.
    bool whole = t.wait_for("is kept in ordered-server.c.old", 30);
    INFO(t.last());
    CHECK(whole);
    CHECK(slurp(t.dir() / "state/iolab/iolab.log").find("Build 1") == std::string::npos);
    quit(t);
}

TEST_CASE("tui: a build that succeeds with a warning shows it at the learner's file:line:col")
{
    Tui t(kOrderedStep);
    REQUIRE(t.wait_status("Build 1: ok", 60));
    std::string file = workspace(t, kOrderedStep) + "/ordered-server.c";
    std::string text = edited(slurp(file), "    unsigned heard = 0;\n",
                              "    unsigned heard = 0;\n    int never_used = 1;\n");
    int line = 1;
    for (size_t i = 0; i < text.find("    int never_used"); i++)
        line += text[i] == '\n';
    save(file, text);
    bool built = t.wait_status("Build 2: ok", 60);
    INFO(t.last());
    REQUIRE(built);
    // The starter's own (its unused helpers) and this one, counted in the status.
    CHECK(std::regex_search(t.last_status(), std::regex("Build 2: ok, [0-9]+ warnings")));
    std::string at = "ordered-server.c:" + std::to_string(line) + ":9: unused";
    CHECK(t.wait_for(at, 30));
    CHECK(t.last().find("The compiler's warnings:") != std::string::npos);
    CHECK(t.last().find("never_used") != std::string::npos);
    quit(t);
}

TEST_CASE("tui: a sanitizer's report is shown, with the lines in the learner's code")
{
    Tui t(kOrderedStep);
    REQUIRE(t.wait_status("Build 1: ok", 60));
    std::string file = workspace(t, kOrderedStep) + "/ordered-server.c";
    save(file, edited(slurp(file), "    unsigned heard = 0;\n",
                      "    unsigned heard = 0;\n    volatile char *p = malloc(8);\n"
                      "    p[8] = 'x';\n    free((void *)p);\n"));
    REQUIRE(t.wait_status("Build 2: ok", 60));
    // The first report is kept: UBSan's ("runtime error: store to address ... with insufficient
    // space") when it sees the store first, else AddressSanitizer's; either shows its frames.
    bool shown = t.wait_for("Your program's sanitizer report", 40);
    INFO(t.last());
    CHECK(shown);
    CHECK(t.wait_for("converse ordered-server.c:", 30)); // a frame of the learner's function
    quit(t);
}

TEST_CASE("tui: keys are answered while a compiler reads /dev/zero and while the learner's "
          "server never listens")
{
    Tui t(kOrderedStep);
    REQUIRE(t.wait_status("Build 1: ok", 60));
    std::string file = workspace(t, kOrderedStep) + "/ordered-server.c";
    save(file, "#include \"/dev/zero\"\nint main(void) { return 0; }\n");
    REQUIRE(t.wait_status("Building", 30));
    // The compiler eats until a limit of its build stops it (2 s in a run here): the help shows
    // while the status still says Building, before any "Build 2" status.
    check_answered_before(t, "?", "Keys (any key closes", " status: Build 2");
    t.keys("?"); // closes the help
    // The compiler ends within its limits, and says so; the TUI did not wait for it.
    REQUIRE(t.wait_status("Build 2", 60));
    CHECK(t.last_status().find("Build 2: ok") == std::string::npos);

    // A server that never prints its ready line: the start waits for it, keys do not.
    save(file, "#include <unistd.h>\nint main(void)\n{\n    for (;;)\n        pause();\n}\n");
    REQUIRE(t.wait_status("Build 3: ok", 60));
    // The help shows while the start still waits for the ready line: before it gives up.
    check_answered_before(t, "?", "Keys (any key closes", "did not print");
    t.keys("?");
    CHECK(t.wait_for("did not print", 30)); // then the start gives up and says why
    quit(t);
}

TEST_CASE("tui: the mode keys switch between yours and the reference under the same load, and "
          "the comparison shows both")
{
    // The learner's files are the solution's: both modes run a working server.
    std::string sol = source_dir() + "/lessons/exercises/chat/epoll-server/";
    Tui t(
        "chat/write-epoll-server", {},
        {{"chat-server.c", slurp(sol + "chat-server.c")}, {"w_epoll.h", slurp(sol + "w_epoll.h")}});
    REQUIRE(t.wait_status("Build 1: ok", 60));
    REQUIRE(t.wait_for("mode: yours", 30));
    t.keys("2");
    bool ref = t.wait_for("mode: reference", 30);
    INFO(t.last());
    REQUIRE(ref);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500)); // the reference is measured
    t.keys("c");
    REQUIRE(t.wait_for("Comparison of the modes tried", 10));
    bool both = false;
    for (int i = 0; i < 50 && !both; i++) {
        std::set<std::string> rows = compare_rows(t.last());
        both = rows.count("yours") && rows.count("reference");
        if (!both) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            t.wait_for("Comparison of the modes tried", 1);
        }
    }
    INFO(t.last());
    CHECK(both);
    quit(t);
}

TEST_CASE("tui: one save is one build and one attempt, in place or by rename, a save that changes "
          "nothing is neither")
{
    Tui t(kOrderedStep);
    REQUIRE(t.wait_status("Build 1: ok", 60)); // the starter: built, not an attempt
    std::string file = workspace(t, kOrderedStep) + "/ordered-server.c";
    std::string text = slurp(file);
    spit(file, text + "/* one */\n"); // written in place
    REQUIRE(t.wait_status("Build 2: ok", 60));
    save(file, text + "/* two */\n"); // by rename, as vim does
    REQUIRE(t.wait_status("Build 3: ok", 60));
    spit(file, text + "/* two */\n"); // the same bytes again, in place and by rename
    save(file, text + "/* two */\n");
    save(file, text + "/* three */\n");
    // The next build is the third change's: the unchanged saves built nothing in between.
    REQUIRE(t.wait_status("Build 4: ok", 60));
    CHECK(t.last_status().find("unchanged") == std::string::npos);
    quit(t);
    std::string log = slurp(t.dir() / "state/iolab/iolab.log");
    CHECK(log.find("status: Build 5") == std::string::npos);
    CHECK(log.find(", unchanged") == std::string::npos);
    cJSON *p = cJSON_Parse(slurp(t.dir() / "state/iolab/progress.json").c_str());
    REQUIRE(p);
    const cJSON *ex = cJSON_GetObjectItem(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetObjectItem(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(p, "packs"), "linux-io"), "steps"),
                kOrderedStep.c_str()),
            "fields"),
        "exercise");
    REQUIRE(ex);
    CHECK(cJSON_GetObjectItem(ex, "attempts")->valuedouble == 3);
    cJSON_Delete(p);
}
