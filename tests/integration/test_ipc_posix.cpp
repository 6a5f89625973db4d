// ipc-cache and ipc-proxy: files arrive intact through every segment size, the handshake costs
// the calls per request the ipc lesson claims, and SIGTERM leaves no queue or segment behind.
#include <catch2/catch.hpp>

#include <fstream>
#include <mqueue.h>
#include <sys/mman.h>
#include <unistd.h>

#include "counter_page.hpp"
#include "helpers.hpp"

using namespace iolab_test;

namespace
{

std::string session()
{
    return "itipc" + std::to_string(getpid());
}

bool segment_exists(int k)
{
    return access(("/dev/shm/" + session() + "-ipc-seg" + std::to_string(k)).c_str(), F_OK) == 0;
}

bool queue_exists()
{
    mqd_t q = mq_open(("/" + session() + "-ipc-queue").c_str(), O_RDONLY);
    if (q == (mqd_t)-1)
        return false;
    mq_close(q);
    return true;
}

void write_file(const std::string &path, size_t size)
{
    std::ofstream f(path);
    for (size_t i = 0; i < size; i++)
        f.put((char)(i * 7 + i / 251));
}

} // namespace

TEST_CASE("ipc-proxy receives every byte through 4K, 64K and 1M segments", "[ipc]")
{
    TempDir dir;
    write_file(dir / "a", 300001);
    write_file(dir / "b", 4096);
    for (std::string size : {"4K", "64K", "1M"}) {
        SECTION(size)
        {
            CounterPage page;
            auto env = page.env(0);
            env.push_back("IOLAB_SESSION=" + session());
            Child cache;
            cache.start(
                {demo("ipc-cache"), "--dir", dir.path, "--segments", "2", "--segment-size", size},
                env);
            REQUIRE(cache.read_until("listening on mq", 10));
            auto penv = page.env(1);
            penv.push_back("IOLAB_SESSION=" + session());
            auto res = run({demo("ipc-proxy"), "--dir", dir.path, "--file", "a", "--file", "b",
                            "--concurrency", "2", "--requests", "40"},
                           penv, 60);
            INFO(res.second);
            REQUIRE(res.first == 0);
            CHECK(res.second.find("requests=40 ") != std::string::npos);
            CHECK(res.second.find("errors=0") != std::string::npos);

            // Per request: one command; per chunk one sem_wait and one sem_post on each side
            // and one pread in the cache. 20 requests of each file.
            size_t seg = size == "4K" ? 4096 : size == "64K" ? 65536 : 1048576;
            uint64_t chunks = 20 * ((300001 + seg - 1) / seg) + 20 * 1;
            std::map<std::string, uint64_t> proxy, cachec;
            for (uint32_t i = 0; i + 1 < page.nslots; i++)
                if (const struct iolab_slot *s = iolab_page_slot(page.page, page.nslots, i))
                    for (int k = 0; k < IOLAB_NCALLS; k++)
                        (s->prog == 1 ? proxy : cachec)[iolab_call_info[k].label] +=
                            iolab_slot_calls(s, k);
            CHECK(proxy["mq_timedsend"] == 40);
            CHECK(proxy["sem_wait"] == chunks);
            CHECK(proxy["sem_post"] == chunks);
            CHECK(cachec["pread64"] == chunks);
            CHECK(cachec["sem_post"] == chunks);

            REQUIRE(segment_exists(0));
            REQUIRE(queue_exists());
            kill(cache.pid(), SIGTERM);
            int st = cache.wait(10);
            CHECK(WIFEXITED(st));
            CHECK(WEXITSTATUS(st) == 0);
            CHECK(!segment_exists(0));
            CHECK(!segment_exists(1));
            CHECK(!queue_exists());
        }
    }
}

TEST_CASE("ipc-cache and ipc-proxy refuse bad arguments with one sentence", "[ipc]")
{
    for (auto argv : std::vector<std::vector<std::string>>{
             {demo("ipc-cache"), "--segments", "0", "--dir", "/tmp"},
             {demo("ipc-cache"), "--segment-size", "1K", "--dir", "/tmp"},
             {demo("ipc-cache")},
             {demo("ipc-proxy"), "--dir", "/tmp"},
             {demo("ipc-proxy"), "--dir", "/tmp", "--file", "../etc"},
             {demo("ipc-proxy"), "--bogus"}}) {
        auto res = run(argv, {}, 10);
        INFO(argv.front() << " " << argv.back() << ": " << res.second);
        CHECK(res.first == 2);
        CHECK(std::count(res.second.begin(), res.second.end(), '\n') == 1);
    }
}
