// tiny-service and tiny-client (the tinyfile lesson): data compressed through System V shared
// memory comes back intact for several segment sizes and counts, with several clients at once;
// the service removes every object it created when SIGTERM stops it; a client joins the next
// service after a restart; bad arguments end with one sentence and status 2.
#include "demo_helpers.hpp"
#include "helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <chrono>

extern "C" {
#include "../../sandbox/demos/tinyfile.h"
}

using namespace iolab_test;

namespace
{

// The ids of one kind of System V object on the host ("shm", "sem" or "msg").
std::set<long> sysv_ids(const std::string &kind)
{
    std::ifstream f("/proc/sysvipc/" + kind);
    std::string line;
    std::getline(f, line); // the header
    std::set<long> ids;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        long key, id;
        if (in >> key >> id)
            ids.insert(id);
    }
    return ids;
}

// Waits until a segment the process creator made is attached by at least n processes (the
// service itself and its clients): the kernel's nattch, not a guess of how long a join takes.
bool wait_attached(pid_t creator, int n, double timeout_s)
{
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < until) {
        std::ifstream f("/proc/sysvipc/shm");
        std::string line;
        std::getline(f, line); // the header
        while (std::getline(f, line)) {
            std::istringstream in(line);
            long key, id, perms, size, cpid, lpid, nattch;
            if ((in >> key >> id >> perms >> size >> cpid >> lpid >> nattch) && cpid == creator &&
                nattch >= n)
                return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

std::vector<std::string> service_argv(const TempDir &dir, int segments, const std::string &size)
{
    return {demo("tiny-service"), "--segments", std::to_string(segments),
            "--segment-size",     size,         "--id-file",
            dir / "tinyfile.id"};
}

} // namespace

TEST_CASE("the codec: random and repetitive chunks round-trip and fit their segment")
{
    unsigned seed = 7;
    std::vector<unsigned char> in(TF_MAX_SEG_SIZE), out(TF_MAX_SEG_SIZE + 1024),
        back(TF_MAX_SEG_SIZE);
    for (size_t seg : {64u, 128u, 1024u, 8192u, 65536u}) {
        for (unsigned alphabet : {1u, 2u, 4u, 256u}) {
            size_t n = tf_max_input(seg);
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                in[i] = (unsigned char)((seed >> 16) % alphabet);
            }
            size_t m = tf_compress(in.data(), n, out.data());
            CHECK(m <= seg - sizeof(struct tf_segment));
            long got = tf_decompress(out.data(), m, back.data(), n);
            REQUIRE(got == (long)n);
            CHECK(memcmp(back.data(), in.data(), n) == 0);
            if (alphabet == 1)
                CHECK(m < n / 20 + 8); // a run of one byte must really shrink
        }
    }
}

TEST_CASE("inputs come back intact through every segment size and count")
{
    TempDir dir;
    // Incompressible data: the worst case for the room left in each segment.
    std::string random = dir / "random.bin";
    REQUIRE(run({"/bin/sh", "-c", "head -c 150000 /dev/urandom > " + random}).first == 0);
    struct setting {
        int segments;
        const char *size;
    };
    for (auto s : {setting{1, "128"}, setting{3, "1K"}, setting{5, "8K"}}) {
        INFO("segments=" << s.segments << " size=" << s.size);
        Child svc;
        svc.start(service_argv(dir, s.segments, s.size));
        REQUIRE(svc.read_until("listening on msgq", 10));
        auto text = run({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--requests", "4"});
        INFO(text.second);
        CHECK(text.first == 0);
        CHECK(field(text.second, "requests") == 4);
        CHECK(field(text.second, "errors") == 0);
        CHECK(field(text.second, "segments") == s.segments);
        // The text really was compressed (each chunk alone, so less in small segments).
        CHECK(field(text.second, "compressed") > 0);
        CHECK(field(text.second, "compressed") < field(text.second, "input") * 7 / 8);
        auto rnd = run({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--requests", "2",
                        "--file", random});
        INFO(rnd.second);
        CHECK(rnd.first == 0);
        CHECK(field(rnd.second, "requests") == 2);
        CHECK(field(rnd.second, "errors") == 0);
        int st = svc.stop();
        CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
        // Every chunk of every request went through the service.
        CHECK(field(svc.output(), "chunks") ==
              4 * field(text.second, "chunks") + 2 * field(rnd.second, "chunks"));
        CHECK(field(svc.output(), "registrations") == 2);
        CHECK(field(svc.output(), "deregistrations") == 2);
    }
}

TEST_CASE("three clients share one segment and each gets its own data back")
{
    TempDir dir;
    Child svc;
    svc.start(service_argv(dir, 1, "256"));
    REQUIRE(svc.read_until("listening on msgq", 10));
    Child clients[3];
    const char *sizes[3] = {"10000", "33333", "64K"};
    for (int i = 0; i < 3; i++)
        clients[i].start({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--requests", "10",
                          "--input-size", sizes[i]});
    long long chunks = 0;
    for (auto &c : clients) {
        int st = c.wait(30);
        INFO(c.output());
        REQUIRE(st != -1);
        CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
        CHECK(field(c.output(), "requests") == 10);
        CHECK(field(c.output(), "errors") == 0);
        chunks += 10 * field(c.output(), "chunks");
    }
    svc.stop();
    CHECK(field(svc.output(), "chunks") == chunks);
}

TEST_CASE("SIGTERM: the service exits 0 and leaves no System V object behind")
{
    TempDir dir;
    auto shm0 = sysv_ids("shm"), sem0 = sysv_ids("sem"), msg0 = sysv_ids("msg");
    Child svc;
    svc.start(service_argv(dir, 3, "1K"));
    REQUIRE(svc.read_until("listening on msgq", 10));
    // A client attached and mid-load while the service goes.
    Child client;
    client.start({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--seconds", "1"});
    std::set<long> shm, sem, msg;
    for (long id : sysv_ids("shm"))
        if (!shm0.count(id))
            shm.insert(id);
    for (long id : sysv_ids("sem"))
        if (!sem0.count(id))
            sem.insert(id);
    for (long id : sysv_ids("msg"))
        if (!msg0.count(id))
            msg.insert(id);
    CHECK(shm.size() >= 3);
    CHECK(sem.size() >= 3);
    CHECK(msg.size() >= 1);
    REQUIRE(wait_attached(svc.pid(), 2, 30));
    int st = svc.stop();
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
    REQUIRE(client.wait(10) != -1);
    auto shm1 = sysv_ids("shm"), sem1 = sysv_ids("sem"), msg1 = sysv_ids("msg");
    for (long id : shm)
        CHECK(shm1.count(id) == 0);
    for (long id : sem)
        CHECK(sem1.count(id) == 0);
    for (long id : msg)
        CHECK(msg1.count(id) == 0);
    struct stat sb;
    CHECK(stat((dir / "tinyfile.id").c_str(), &sb) != 0); // the id file goes too
}

TEST_CASE("a client joins the next service after a restart and carries on")
{
    TempDir dir;
    Child svc1;
    svc1.start(service_argv(dir, 1, "128"));
    REQUIRE(svc1.read_until("listening on msgq", 10));
    Child client;
    // Stopped by the test once it has joined the second service, however long that takes.
    client.start({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--seconds", "120"});
    REQUIRE(wait_attached(svc1.pid(), 2, 30)); // joined the first service
    svc1.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the client retries meanwhile
    Child svc2;
    svc2.start(service_argv(dir, 5, "8K"));
    REQUIRE(svc2.read_until("listening on msgq", 10));
    REQUIRE(wait_attached(svc2.pid(), 2, 30)); // and the second
    int st = client.stop(10);                  // SIGTERM: it detaches and reports
    INFO(client.output());
    REQUIRE(st != -1);
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
    CHECK(field(client.output(), "rejoins") == 1);
    CHECK(field(client.output(), "errors") == 0);
    CHECK(field(client.output(), "segment_size") == 8192);
    svc2.stop();
    CHECK(field(svc2.output(), "registrations") == 1);
    CHECK(field(svc2.output(), "chunks") > 0);
}

TEST_CASE("bad arguments: one sentence, status 2, --help: status 0")
{
    const std::vector<std::vector<std::string>> bad = {
        {demo("tiny-service"), "--segments", "0"},
        {demo("tiny-service"), "--segments", "17"},
        {demo("tiny-service"), "--segment-size", "10"},
        {demo("tiny-service"), "--segment-size", "1M"},
        {demo("tiny-service"), "extra"},
        {demo("tiny-client"), "--requests", "1", "--seconds", "1"},
        {demo("tiny-client"), "--input-size", "0"},
        {demo("tiny-client"), "--bogus"},
    };
    for (const auto &argv : bad) {
        auto r = run(argv);
        INFO(argv[0] << " " << argv[1] << ": " << r.second);
        CHECK(r.first == 2);
        CHECK(std::count(r.second.begin(), r.second.end(), '\n') == 1);
        CHECK(r.second.find("--help") != std::string::npos);
    }
    for (const char *prog : {"tiny-service", "tiny-client"}) {
        auto r = run({demo(prog), "--help"});
        CHECK(r.first == 0);
        CHECK(r.second.find("usage:") == 0);
    }
}

TEST_CASE("the asynchronous API: every call's result decompresses to its input")
{
    TempDir dir;
    std::string random = dir / "random.bin";
    REQUIRE(run({"/bin/sh", "-c", "head -c 20000 /dev/urandom > " + random}).first == 0);
    struct setting {
        int segments;
        const char *size, *threads;
    };
    for (auto s : {setting{1, "1K", "1"}, setting{3, "4K", "3"}}) {
        INFO("segments=" << s.segments << " size=" << s.size << " threads=" << s.threads);
        Child svc;
        svc.start(service_argv(dir, s.segments, s.size));
        REQUIRE(svc.read_until("listening on msgq", 10));
        // 200 calls queued 50 at a time; each callback checks its own result.
        auto text =
            run({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--api", "async", "--batch",
                 "50", "--requests", "200", "--input-size", "12000", "--async-threads", s.threads});
        INFO(text.second);
        CHECK(text.first == 0);
        CHECK(field(text.second, "requests") == 200);
        CHECK(field(text.second, "errors") == 0);
        auto rnd =
            run({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--api", "async", "--batch",
                 "7", "--requests", "20", "--file", random, "--async-threads", s.threads});
        INFO(rnd.second);
        CHECK(rnd.first == 0);
        CHECK(field(rnd.second, "requests") == 20);
        CHECK(field(rnd.second, "errors") == 0);
        int st = svc.stop();
        CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
        // Every chunk of every call went through the service, none twice.
        CHECK(field(svc.output(), "chunks") ==
              200 * field(text.second, "chunks") + 20 * field(rnd.second, "chunks"));
    }
}

TEST_CASE("SIGTERM to an asynchronous client with thousands of calls queued: nothing left")
{
    TempDir dir;
    auto shm0 = sysv_ids("shm"), sem0 = sysv_ids("sem"), msg0 = sysv_ids("msg");
    Child svc;
    svc.start(service_argv(dir, 1, "512"));
    REQUIRE(svc.read_until("listening on msgq", 10));
    // The service's objects: the ones that appeared with it.
    std::set<long> mine[3];
    const char *kinds[3] = {"shm", "sem", "msg"};
    const std::set<long> *before[3] = {&shm0, &sem0, &msg0};
    for (int k = 0; k < 3; k++)
        for (long id : sysv_ids(kinds[k]))
            if (!before[k]->count(id))
                mine[k].insert(id);
    CHECK(mine[0].size() >= 1);
    Child client;
    client.start({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--api", "async",
                  "--batch", "5000", "--input-size", "64K"});
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    pid_t pid = client.pid();
    int st = client.stop(10); // SIGTERM first
    INFO(client.output());
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
    CHECK(field(client.output(), "errors") == 0);
    struct stat sb;
    CHECK(stat(("/proc/" + std::to_string(pid)).c_str(), &sb) != 0); // reaped, threads and all
    // The segment was handed back with no reply left on it: a new client gets its own data.
    auto after = run({demo("tiny-client"), "--id-file", dir / "tinyfile.id", "--requests", "3"});
    INFO(after.second);
    CHECK(after.first == 0);
    CHECK(field(after.second, "errors") == 0);
    st = svc.stop();
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
    CHECK(field(svc.output(), "registrations") == 2);
    CHECK(field(svc.output(), "deregistrations") == 2);
    for (int k = 0; k < 3; k++) {
        auto now = sysv_ids(kinds[k]);
        for (long id : mine[k])
            CHECK(now.count(id) == 0);
    }
}
