// The sampler on real processes: every thread's context switches are read, however many
// threads there are (it once stopped at 256 and lost the rest), though not all in one tick;
// a process born between two ticks is found, and one that lived and died between two ticks
// leaves its figures in its parent's; a fork-twice program's grandchildren, reparented to the
// reaper above it, still count as its own, and so do the descriptors they hold open.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fcntl.h>
#include <vector>
#include <fstream>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "metrics/sampler.h"
}

using namespace iolab_test;

namespace
{

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

// A fork-twice server in miniature: for each of argv[1] grandchildren, a child forks it and exits
// at once, and the program waits for that child only. Each grandchild makes 5,000 writes, holds
// 40 more descriptors open (a leak to count) and waits for EOF on its stdin; the program says
// "ready" on stdout once every child between has been reaped, then waits for EOF too.
const char *kForkTwice = R"(#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    char c;
    for (int i = 0; i < n; i++) {
        pid_t child = fork();
        if (child == 0) {
            if (fork() == 0) {
                int fd = open("/dev/null", O_WRONLY);
                for (int k = 0; k < 5000; k++)
                    write(fd, "x", 1);
                for (int k = 0; k < 40; k++)
                    dup(fd);
                while (read(0, &c, 1) > 0)
                    ;
            }
            _exit(0);
        }
        waitpid(child, NULL, 0);
    }
    write(1, "ready\n", 6);
    while (read(0, &c, 1) > 0)
        ;
    return 0;
}
)";

// Compiles kForkTwice once; the path of the program.
std::string fork_twice()
{
    static TempDir dir;
    static std::string out;
    if (!out.empty())
        return out;
    spit(dir / "fork_twice.c", kForkTwice);
    auto r = run(
        {"/usr/bin/cc", "-std=gnu17", "-O1", "-w", "-o", dir / "fork_twice", dir / "fork_twice.c"});
    if (r.first != 0)
        throw std::runtime_error("cannot compile fork_twice.c: " + r.second);
    out = dir / "fork_twice";
    return out;
}

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Samples at 10 Hz until every process and thread of prog 0 has been read once after `from`
// (a full round of the budgeted rotation); at most 60 s.
const snapshot *sample_round(sampler *s, double from)
{
    const snapshot *snap = nullptr;
    for (int i = 0; i < 600; i++) {
        snap = sampler_sample(s, now_s());
        if (snap->progs[0].f.proc_unread == 0 && now_s() - snap->progs[0].f.proc_age_s > from)
            break;
        usleep(100000);
    }
    return snap;
}

} // namespace

TEST_CASE("every thread of a 600- and a 1,000-thread process is counted", "[sampler]")
{
    for (int threads : {600, 1000}) {
        DYNAMIC_SECTION(threads << " threads")
        {
            int ready[2], release[2];
            REQUIRE(pipe(ready) == 0);
            REQUIRE(pipe(release) == 0);
            pid_t child = fork();
            REQUIRE(child >= 0);
            if (child == 0) {
                release_fd = release[0];
                std::vector<pthread_t> t(threads);
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
            REQUIRE(sampler_open(&s, "/proc", 1, 10, t0) == 0);
            sampler_set_prog(s, 0, "many", LESSON_ROLE_SERVER);
            sampler_set_root(s, 0, child, 1);
            // The first tick reads what its budget allows: its figures are complete, or it says
            // how many threads it has not read yet.
            uint64_t truth = kernel_voluntary(child);
            const snapshot *snap = sampler_sample(s, now_s());
            CHECK((snap->progs[0].f.ctx_voluntary >= truth * 98 / 100 ||
                   snap->progs[0].f.proc_unread > 0));
            snap = sample_round(s, t0);
            truth = kernel_voluntary(child);
            INFO("sampler " << snap->progs[0].f.ctx_voluntary << ", kernel " << truth);
            CHECK(snap->progs[0].f.proc_unread == 0);
            CHECK(snap->progs[0].f.nthreads >= (uint32_t)threads);
            CHECK(truth >= (uint64_t)threads * 30);
            // The threads are blocked: the reads see the same counts, give or take a few.
            CHECK(snap->progs[0].f.ctx_voluntary >= truth * 98 / 100);
            sampler_close(s);
            for (int i = 0; i < threads; i++)
                (void)!write(release[1], "x", 1);
            int st;
            REQUIRE(waitpid(child, &st, 0) == child);
            CHECK(WIFEXITED(st));
            close(ready[0]);
            close(ready[1]);
            close(release[0]);
            close(release[1]);
        }
    }
}

TEST_CASE("a process born between ticks is found, and one that lived between ticks is kept",
          "[sampler]")
{
    // The child waits for orders on a pipe: 'f' forks a grandchild that waits, 'w' forks one
    // that makes 5,000 writes and exits (reaped at once), 'q' ends everything.
    int cmd[2], ack[2];
    REQUIRE(pipe(cmd) == 0);
    REQUIRE(pipe(ack) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::vector<pid_t> kids;
        char c;
        while (read(cmd[0], &c, 1) == 1 && c != 'q') {
            pid_t k = fork();
            if (k == 0) {
                if (c == 'w') {
                    int null = open("/dev/null", O_WRONLY);
                    for (int i = 0; i < 5000; i++)
                        (void)!write(null, "x", 1);
                    _exit(0);
                }
                (void)!read(cmd[0], &c, 0);
                pause();
                _exit(0);
            }
            if (c == 'w')
                waitpid(k, nullptr, 0);
            else
                kids.push_back(k);
            (void)!write(ack[1], "k", 1);
        }
        for (pid_t k : kids)
            kill(k, SIGKILL);
        while (wait(nullptr) > 0)
            ;
        _exit(0);
    }
    sampler *s = nullptr;
    REQUIRE(sampler_open(&s, "/proc", 1, 10, now_s()) == 0);
    sampler_set_prog(s, 0, "parent", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, child, 1);
    const snapshot *snap = sampler_sample(s, now_s());
    CHECK(snap->progs[0].f.nprocs == 1);
    uint64_t syscw0 = snap->progs[0].f.syscw;
    char c;
    REQUIRE(write(cmd[1], "f", 1) == 1);
    REQUIRE(read(ack[0], &c, 1) == 1);
    snap = sampler_sample(s, now_s());
    CHECK(snap->progs[0].f.nprocs == 2); // born since the last tick: found at the next one
    REQUIRE(write(cmd[1], "w", 1) == 1);
    REQUIRE(read(ack[0], &c, 1) == 1);
    snap = sample_round(s, now_s());
    CHECK(snap->progs[0].f.nprocs == 2);
    // The writer was never seen alive: its writes reached the parent when it was reaped.
    CHECK(snap->progs[0].f.syscw >= syscw0 + 5000);
    uint64_t before = snap->progs[0].f.syscw;
    // The waiting grandchild dies and is reaped: the process count drops, no figure does.
    REQUIRE(write(cmd[1], "q", 1) == 1);
    int st;
    REQUIRE(waitpid(child, &st, 0) == child);
    snap = sampler_sample(s, now_s());
    CHECK(snap->progs[0].f.nprocs == 0);
    CHECK(snap->progs[0].f.syscw >= before);
    sampler_close(s);
    close(cmd[0]);
    close(cmd[1]);
    close(ack[0]);
    close(ack[1]);
}

TEST_CASE("a fork-twice program's reparented grandchildren and their descriptors are its own",
          "[sampler]")
{
    // The jail's shape in the lower tiers: a helper (the launcher, a child subreaper, running
    // another executable) above the program, which reaps the orphans. The sampler's root is the
    // helper; the program's own process is found by its executable.
    const int kGrandchildren = 3;
    std::string prog = fork_twice();
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    pid_t helper = fork();
    REQUIRE(helper >= 0);
    if (helper == 0) {
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        pid_t p = fork();
        if (p == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            for (int fd : {in[0], in[1], out[0], out[1]})
                close(fd);
            execl(prog.c_str(), prog.c_str(), std::to_string(kGrandchildren).c_str(),
                  (char *)nullptr);
            _exit(127);
        }
        for (int fd : {in[0], in[1], out[0], out[1]})
            close(fd);
        while (wait(nullptr) > 0 || errno == EINTR)
            ;
        _exit(0);
    }
    close(in[0]);
    close(out[1]);
    char line[16] = {0};
    REQUIRE(read(out[0], line, 6) == 6);
    REQUIRE(std::string(line) == "ready\n");
    // Every grandchild is an orphan now: its parent is the helper, not the program.
    std::set<pid_t> below = descendants(helper);
    REQUIRE(below.size() == 1 + kGrandchildren);
    sampler *s = nullptr;
    REQUIRE(sampler_open(&s, "/proc", 1, 10, now_s()) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_exe(s, 0, prog.c_str());
    sampler_set_root(s, 0, helper, 1);
    // The program's own process is looked for a tenth of a second after the helper is seen, and
    // a process's /proc files are read within a budget per tick: sample until it is counted with
    // its grandchildren, their writes and their descriptors, for at most 20 s.
    const snapshot *snap = nullptr;
    for (int i = 0; i < 200; i++) {
        snap = sampler_sample(s, now_s());
        if (snap->progs[0].pid != helper && snap->progs[0].f.nprocs == 1 + kGrandchildren &&
            snap->progs[0].f.proc_unread == 0 &&
            snap->progs[0].f.syscw >= (uint64_t)kGrandchildren * 5000 &&
            snap->progs[0].f.nfds >= 44)
            break;
        usleep(100000);
    }
    INFO("program pid " << snap->progs[0].pid << ", helper " << helper);
    CHECK(snap->progs[0].pid != helper);
    // The program and its grandchildren, not the helper above it.
    CHECK(snap->progs[0].f.nprocs == 1 + kGrandchildren);
    CHECK(snap->progs[0].f.peak_procs == 1 + kGrandchildren);
    // The grandchildren's writes are the program's.
    CHECK(snap->progs[0].f.syscw >= (uint64_t)kGrandchildren * 5000);
    // A grandchild holds its 3 standard descriptors, /dev/null and the 40 duplicates.
    CHECK(snap->progs[0].f.nfds >= 44);
    CHECK(snap->roles[LESSON_ROLE_SERVER].nfds == snap->progs[0].f.nfds);
    sampler_close(s);
    close(in[1]); // EOF: the program and its grandchildren end, and the helper with them
    int st;
    REQUIRE(waitpid(helper, &st, 0) == helper);
    CHECK(WIFEXITED(st));
    close(out[0]);
}
