// The status line belongs to the screen and step that said it: moving to the lesson list or to
// another step never leaves a step's words (its run, its build's verdict) under another screen.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

using namespace iolab_test;

namespace
{

// The status line: the screen's line above the footer (the last line that is not blank).
std::string status_line(const std::string &screen)
{
    std::vector<std::string> v;
    std::stringstream ss(screen);
    for (std::string l; std::getline(ss, l);)
        if (l.find_first_not_of(' ') != std::string::npos)
            v.push_back(l);
    return v.size() >= 2 ? v[v.size() - 2] : "";
}

// Waits until iolab's log (where every status is written too, even one a capture would miss)
// has a status line beginning with `start`.
bool wait_logged(const TempDir &d, const std::string &start, double secs)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    do {
        if (slurp(d / "state/iolab/iolab.log").find(" status: " + start) != std::string::npos)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < end);
    return false;
}

std::string pack_args(const std::string &step)
{
    return "--pack '" + source_dir() + "/lessons' --open " + step;
}

} // namespace

TEST_CASE("status scope: a run step's status is not shown on the start screen after going back")
{
    TempDir d;
    IolabTerm t(d, pack_args("stdio/small"));
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter starts the scenario", 60));
    t.keys("Enter");
    REQUIRE(wait_logged(d, "Running", 60));
    t.keys("h");
    REQUIRE(t.wait_for("Leave the step?", 30));
    t.keys("y");
    REQUIRE(t.wait_for("Enter opens a lesson", 30));
    // The scenario's end comes after the start screen is up: still nothing of the step's.
    REQUIRE(t.wait_for("Continue:", 30));
    std::string sc = t.screen();
    INFO(sc);
    CHECK(status_line(sc).find("Enter opens a lesson") != std::string::npos);
    CHECK(sc.find("Running") == std::string::npos);
    CHECK(sc.find("the scenario") == std::string::npos);
    CHECK(t.quit());
}

TEST_CASE("status scope: an exercise's build verdict is not shown on another step")
{
    TempDir d;
    IolabTerm t(d, pack_args("ordered/write-server-loop"));
    REQUIRE(t.started());
    REQUIRE(wait_logged(d, "Build 1: ok", 120));
    // Its run starts and its programs speak (the status line says what they did).
    REQUIRE(wait_logged(d, "Running", 60));
    t.keys("n");
    if (t.wait_for("Leave the step?", 10))
        t.keys("y");
    REQUIRE(t.wait_for("Step 1/", 30)); // the next lesson's first step
    std::string sc = t.screen();
    INFO(sc);
    CHECK(status_line(sc).find("n: next step") != std::string::npos);
    CHECK(sc.find("Build 1") == std::string::npos);
    CHECK(sc.find("restarts the scenario") == std::string::npos);
    CHECK(t.quit());
}

// issue 41: chat's dee says one line and leaves, as its scenario has it; the status line said
// "dee finished; r runs the scenario again" while the server and the other bots went on.
TEST_CASE("status scope: a program that leaves while the others run does not end the scenario")
{
    TempDir d;
    std::string dir = d / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "leaves", "title": "Leaves",
      "version": "1", "lessons": ["l"]})");
    spit(dir + "/l.json", R"({"id": "l", "title": "L", "summary": "s",
      "steps": [{"id": "s", "title": "One leaves", "kind": "run", "text": "Press Enter.",
        "programs": [
          {"name": "server", "role": "server", "program": "sh",
           "args": ["-c", "echo listening; exec sleep 600"], "ready": "listening"},
          {"name": "dee", "role": "client", "program": "sh", "args": ["-c", "sleep 1; echo bye"]},
          {"name": "stays", "role": "client", "program": "sh", "args": ["-c", "exec sleep 600"]}]}]})");
    IolabTerm t(d, "--pack '" + dir + "' --open l/s", "", 80, 24);
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter starts the scenario", 30));
    t.keys("Enter");
    REQUIRE(t.wait_status("dee finished", 60));
    CHECK(t.last_status() == "dee finished; the other programs go on.");
    CHECK(t.quit());
}
