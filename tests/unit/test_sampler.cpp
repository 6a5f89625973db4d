// sampler: process trees, exits and threads on a fake /proc, counts from a hand-built page.
#include "helpers.hpp"
#include <catch2/catch.hpp>

extern "C" {
#include "iolab_page.h"
#include "metrics/sampler.h"
}

#include <fstream>

using namespace iolab_test;

struct FakeProc {
    int pid, ppid;
    uint64_t utime, stime, cutime, cstime;
    uint64_t vol, invol, syscr, syscw;
    int threads = 1;
    char state = 'S';
};

// Writes a process's files in place (same inode), as the kernel's change under an open fd.
static void put(const TempDir &root, const FakeProc &p)
{
    std::string dir = root / std::to_string(p.pid);
    mkdir(dir.c_str(), 0755);
    std::ofstream(dir + "/stat") << p.pid << " (fake " << p.pid << ") " << p.state << " " << p.ppid
                                 << " 0 0 0 -1 0 0 0 0 0 " << p.utime << " " << p.stime << " "
                                 << p.cutime << " " << p.cstime << " 20 0 " << p.threads << " 0 "
                                 << 1000 + p.pid << " 0 10 0 0\n";
    std::ofstream(dir + "/status") << "Name:\tfake\nPPid:\t" << p.ppid << "\nThreads:\t"
                                   << p.threads << "\nvoluntary_ctxt_switches:\t" << p.vol
                                   << "\nnonvoluntary_ctxt_switches:\t" << p.invol << "\n";
    std::ofstream(dir + "/io") << "rchar: 0\nwchar: 0\nsyscr: " << p.syscr << "\nsyscw: " << p.syscw
                               << "\nread_bytes: 0\nwrite_bytes: 0\n";
}

static void put_task(const TempDir &root, int pid, int tid, uint64_t vol, uint64_t invol)
{
    std::string dir = root / (std::to_string(pid) + "/task/" + std::to_string(tid));
    std::string cmd = "mkdir -p '" + dir + "'";
    REQUIRE(system(cmd.c_str()) == 0);
    std::ofstream(dir + "/status") << "Name:\tfake\nvoluntary_ctxt_switches:\t" << vol
                                   << "\nnonvoluntary_ctxt_switches:\t" << invol << "\n";
}

static void gone(const TempDir &root, const std::string &rel)
{
    std::string cmd = "rm -rf '" + (root / rel) + "'";
    REQUIRE(system(cmd.c_str()) == 0);
}

TEST_CASE("a program's tree is its root and every descendant, and exits lose nothing")
{
    TempDir proc;
    long hz = sysconf(_SC_CLK_TCK);
    FakeProc iolab{50, 1, 500, 500, 0, 0, 9, 9, 9, 9};
    FakeProc root{100, 50, 10, 20, 0, 0, 5, 1, 7, 3};
    FakeProc child{101, 100, 30, 40, 0, 0, 6, 2, 11, 13};
    FakeProc grandchild{102, 101, 100, 0, 0, 0, 50, 5, 1, 1};
    FakeProc stranger{200, 1, 999, 999, 0, 0, 999, 999, 999, 999};
    for (auto &p : {iolab, root, child, grandchild, stranger})
        put(proc, p);

    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    const struct snapshot_figures *f = &snap->progs[0].f;
    CHECK(f->nprocs == 3);
    CHECK(f->cpu_user_s == Approx(140.0 / hz));
    CHECK(f->cpu_sys_s == Approx(60.0 / hz));
    CHECK(f->ctx_voluntary == 61);
    CHECK(f->ctx_involuntary == 8);
    CHECK(f->syscr == 19);

    // The grandchild exits and its parent reaps it: its CPU and io move into the parent's own
    // figures (cutime, io); its context switches are only in our last sample of it.
    gone(proc, "102");
    child.cutime += 100;
    child.syscr += 1;
    child.syscw += 1;
    put(proc, child);
    snap = sampler_sample(s, 1.0);
    f = &snap->progs[0].f;
    CHECK(f->nprocs == 2);
    CHECK(f->cpu_user_s == Approx(140.0 / hz)); // not counted twice
    CHECK(f->ctx_voluntary == 61);              // not lost
    CHECK(f->syscr == 19);
    CHECK(f->peak_procs == 3);

    // The root exits (iolab reaps it): its last figures stay; the orphan is still ours.
    gone(proc, "100");
    child.ppid = 1;
    child.utime += 10;
    put(proc, child);
    snap = sampler_sample(s, 2.0);
    f = &snap->progs[0].f;
    CHECK(f->nprocs == 1);
    CHECK(f->cpu_user_s == Approx(150.0 / hz));
    CHECK(f->cpu_user_pct == Approx(100.0 * 10 / hz));
    CHECK(f->ctx_voluntary == 61);

    // A pid reused by a new process of ours after a restart starts a fresh tree member.
    FakeProc second{300, 50, 1, 1, 0, 0, 1, 1, 0, 0};
    put(proc, second);
    sampler_set_root(s, 0, 300, 2);
    snap = sampler_sample(s, 3.0);
    CHECK(snap->progs[0].f.nprocs == 2);
    CHECK(snap->progs[0].run == 2);
    int pids[8];
    size_t n = sampler_tree(s, 0, pids, 8);
    REQUIRE(n == 2);
    CHECK(pids[0] == 300);
    CHECK(pids[1] == 101);
    sampler_close(s);
}

TEST_CASE("a child whose parent dies without reaping it stays counted")
{
    // A server stopped on a mode switch, with its forked children: the parent exits first (a
    // zombie, still listed), the children are reaped by the sandbox's init, not by it. The
    // parent's figures never include theirs, so the children's must stay counted, or the
    // totals dip and the next mode's figures come out short by that much.
    TempDir proc;
    long hz = sysconf(_SC_CLK_TCK);
    FakeProc iolab{50, 1, 500, 500, 0, 0, 9, 9, 9, 9};
    FakeProc root{100, 50, 10, 20, 0, 0, 5, 1, 7, 3};
    FakeProc child{101, 100, 30, 40, 0, 0, 6, 2, 1000, 13};
    for (auto &p : {iolab, root, child})
        put(proc, p);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.syscr == 1007);

    root.state = 'Z'; // exited, not reaped yet; its figures do not include the child's
    put(proc, root);
    gone(proc, "101");
    snap = sampler_sample(s, 1.0);
    CHECK(snap->progs[0].f.syscr == 1007);

    gone(proc, "100");
    snap = sampler_sample(s, 2.0);
    const struct snapshot_figures *f = &snap->progs[0].f;
    CHECK(f->nprocs == 0);
    CHECK(f->syscr == 1007);
    CHECK(f->cpu_user_s == Approx(40.0 / hz));
    CHECK(f->ctx_voluntary == 11);

    // The next run's growth is all there: none of it fills a dip left by the last one.
    FakeProc next{300, 50, 0, 0, 0, 0, 0, 0, 500, 0};
    put(proc, next);
    sampler_set_root(s, 0, 300, 2);
    snap = sampler_sample(s, 3.0);
    CHECK(snap->progs[0].f.syscr == 1507);
    sampler_close(s);
}

TEST_CASE("context switches are summed over threads, and an exited thread's stay")
{
    TempDir proc;
    FakeProc p{100, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3};
    put(proc, p);
    put_task(proc, 100, 100, 10, 1);
    put_task(proc, 100, 101, 20, 2);
    put_task(proc, 100, 102, 30, 3);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.nthreads == 3);
    CHECK(snap->progs[0].f.ctx_voluntary == 60);
    CHECK(snap->progs[0].f.ctx_involuntary == 6);
    gone(proc, "100/task/102");
    put_task(proc, 100, 101, 25, 2);
    p.threads = 2;
    put(proc, p);
    snap = sampler_sample(s, 0.5);
    CHECK(snap->progs[0].f.nthreads == 2);
    CHECK(snap->progs[0].f.peak_threads == 3);
    CHECK(snap->progs[0].f.ctx_voluntary == 65);
    CHECK(snap->progs[0].f.ctx_voluntary_rate == Approx(10.0));
    sampler_close(s);
}

TEST_CASE("calls, rates, roles and mode rows come from the page")
{
    TempDir proc;
    // Each program has its page; a slot counts for the page's program whatever its prog says.
    int fd[2] = {-1, -1};
    struct iolab_page *page[2] = {nullptr, nullptr};
    REQUIRE(iolab_page_create(8, &fd[0], &page[0]) == 0);
    REQUIRE(iolab_page_create(8, &fd[1], &page[1]) == 0);
    auto claim = [&](uint32_t prog) {
        struct iolab_page *pg = page[prog];
        struct iolab_slot *sl = &pg->slots[pg->next_slot++];
        sl->prog = 7;
        sl->run = 1;
        __atomic_store_n(&sl->state, 1, __ATOMIC_RELEASE);
        return sl;
    };
    struct iolab_slot *srv = claim(0), *cli = claim(1);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 2, 10, 0.0) == 0);
    sampler_set_page(s, 0, page[0], 8);
    sampler_set_page(s, 1, page[1], 8);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_prog(s, 1, "load", LESSON_ROLE_CLIENT);
    sampler_set_mode(s, 1, true);
    sampler_sample(s, 0.0);
    srv->calls[IOLAB_CALL_EPOLL_WAIT].count = 300;
    srv->calls[IOLAB_CALL_READ].count = 100;
    cli->calls[IOLAB_CALL_SENDTO].count = 100;
    cli->app.requests = 100;
    cli->app.bytes = 1600;
    cli->app.hist[iolab_hist_bucket(50000)] = 100;
    const struct snapshot *snap = sampler_sample(s, 0.5);
    CHECK(snap->dt_s == Approx(0.5));
    CHECK(snap->progs[0].f.calls[IOLAB_CALL_EPOLL_WAIT].count_rate == Approx(600.0));
    CHECK(snap->progs[0].f.calls[IOLAB_CALL_EPOLL_WAIT].share == Approx(0.75));
    CHECK(snap->progs[0].f.lib_reads == 100);
    CHECK(snap->roles[LESSON_ROLE_CLIENT].requests_rate == Approx(200.0));
    CHECK(snap->roles[LESSON_ROLE_SERVER].calls_total == 400);
    CHECK(snap->roles[LESSON_ROLE_CLIENT].latency_total.samples == 100);
    CHECK(snap->roles[LESSON_ROLE_CLIENT].latency_recent.samples == 100);
    CHECK(snap->mode == 1);
    CHECK(snap->mode_running);
    // A switch: the snapshot says the new mode's server is not up yet (the grader's mode spans
    // count no time while it is not: test_mode_span.cpp).
    sampler_set_mode(s, 2, false);
    cli->app.requests = 150;
    snap = sampler_sample(s, 1.0);
    CHECK(snap->mode == 2);
    CHECK_FALSE(snap->mode_running);
    sampler_set_mode(s, 2, true);
    sampler_sample(s, 1.2);
    cli->app.requests = 170;
    snap = sampler_sample(s, 2.2);
    CHECK(snap->mode_running);
    CHECK(snap->history_len >= 1);

    // A restart: the client's next start has a page of its own, and what the first start
    // counted stays in the figures.
    int fd2 = -1;
    struct iolab_page *again = nullptr;
    REQUIRE(iolab_page_create(8, &fd2, &again) == 0);
    cli->app.requests = 180;
    sampler_set_page(s, 1, again, 8);
    iolab_page_unmap(page[1], 8);
    close(fd[1]);
    snap = sampler_sample(s, 2.4);
    CHECK(snap->progs[1].f.requests == 180);
    CHECK(snap->progs[1].f.calls[IOLAB_CALL_SENDTO].count == 100);
    struct iolab_slot *cli2 = &again->slots[again->next_slot++];
    cli2->run = 2;
    __atomic_store_n(&cli2->state, 1, __ATOMIC_RELEASE);
    cli2->app.requests = 5;
    cli2->calls[IOLAB_CALL_SENDTO].count = 5;
    snap = sampler_sample(s, 2.6);
    CHECK(snap->progs[1].f.requests == 185);
    CHECK(snap->progs[1].f.calls[IOLAB_CALL_SENDTO].count == 105);
    CHECK(snap->progs[0].f.calls[IOLAB_CALL_EPOLL_WAIT].count == 300);
    sampler_close(s);
    iolab_page_unmap(page[0], 8);
    close(fd[0]);
    iolab_page_unmap(again, 8);
    close(fd2);
}

TEST_CASE("a run's exit tops its figures up to the kernel's totals, each run on its own")
{
    TempDir proc;
    long hz = sysconf(_SC_CLK_TCK);
    auto us = [hz](uint64_t ticks) { return ticks * 1000000 / (uint64_t)hz; };
    FakeProc root{100, 50, 10, 5, 0, 0, 5, 1, 7, 3};
    put(proc, root);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "client", LESSON_ROLE_CLIENT);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.ctx_voluntary == 5);

    // Between two samples the root forks a child that makes 200 voluntary switches and burns
    // 30 ticks, reaps it, and exits itself: no sample ever saw the child or the root's end.
    gone(proc, "100");
    // It also read and wrote what no sample saw: the launcher's io totals top those up too.
    CHECK(snap->progs[0].f.syscr == 7);
    struct sampler_exit x {
    };
    x.utime_us = us(10 + 30 + 2);
    x.stime_us = us(5);
    x.nvcsw = 5 + 200 + 3;
    x.nivcsw = 4;
    x.has_io = true;
    x.syscr = 500;
    x.syscw = 400;
    x.rchar = 4096;
    REQUIRE(sampler_set_exit(s, 0, 1, &x) == 0);
    snap = sampler_sample(s, 1.0);
    const struct snapshot_figures *f = &snap->progs[0].f;
    CHECK(f->syscr == 500);
    CHECK(f->syscw == 400);
    CHECK(f->rchar == 4096);
    CHECK(f->ctx_voluntary == 208);
    CHECK(f->ctx_involuntary == 4);
    CHECK(f->cpu_user_s == Approx(42.0 / hz));
    CHECK(f->cpu_sys_s == Approx(5.0 / hz));
    CHECK(sampler_set_exit(s, 0, 1, &x) == -ESRCH); // once per run

    // The next run (a restart or a mode switch) is reconciled against what was sampled for it
    // alone: its 2 sampled switches become the kernel's 50, whatever run 1 left in the totals.
    FakeProc second{300, 50, 1, 0, 0, 0, 2, 7, 0, 0};
    put(proc, second);
    sampler_set_root(s, 0, 300, 2);
    snap = sampler_sample(s, 2.0);
    CHECK(snap->progs[0].f.ctx_voluntary == 210);
    CHECK(sampler_set_exit(s, 0, 1, &x) == -ESRCH); // run 1 is over
    gone(proc, "300");
    struct sampler_exit y {
    }; // no io reported: the sampled io stays as it is
    y.utime_us = us(4);
    y.nvcsw = 50;
    y.nivcsw = 3;
    REQUIRE(sampler_set_exit(s, 0, 2, &y) == 0);
    snap = sampler_sample(s, 3.0);
    f = &snap->progs[0].f;
    CHECK(f->ctx_voluntary == 258);
    CHECK(f->ctx_involuntary == 11); // sampled 7 > the kernel's 3: nothing is taken away
    CHECK(f->syscr == 500);
    CHECK(f->cpu_user_s == Approx(46.0 / hz));
    CHECK(f->cpu_sys_s == Approx(5.0 / hz));
    sampler_close(s);
}

TEST_CASE("a process whose threads cannot be listed (it is exiting) is still sampled")
{
    TempDir proc;
    // Three threads in stat, but an empty task directory: the listing finds none of them.
    FakeProc p{100, 1, 10, 20, 0, 0, 5, 1, 7, 3, 3};
    put(proc, p);
    mkdir((proc / "100/task").c_str(), 0755);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.nprocs == 1);
    CHECK(snap->progs[0].f.syscr == 7);
    CHECK(snap->progs[0].f.ctx_voluntary == 0);
    sampler_close(s);
}
