// Every step at 80x24, the smallest terminal iolab promises to serve, in a real terminal (tmux):
// each step of the built-in pack opens without an "enlarge" screen (an exercise once its program
// runs, when its panes appear); chat's seven programs share panes, z shows one whole and o turns
// the shared pane; e that saves nothing leaves the exercise running, and with two files in vi the
// first e says how to move between them; below 80x24 only q acts. A pane named unlike its role
// says the role, the lesson list opens on the lesson left and its help closes on any key. Open,
// look, leave: no run is waited for.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cjson/cJSON.h>
#include <regex>
#include <sys/stat.h>

using namespace iolab_test;

namespace
{

struct PackStep {
    std::string id, kind;
    size_t index, count; // its place in its lesson: "Step index/count"
};

// The built-in pack's steps in the order n walks them, from `iolab list --json`.
std::vector<PackStep> pack_steps(const TempDir &t)
{
    auto [code, out] =
        run({bin("iolab"), "list", "--json"}, {"HOME=" + t.path, "XDG_DATA_HOME=" + (t / "data")});
    REQUIRE(code == 0);
    cJSON *j = cJSON_Parse(out.c_str());
    REQUIRE(j);
    std::vector<PackStep> steps;
    cJSON *pack = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "packs"), 0);
    const cJSON *lesson;
    cJSON_ArrayForEach(lesson, cJSON_GetObjectItem(pack, "lessons"))
    {
        const cJSON *ss = cJSON_GetObjectItem(lesson, "steps"), *s;
        size_t n = (size_t)cJSON_GetArraySize(ss), k = 0;
        cJSON_ArrayForEach(s, ss)
        {
            steps.push_back({cJSON_GetObjectItem(s, "id")->valuestring,
                             cJSON_GetObjectItem(s, "kind")->valuestring, ++k, n});
        }
    }
    cJSON_Delete(j);
    return steps;
}

// Whether iolab's log says the step was opened.
bool opened(const IolabTerm &term, const std::string &id)
{
    return term.log().find(" open " + id + "\n") != std::string::npos;
}

// n, answered with y when iolab asks before leaving a running scenario; true once `next` opened.
bool leave_for(IolabTerm &term, const std::string &next, double secs = 20)
{
    term.keys("n");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    while (std::chrono::steady_clock::now() < deadline) {
        if (opened(term, next))
            return true;
        if (term.screen().find("Leave the step?") != std::string::npos)
            term.keys("y");
        usleep(50000);
    }
    return false;
}

} // namespace

TEST_CASE("screen at 80x24: every step of the built-in pack opens with no enlarge screen")
{
    TempDir t;
    std::vector<PackStep> steps = pack_steps(t);
    REQUIRE(steps.size() > 40);
    IolabTerm term(t, "--open " + steps[0].id, "EDITOR=true VISUAL=", 80, 24);
    REQUIRE(term.started());
    size_t exercises = 0;
    for (size_t i = 0; i < steps.size(); i++) {
        const PackStep &s = steps[i];
        INFO(s.id << " (" << s.kind << ")");
        REQUIRE(term.wait_until([&](const std::string &) { return opened(term, s.id); }, 30));
        std::string box = "Step " + std::to_string(s.index) + "/" + std::to_string(s.count);
        // An exercise shows its program panes once its program is built and runs (the title
        // then names the sandbox); a build that fails shows its messages instead.
        bool drawn = term.wait_until(
            [&](const std::string &sc) {
                if (sc.find("Please enlarge") != std::string::npos)
                    return true;
                if (sc.find(box) == std::string::npos)
                    return false;
                return s.kind != "exercise" || sc.find("sandbox:") != std::string::npos ||
                       sc.find("failed") != std::string::npos;
            },
            s.kind == "exercise" ? 90 : 15);
        INFO(term.last());
        CHECK(drawn);
        CHECK(term.last().find("Please enlarge") == std::string::npos);
        exercises += s.kind == "exercise";
        if (i + 1 < steps.size()) {
            REQUIRE(leave_for(term, steps[i + 1].id));
            // Into another lesson, the status line says so.
            if (steps[i + 1].index == 1)
                CHECK(term.wait_for("Next lesson:", 10));
        }
    }
    CHECK(exercises > 5);
    term.keys("n");
    CHECK(term.wait_for("That was the last step of the last lesson.", 10));
    CHECK(term.quit());
}

TEST_CASE("screen at 80x24: chat's seven programs share panes, z shows one whole and o turns to "
          "the next")
{
    TempDir t;
    IolabTerm term(t, "--open chat/write-epoll-server", "EDITOR=true VISUAL=", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.status("Build 1: ok", 90));
    // Server, dee and ana have a pane each; ben, cy, eve and fay share the last one, which
    // says which of them it shows.
    REQUIRE(term.wait_for("ben 1/4", 30));
    CHECK(term.last().find("Please enlarge") == std::string::npos);
    CHECK(term.last().find(" z zoom") != std::string::npos); // the footer names the key
    // The server's pane whole: its sentence on one row, not wrapped at 11 columns.
    term.keys("z");
    REQUIRE(term.wait_for("server (1 of 7) on the whole screen", 10));
    std::regex whole("listening on [0-9.]+:[0-9]+");
    CHECK(term.wait_until([&](const std::string &sc) { return std::regex_search(sc, whole); }));
    CHECK(term.last().find("Esc back") != std::string::npos);
    // o goes to the next program, whole.
    term.keys("o");
    REQUIRE(term.wait_for("dee 2/7", 10));
    term.keys("Escape");
    REQUIRE(term.wait_for("Step 5/5", 10));
    // Picked beyond ana, the shared pane turns to the program picked.
    term.keys({"o", "o", "o"});
    REQUIRE(term.wait_for("cy 2/4", 10));
    // Below 80x24 only the request to enlarge shows: keys other than q do nothing unseen. q,
    // which asks first while the exercise runs, shows that the keys before it were read.
    term.resize(79, 24);
    REQUIRE(term.wait_for("Please enlarge the terminal", 10));
    CHECK(term.last().find("q quits") != std::string::npos);
    term.keys({"e", "n", "q"});
    REQUIRE(term.wait_for("A scenario is running: y stops it and quits", 10));
    term.keys("x"); // stays
    REQUIRE(term.wait_for("q quits", 10));
    term.resize(80, 24);
    REQUIRE(term.wait_for("cy 2/4", 10));
    CHECK(term.last().find("Leave the step?") == std::string::npos);        // n asked nothing
    CHECK(term.log().find("status: Nothing changed") == std::string::npos); // e opened nothing
    CHECK(term.quit());
}

TEST_CASE("screen at 80x24: e that saves nothing leaves the exercise running, and with two files "
          "in vi the first e says how to move between them")
{
    TempDir t, tools;
    // A "vi" that writes down its arguments and saves nothing.
    std::string args = tools / "args";
    spit(tools / "vi",
         "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + args + "'\n");
    chmod((tools / "vi").c_str(), 0755);
    IolabTerm term(t, "--open chat/write-epoll-server", "EDITOR=true VISUAL=", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.status("Build 1: ok", 90));
    REQUIRE(term.wait_for("sandbox:", 30));
    // Back from an editor that changed nothing: the program runs again, its panes and the
    // title say so, and nothing is built.
    term.keys("e");
    REQUIRE(term.wait_status("Nothing changed in your files", 30));
    REQUIRE(term.wait_status("Running", 30)); // the status line follows the run again
    REQUIRE(term.wait_until([](const std::string &sc) {
        return sc.find("ben 1/4") != std::string::npos &&
               (sc.find("running  mode: yours") != std::string::npos ||
                sc.find("starting  mode: yours") != std::string::npos);
    }));
    CHECK(term.last().find("not built") == std::string::npos);
    CHECK(term.log().find("status: Build 2") == std::string::npos);
    CHECK(term.quit());

    // vi with both files: the first e says how to go from one to the other and leave, the
    // second opens them, and the exercise runs on after.
    IolabTerm vi(t, "--open chat/write-epoll-server", "EDITOR='" + (tools / "vi") + "' VISUAL=", 80,
                 24);
    REQUIRE(vi.started());
    REQUIRE(vi.wait_for("sandbox:", 90));
    vi.keys("e");
    REQUIRE(
        vi.wait_for("e again opens both files: :n next file, :N back, :wqa saves and quits.", 10));
    CHECK(slurp(args).empty());
    vi.keys("e");
    REQUIRE(vi.wait_until([&](const std::string &) { return !slurp(args).empty(); }));
    CHECK(slurp(args).find("chat-server.c\n") != std::string::npos);
    REQUIRE(vi.wait_for("Nothing changed in", 30));
    CHECK(vi.quit());
}

TEST_CASE("screen at 80x24: a pane named unlike its role says it, the lesson list opens on the "
          "lesson left, and its help closes on any key")
{
    TempDir t;
    IolabTerm term(t, "--open chat/room", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Step 2/5", 30));
    // Before a start, on the whole screen: the server is a server; "you" is a client, as the
    // counters pane sums it.
    term.keys("z");
    REQUIRE(term.wait_for("server 1/4 (chat-server)", 10));
    term.keys("o");
    REQUIRE(term.wait_for("you 2/4 (client: chat-client)", 10));
    term.keys("Escape");
    REQUIRE(term.wait_for("Step 2/5", 10));
    // Back on the list, the cursor is on chat: Enter opens its first step, not the last place.
    term.keys("h");
    REQUIRE(term.wait_for("Lessons", 10));
    term.keys("Enter");
    REQUIRE(term.wait_until([&](const std::string &) { return opened(term, "chat/problem"); }));
    term.keys("h");
    REQUIRE(term.wait_for("Lessons", 10));
    // The list's help fits: it says any key closes it, and j does.
    term.keys("?");
    REQUIRE(term.wait_for("Keys (any key closes this help)", 10));
    term.keys("j");
    REQUIRE(term.wait_gone("Keys (any key closes", 10));
    CHECK(term.quit());
}
