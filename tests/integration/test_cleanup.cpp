// Nothing left behind: iolab itself (not a stand-in) is killed in the middle of a scenario whose
// program has forked and created POSIX and System V IPC objects, in every tier this machine
// provides; within one second no process, IPC object or work directory of it may remain.
#include "helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace iolab_test;

namespace
{

// A one-lesson pack whose only program is the compiled ipcmaker (an absolute path is allowed).
void write_pack(const TempDir &dir, const std::string &program)
{
    std::ofstream(dir / "pack.json") << R"({"format_version": 1, "id": "cleanup",
        "title": "Cleanup", "version": "1", "lessons": ["ipc"]})";
    std::ofstream(dir / "ipc.json") << R"({"id": "ipc", "title": "IPC left behind?",
        "summary": "A program that creates IPC objects and forks.",
        "steps": [{"id": "hold", "title": "Hold", "kind": "run", "text": "Holds IPC objects.",
                   "seconds": 60,
                   "programs": [{"name": "maker", "role": "server", "program": ")" +
                                           program + R"(", "args": [], "ready": "ready"}]}]})";
}

// Every System V object on the host, as "shm:ID", "msg:ID", "sem:ID". The tables name no
// creator for queues and semaphores, so the test takes what appeared while its scenario ran;
// ctest runs this test and the sandbox tests (the other makers of such objects) one at a time.
std::set<std::string> sysv_objects()
{
    std::set<std::string> out;
    for (const char *kind : {"shm", "msg", "sem"}) {
        std::ifstream f(std::string("/proc/sysvipc/") + kind);
        std::string line;
        std::getline(f, line); // header
        while (std::getline(f, line)) {
            std::istringstream in(line);
            std::string key, id;
            if (in >> key >> id)
                out.insert(std::string(kind) + ":" + id);
        }
    }
    return out;
}

// Every process carrying the tag, by pid.
std::set<int> tagged_pids(const std::string &tag)
{
    std::set<int> out;
    std::string needle = "TEST_TAG_IOLAB=" + tag;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        std::ifstream f(std::string("/proc/") + e->d_name + "/environ", std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        if (ss.str().find(needle) != std::string::npos)
            out.insert(atoi(e->d_name));
    }
    if (d)
        closedir(d);
    return out;
}

std::set<std::string> dev_shm_with(const std::string &prefix)
{
    std::set<std::string> out;
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d));)
        if (std::string(e->d_name).rfind(prefix, 0) == 0)
            out.insert(e->d_name);
    if (d)
        closedir(d);
    return out;
}

bool gone_within_1s(const std::function<bool()> &gone)
{
    for (int i = 0; i < 20 && !gone(); i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return gone();
}

} // namespace

TEST_CASE("cleanup: iolab run killed with SIGKILL mid-scenario leaves nothing behind")
{
    TempDir pack;
    write_pack(pack, hostile("ipcmaker"));
    for (const auto &tier : tiers()) {
        for (int sig : {SIGKILL, SIGSEGV}) {
            DYNAMIC_SECTION("tier " << tier << ", signal " << sig)
            {
                std::string tag = new_tag();
                std::set<std::string> before = sysv_objects();
                Child iolab;
                iolab.start({bin("iolab"), "run", "ipc/hold", "--pack", pack.path, "--tier", tier},
                            {"TEST_TAG_IOLAB=" + tag});
                // The program is up once it and its forked child exist, each having made its
                // objects (it forks after creating them).
                std::set<int> pids;
                for (int i = 0; i < 200 && pids.size() < 2; i++) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(25));
                    pids.clear();
                    for (int p : tagged_pids(tag)) {
                        char exe[4096] = "";
                        ssize_t n = readlink(("/proc/" + std::to_string(p) + "/exe").c_str(), exe,
                                             sizeof exe - 1);
                        if (n > 0 &&
                            std::string(exe, (size_t)n).find("ipcmaker") != std::string::npos)
                            pids.insert(p);
                    }
                }
                INFO(iolab.output());
                REQUIRE(pids.size() >= 2);
                std::this_thread::sleep_for(std::chrono::milliseconds(100));

                // Where its objects are: its work directory, and outside the full tier's own
                // namespaces, host IPC objects under the session's prefix or its creator pid.
                char cwd[4096] = "";
                ssize_t n = readlink(("/proc/" + std::to_string(*pids.begin()) + "/cwd").c_str(),
                                     cwd, sizeof cwd - 1);
                REQUIRE(n > 0);
                std::string workdir(cwd, (size_t)n);
                CHECK(workdir.rfind("/tmp/iolab-", 0) == 0);
                std::string prefix = "iolab-" + std::to_string(iolab.pid()) + "-";
                std::set<std::string> shm = dev_shm_with(prefix);
                std::set<std::string> sysv;
                for (const auto &id : sysv_objects())
                    if (!before.count(id))
                        sysv.insert(id);
                if (tier != "full") {
                    CHECK(!shm.empty());
                    CHECK(sysv.size() == 3); // a segment, a message queue, a semaphore set
                } else {
                    CHECK(shm.empty()); // its own /dev/shm and IPC namespace hold them
                    CHECK(sysv.empty());
                }

                kill(iolab.pid(), sig);
                iolab.wait(10);

                CHECK(gone_within_1s([&] { return tagged(tag) == 0; }));
                CHECK(gone_within_1s([&] { return access(workdir.c_str(), F_OK) != 0; }));
                CHECK(gone_within_1s([&] { return dev_shm_with(prefix).empty(); }));
                CHECK(gone_within_1s([&] {
                    std::set<std::string> left = sysv_objects();
                    for (const auto &id : sysv)
                        if (left.count(id))
                            return false;
                    return true;
                }));
            }
        }
    }
}
