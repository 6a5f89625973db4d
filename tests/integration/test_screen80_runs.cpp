// A run step at 80x24 as it goes on, in a real terminal (tmux): the title keeps saying the
// sandbox tier the run used after its program ends by itself, and c10k's switch to io_uring
// kills nothing and says, from the load's own count, how many of its 10,000 connections the
// new server holds.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <sstream>
#include <string>

using namespace iolab_test;

namespace
{

// The screen's first row: iolab's title bar.
std::string title_row(const std::string &screen)
{
    return screen.substr(0, screen.find('\n'));
}

// The built-in pack copied to dir/pack, with one text of one lesson file replaced (it must be
// there); the path of the copy.
std::string pack_with(const TempDir &t, const std::string &lesson, const std::string &from,
                      const std::string &to)
{
    std::string pack = t.path + "/pack";
    REQUIRE(run({"/bin/cp", "-r", source_dir() + "/lessons", pack}).first == 0);
    std::string json = slurp(pack + "/" + lesson + ".json");
    size_t at = json.find(from);
    REQUIRE(at != std::string::npos);
    json.replace(at, from.size(), to);
    spit(pack + "/" + lesson + ".json", json);
    return pack;
}

} // namespace

TEST_CASE("run at 80x24: the title keeps the sandbox tier the run used once its program ends by "
          "itself")
{
    // copying/methods' copy, told to stop after eight copies (about a second): it ends on its
    // own, and the engine closes the jail it ran in.
    TempDir t;
    std::string pack = pack_with(t, "copying", R"("--dir", "{workdir}", "--size", "64M"])",
                                 R"("--dir", "{workdir}", "--size", "64M", "--rounds", "8"])");
    IolabTerm term(t, "--pack '" + pack + "' --open copying/methods", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter start", 30));
    term.keys("Enter");
    std::smatch m;
    std::regex tier("sandbox: ([a-z-]+)");
    REQUIRE(term.wait_until(
        [&](const std::string &s) {
            std::string title = title_row(s);
            return title.find("running") != std::string::npos &&
                   std::regex_search(title, m, tier) && m[1].str() != "-";
        },
        60));
    std::string used = m[1].str();
    INFO("tier while running: " << used);
    // The program printed its total and exited: the title says the run ended, and still which
    // tier it ran in.
    REQUIRE(term.wait_for("total: ", 60));
    bool ended = term.wait_until(
        [](const std::string &s) { return title_row(s).find("running") == std::string::npos; }, 60);
    INFO(term.last());
    REQUIRE(ended);
    std::string title = title_row(term.last());
    CHECK(title.find("sandbox: " + used) != std::string::npos);
    CHECK(title.find("sandbox: -") == std::string::npos);
    CHECK(term.quit());
}

TEST_CASE("run at 80x24: c10k's switch to io_uring kills nothing, and the counters say the new "
          "server holds the 10,000 connections, from the load's own count")
{
    TempDir t;
    IolabTerm term(t, "--open concurrency/c10k", "", 80, 24);
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Enter start", 30));
    term.keys("Enter");
    // The epoll server takes all ten thousand first.
    bool epoll = term.wait_for("connections held 10,000 of 10,000", 120);
    INFO(term.last());
    REQUIRE(epoll);
    term.keys("2");
    // The switch: the old server stops on its SIGTERM (no "killed"), the load's connections to
    // it close, and the counters start over for io_uring.
    REQUIRE(term.wait_for("calls since io_uring started", 60));
    // While the load reconnects the line says the shortfall; within a minute it reads all ten
    // thousand on a sample that has the new server's ring figures (so taken after it started,
    // and after the old one's exit closed every connection to it).
    bool held = term.wait_until(
        [](const std::string &s) {
            return s.find("calls since io_uring started") != std::string::npos &&
                   s.find("io_uring, from the demo") != std::string::npos &&
                   s.find("connections held 10,000 of 10,000") != std::string::npos;
        },
        60);
    INFO(term.last());
    CHECK(held);
    std::string log = term.log();
    INFO(log);
    CHECK(log.find("server exited with status 0 (stopped)") != std::string::npos);
    CHECK(log.find("killed") == std::string::npos);
    CHECK(term.last().find("killed") == std::string::npos);
    CHECK(term.quit());
}
