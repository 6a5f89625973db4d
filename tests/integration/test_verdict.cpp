// What the learner sees at the edges of a session: the start screen of a first launch, the
// shell after quitting (also after the editor had the terminal), the solution's code at 80x24,
// and `iolab check`'s last words after a build error.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace iolab_test;

namespace
{

std::vector<std::string> lines_of(const std::string &s)
{
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);)
        v.push_back(l);
    return v;
}

// The pane's lines that are not blank.
std::vector<std::string> printed(const std::string &screen)
{
    std::vector<std::string> v;
    for (const auto &l : lines_of(screen))
        if (l.find_first_not_of(' ') != std::string::npos)
            v.push_back(l);
    return v;
}

const std::string kStep = "ordered/write-server-loop";

std::string open_args()
{
    return "--pack '" + source_dir() + "/lessons' --open " + kStep;
}

// Quits the exercise step (and says y if iolab asks), then returns the pane.
std::string quit_and_capture(IolabTerm &t)
{
    REQUIRE(t.quit());
    return t.screen();
}

} // namespace

TEST_CASE("verdict: a first launch offers to start, not to continue")
{
    TempDir d;
    IolabTerm t(d, "--pack '" + source_dir() + "/lessons'", "", 80, 24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Start:", 30));
    CHECK(t.screen().find("Continue:") == std::string::npos);
    // The lesson's steps are labelled by their kind, an exercise as one.
    std::string sc = t.screen();
    INFO(sc);
    CHECK(sc.find("Watch the turns  (run)") != std::string::npos);
    CHECK(sc.find("Check yourself  (quiz)") != std::string::npos);
    CHECK(sc.find("…  (exercise)") != std::string::npos); // a long title is cut, not its kind
    // Once a step was opened, the same row continues from there.
    t.keys("Enter");
    REQUIRE(t.wait_for("Step 1/", 30));
    t.keys("h");
    REQUIRE(t.wait_for("Continue:", 30));
    CHECK(t.quit());
}

TEST_CASE("verdict: after the editor had the terminal, quitting leaves no frame in the shell")
{
    // On a terminal without an alternate screen (the Linux console's type) whatever iolab left
    // on the screen stays in the shell; with one (xterm) the same code path runs.
    auto term = GENERATE(std::string("linux"), std::string("xterm-256color"));
    INFO("TERM=" << term);
    TempDir tools, d;
    std::string mark = tools / "edited";
    spit(tools / "ed.sh", "#!/bin/sh\nprintf '/* edited */\\n' >> \"$1\"\n: > '" + mark + "'\n");
    chmod((tools / "ed.sh").c_str(), 0755);
    IolabTerm t(d, open_args(), "TERM=" + term + " EDITOR='" + (tools / "ed.sh") + "' VISUAL=", 80,
                24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("e edit", 60));
    t.keys("e");
    // The editor ran (it leaves a mark) and iolab drew its frame again.
    for (int i = 0; i < 300 && access(mark.c_str(), F_OK) != 0; i++)
        usleep(100000);
    REQUIRE(access(mark.c_str(), F_OK) == 0);
    CHECK(slurp(d / ("data/iolab/work/linux-io/" + kStep + "/ordered-server.c"))
              .find("/* edited */") != std::string::npos);
    REQUIRE(t.wait_for("Step 7/7", 30));
    std::string after = quit_and_capture(t);
    INFO(after);
    // Only the shell's line is left: no title, box or footer of iolab's.
    CHECK(printed(after) == std::vector<std::string>{"IOLAB-EXITED"});
}

TEST_CASE("verdict: quitting from the start screen leaves only the shell's lines")
{
    TempDir d;
    IolabTerm t(d, "--pack '" + source_dir() + "/lessons'", "TERM=linux", 80, 24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Start:", 30));
    std::string after = quit_and_capture(t);
    INFO(after);
    CHECK(printed(after) == std::vector<std::string>{"IOLAB-EXITED"});
}

TEST_CASE("verdict: the solution's code at 80x24 is cut at spaces, its continuations marked")
{
    TempDir d;
    IolabTerm t(d, open_args(), "", 80, 24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("e edit", 60));
    t.keys("S");
    REQUIRE(t.wait_for("See the solution before", 30));
    // A dialog like the quit one: boxed, titled, its keys under the question.
    CHECK(t.screen().find("Solution ─") != std::string::npos);
    CHECK(t.screen().find("y: show it    any other key: not yet") != std::string::npos);
    t.keys("y");
    REQUIRE(t.wait_for("The reference solution", 30));
    // Closed, the viewer's hint leaves the status line with it (checked on the first frame
    // without the viewer: a later status would hide a stale one).
    t.keys("Escape");
    std::string closed;
    for (int i = 0; i < 100 && closed.find("Your files:") == std::string::npos; i++)
        closed = t.screen();
    INFO(closed);
    CHECK(closed.find("Esc or S closes") == std::string::npos);
    t.keys("S");
    if (t.wait_for("See the solution before", 5))
        t.keys("y");
    REQUIRE(t.wait_for("The reference solution", 10));
    // Page through all of it; every continuation line starts with the mark, and the line it
    // continues ends where a space was, never inside a name.
    std::string src = slurp(source_dir() + "/lessons/exercises/ordered/exit-loop/ordered-server.c");
    size_t conts = 0, pages = 0;
    std::string prev_page;
    for (; pages < 40; pages++) {
        std::string sc = t.screen();
        if (sc == prev_page)
            break;
        prev_page = sc;
        std::string last;
        for (const auto &l : lines_of(sc)) {
            size_t bar = l.find("\u2502 ");
            if (bar != 0)
                continue;
            std::string body = l.substr(bar + 4);
            size_t end = body.find("\u2502");
            body = body.substr(0, end);
            body.erase(body.find_last_not_of(' ') + 1);
            if (body.rfind("\u21aa ", 0) == 0) {
                conts++;
                INFO("continues: [" << last << "] with [" << body << "]");
                // The cut came at a space: the line before ends with a whole word of the
                // source, followed there by a space.
                std::string tail = last.substr(last.find_last_of(' ') + 1);
                std::string head = body.substr(4);
                head = head.substr(head.find_first_not_of(' '));
                head = head.substr(0, head.find(' '));
                CHECK(src.find(tail + " " + head) != std::string::npos);
            }
            last = body;
        }
        t.keys("NPage");
        usleep(300000);
    }
    CHECK(conts > 0); // at 80 columns the solution has lines that must be cut
    CHECK(t.quit());
}

TEST_CASE("verdict: iolab check after a build error ends with the compiler's messages and one "
          "sentence")
{
    TempDir home, bad;
    std::string src = slurp(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c");
    size_t a = src.find("static int send_file(int sock, int file, off_t size)\n{");
    REQUIRE(a != std::string::npos);
    size_t b = src.find("\n}\n", a);
    spit(bad / "file-server.c",
         src.substr(0, a) +
             "static int send_file(int sock, int file, off_t size)\n{\n    return sendfile(sock, "
             "file, size;" +
             src.substr(b));
    auto [code, out] =
        run({bin("iolab"), "check", "zerocopy/write-sendfile", "--dir", bad.path, "--seconds", "2"},
            {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
             "XDG_CACHE_HOME=" + (home / "cache")},
            120);
    INFO(out);
    CHECK(code == 2);
    auto v = lines_of(out);
    REQUIRE(v.size() >= 3);
    // The compiler's messages, then one closing sentence that says what happened and the score.
    // (The step's points change as checks are added; the sentence's shape does not.)
    const std::string head = "error: your program does not build (the compiler's messages are "
                             "above); nothing was judged (score: 0 of ";
    CHECK(v.back().rfind(head, 0) == 0);
    CHECK(v.back().size() > head.size() + 8);
    CHECK(v.back().substr(v.back().size() - 9) == " points).");
    // No word stands alone on a line of its own.
    for (const auto &l : v)
        CHECK(l != "error");
    CHECK(out.find("file-server.c:") != std::string::npos);
}

namespace
{

// The first "kernel syscr K vs library L" line on the screen, as {K, L} ("" when none).
std::pair<std::string, std::string> syscr_line(const std::string &screen)
{
    const std::string k = "kernel syscr ", vs = " vs library ";
    size_t a = screen.find(k);
    if (a == std::string::npos)
        return {"", ""};
    size_t b = screen.find(vs, a);
    if (b == std::string::npos)
        return {"", ""};
    size_t c = screen.find(' ', b + vs.size());
    return {screen.substr(a + k.size(), b - a - k.size()),
            screen.substr(b + vs.size(), c - b - vs.size())};
}

// "1.41M" -> 1.41e6.
double si(const std::string &v)
{
    if (v.empty())
        return -1;
    char *end = nullptr;
    double x = strtod(v.c_str(), &end);
    return *end == 'k' ? x * 1e3 : *end == 'M' ? x * 1e6 : *end == 'G' ? x * 1e9 : x;
}

// Watches the counters of a reading program from its start: every frame that shows reads
// counted by the library shows the kernel's syscr as more than zero too.
void check_syscr_from_the_start(IolabTerm &t)
{
    int frames = 0;
    std::string seen;
    for (int i = 0; i < 600 && frames < 10; i++, usleep(50000)) {
        auto [kernel, library] = syscr_line(t.screen());
        if (library.empty() || library == "0" || kernel + "/" + library == seen)
            continue;
        seen = kernel + "/" + library;
        frames++;
        INFO("frame " << frames << ": kernel syscr " << kernel << " vs library " << library);
        CHECK(kernel != "0");
    }
    CHECK(frames >= 3);
}

} // namespace

TEST_CASE("verdict: the kernel's syscr counts a reading program from its first samples, on the "
          "first start and on a restart")
{
    TempDir d;
    IolabTerm t(d, "--pack '" + source_dir() + "/lessons' --open stdio/small", "", 120, 40);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter starts the scenario", 60));
    t.keys("Enter");
    check_syscr_from_the_start(t);
    // r starts it again: the counts begin again from zero, and the kernel's from the start too.
    double before = si(syscr_line(t.screen()).second);
    t.keys("r");
    bool again = false;
    for (int i = 0; i < 600 && !again; i++, usleep(50000))
        again = si(syscr_line(t.screen()).second) < before;
    REQUIRE(again);
    check_syscr_from_the_start(t);
    CHECK(t.quit());
}

TEST_CASE("verdict: back on the start screen, the run step's status is gone and stays gone")
{
    TempDir d;
    IolabTerm t(d, "--pack '" + source_dir() + "/lessons' --open stdio/small", "", 120, 40);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter starts the scenario", 60));
    t.keys("Enter");
    REQUIRE(t.wait_for("kernel syscr", 30));
    t.keys("h");
    if (t.wait_for("Leave the step?", 5))
        t.keys("y");
    REQUIRE(t.wait_for("Continue:", 30));
    // The start screen's own hint, for as long as the stopped run could still say something.
    for (int i = 0; i < 20; i++, usleep(100000)) {
        auto v = printed(t.screen());
        REQUIRE(v.size() >= 2);
        INFO(v[v.size() - 2]);
        CHECK(v[v.size() - 2].find("Enter opens a lesson") != std::string::npos);
    }
    CHECK(t.quit());
}
