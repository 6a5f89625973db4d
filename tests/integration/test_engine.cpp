// The engine's promises, seen from outside `iolab run`: nothing of a scenario outlives it (no
// process, no work directory), a signal stops it cleanly with 128+signal, and bad input gets one
// sentence and the documented exit status.
#include "helpers.hpp"
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fstream>
#include <set>

using namespace iolab_test;

namespace
{

// Every descendant of pid now, from /proc/*/stat parent links.
bool alive(int pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    return (bool)std::getline(f, line);
}

size_t iolab_dirs(const std::string &dir)
{
    size_t n = 0;
    DIR *d = opendir(dir.c_str());
    while (struct dirent *e = readdir(d))
        if (!strncmp(e->d_name, "iolab-", 6))
            n++;
    closedir(d);
    return n;
}

// Starts a fork-mode run, waits until its scenario has processes, returns them.
std::set<int> start_and_watch(Child &c, const TempDir &tmp, double seconds)
{
    c.start({bin("iolab"), "run", "concurrency/compare", "--mode", "fork", "--seconds",
             std::to_string(seconds), "--json"},
            {"TMPDIR=" + tmp.path});
    std::set<int> seen;
    for (int i = 0; i < 100 && seen.size() < 12; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        for (int p : descendants(c.pid()))
            seen.insert(p);
    }
    return seen;
}

} // namespace

TEST_CASE("after a run, no process of the scenario is left and its work directory is gone")
{
    TempDir tmp;
    Child c;
    std::set<int> seen = start_and_watch(c, tmp, 1.5);
    // Server, 8 forked children, client, and the sandbox's helpers.
    CHECK(seen.size() >= 10);
    CHECK(iolab_dirs(tmp.path) == 1);
    int st = c.wait(60);
    REQUIRE(st != -1);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    INFO(c.output());
    for (int p : seen)
        CHECK_FALSE(alive(p));
    // The pids the JSON names were among them.
    std::string out = c.output();
    size_t at = out.find("\"pid\":");
    REQUIRE(at != std::string::npos);
    CHECK(seen.count(atoi(out.c_str() + at + 6)) == 1);
    CHECK(iolab_dirs(tmp.path) == 0);
}

TEST_CASE("SIGTERM during a run stops everything and exits 143 and SIGINT exits 130")
{
    for (int sig : {SIGTERM, SIGINT}) {
        TempDir tmp;
        Child c;
        std::set<int> seen = start_and_watch(c, tmp, 30);
        REQUIRE(seen.size() >= 10);
        kill(c.pid(), sig);
        int st = c.wait(15);
        REQUIRE(st != -1);
        REQUIRE(WIFEXITED(st));
        CHECK(WEXITSTATUS(st) == 128 + sig);
        for (int p : seen)
            CHECK_FALSE(alive(p));
        CHECK(iolab_dirs(tmp.path) == 0);
    }
}

TEST_CASE("a bad lesson, step or mode gets one sentence naming the valid ones and exit 2")
{
    auto [code, out] = run({bin("iolab"), "run", "nosuch"});
    CHECK(code == 2);
    CHECK(out.find("concurrency") != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);

    std::tie(code, out) = run({bin("iolab"), "run", "concurrency/nosuch"});
    CHECK(code == 2);
    CHECK(out.find("concurrency/compare") != std::string::npos);

    std::tie(code, out) =
        run({bin("iolab"), "run", "concurrency/compare", "--mode", "epoll,bogus"});
    CHECK(code == 2);
    CHECK(out.find("bogus") != std::string::npos);
    CHECK(out.find("iterative, epoll, fork, thread") != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);

    std::tie(code, out) = run({bin("iolab"), "run", "concurrency/compare", "--seconds", "soon"});
    CHECK(code == 2);
}

TEST_CASE("a server that dies before it is ready: one sentence with its last lines, exit 1")
{
    TempDir pack;
    spit(pack / "pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    spit(pack / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": ["x"], "seconds": 2,
         "programs": [{"name": "server", "role": "server", "program": "/bin/sh",
                       "args": ["-c", "echo starting up; echo cannot bind port >&2; exit 3"],
                       "ready": "listening"}]}]})");
    TempDir tmp;
    Child c;
    c.start({bin("iolab"), "run", "l/s", "--pack", pack.path}, {"TMPDIR=" + tmp.path});
    int st = c.wait(30);
    REQUIRE(st != -1);
    INFO(c.output());
    CHECK(WEXITSTATUS(st) == 1);
    CHECK(c.output().find("exited with status 3") != std::string::npos);
    CHECK(c.output().find("cannot bind port") != std::string::npos);
    CHECK(iolab_dirs(tmp.path) == 0);
}
