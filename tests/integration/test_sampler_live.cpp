// The sampler on a real process with many threads: every thread's context switches are read,
// however many threads there are (it once stopped at 256 and lost the rest).
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "metrics/sampler.h"
}

namespace
{

constexpr int kThreads = 600;

int release_fd = -1;

void *sleeper(void *)
{
    // Thirty short sleeps: thirty voluntary switches each, then wait until told to end.
    for (int i = 0; i < 30; i++) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, nullptr);
    }
    char c;
    (void)!read(release_fd, &c, 1);
    return nullptr;
}

// The kernel's own sum, thread by thread, for the test to compare with.
uint64_t kernel_voluntary(pid_t pid)
{
    uint64_t sum = 0;
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR *d = opendir(dir.c_str());
    if (!d)
        return 0;
    while (struct dirent *e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        std::ifstream f(dir + "/" + e->d_name + "/status");
        std::string key;
        while (f >> key) {
            if (key == "voluntary_ctxt_switches:") {
                uint64_t v;
                f >> v;
                sum += v;
            }
        }
    }
    closedir(d);
    return sum;
}

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

} // namespace

TEST_CASE("every thread of a 600-thread process is counted", "[sampler]")
{
    int ready[2], release[2];
    REQUIRE(pipe(ready) == 0);
    REQUIRE(pipe(release) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        release_fd = release[0];
        std::vector<pthread_t> t(kThreads);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (auto &th : t)
            if (pthread_create(&th, &attr, sleeper, nullptr) != 0)
                _exit(3);
        sleep(1); // every thread has slept its thirty times by now
        (void)!write(ready[1], "r", 1);
        for (auto &th : t)
            pthread_join(th, nullptr);
        _exit(0);
    }
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
    sampler *s = nullptr;
    double t0 = now_s();
    REQUIRE(sampler_open(&s, "/proc", nullptr, 0, 1, 10, t0) == 0);
    sampler_set_prog(s, 0, "many", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, child, 1);
    const snapshot *snap = sampler_sample(s, now_s());
    uint64_t truth = kernel_voluntary(child);
    INFO("sampler " << snap->progs[0].f.ctx_voluntary << ", kernel " << truth);
    CHECK(snap->progs[0].f.nthreads >= kThreads);
    CHECK(truth >= (uint64_t)kThreads * 30);
    // The threads are blocked: the two reads see the same counts, give or take a few.
    CHECK(snap->progs[0].f.ctx_voluntary >= truth * 98 / 100);
    sampler_close(s);
    for (int i = 0; i < kThreads; i++)
        (void)!write(release[1], "x", 1);
    int st;
    REQUIRE(waitpid(child, &st, 0) == child);
    CHECK(WIFEXITED(st));
    close(ready[0]);
    close(ready[1]);
    close(release[0]);
    close(release[1]);
}
