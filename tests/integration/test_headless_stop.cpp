// The headless driver (app/engine/headless.c): a signal stops `iolab check` and `iolab run`
// cleanly. SIGINT, SIGTERM or SIGHUP while the scenario runs ends the command with 128+signal,
// prints no verdicts or figures, and leaves no work directory of the engine behind.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <dirent.h>
#include <sys/wait.h>
#include <thread>

using namespace iolab_test;

namespace
{

// The engine's work directories ($TMPDIR/iolab-XXXXXX) under dir.
std::vector<std::string> work_dirs(const std::string &dir)
{
    std::vector<std::string> v;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return v;
    while (struct dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() == 12 && n.compare(0, 6, "iolab-") == 0)
            v.push_back(dir + "/" + n);
    }
    closedir(d);
    return v;
}

template <class F> bool wait_until(F cond, double seconds)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (cond())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return cond();
}

// Starts argv, waits for its scenario's work directory, sends sig, and checks the end.
void stop_while_running(const TempDir &tmp, const std::vector<std::string> &argv,
                        const std::vector<std::string> &env, int sig)
{
    Child c;
    c.start(argv, env);
    bool running = wait_until([&] { return !work_dirs(tmp.path).empty(); }, 120);
    INFO(c.output());
    REQUIRE(running);
    REQUIRE(kill(c.pid(), sig) == 0);
    int st = c.wait(60);
    INFO("signal " << sig << ", output: " << c.output());
    REQUIRE(st != -1);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 128 + sig);
    // Nothing judged or measured is printed.
    CHECK(c.output().find("checks hold") == std::string::npos);
    CHECK(c.output().find("\"checks\"") == std::string::npos);
    CHECK(wait_until([&] { return work_dirs(tmp.path).empty(); }, 30));
}

} // namespace

TEST_CASE("headless: a signal stops iolab check while its scenario runs, status 128+signal")
{
    TempDir tmp;
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "TMPDIR=" + tmp.path};
    std::string pack = tmp / "course";
    auto [ncode, nout] = run({bin("iolab"), "new", pack}, env);
    INFO(nout);
    REQUIRE(ncode == 0);
    // The starter as generated runs its whole time: long enough to be stopped mid-run.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        DYNAMIC_SECTION("signal " << sig)
        {
            stop_while_running(
                tmp, {bin("iolab"), "check", "first/your-echo", "--pack", pack, "--seconds", "60"},
                env, sig);
        }
    }
}

TEST_CASE("headless: SIGHUP stops iolab run as SIGINT and SIGTERM do, status 129")
{
    TempDir tmp;
    std::vector<std::string> env = {"XDG_STATE_HOME=" + (tmp / "state"), "TMPDIR=" + tmp.path};
    stop_while_running(tmp, {bin("iolab"), "run", "ordered/watch", "--seconds", "60", "--json"},
                       env, SIGHUP);
}
