// sampler: a program's process whose parent was not listed yet (a fork the listing missed) is
// still counted once the parent shows, and the counters pane never reads "0" for figures that
// were not read.
#include "helpers.hpp"
#include <catch2/catch.hpp>

extern "C" {
#include "metrics/sampler.h"
}

#include <fstream>

using namespace iolab_test;

namespace
{

struct Proc {
    int pid, ppid;
    uint64_t syscr;
};

// The files the sampler reads of one process, written in place.
void put(const TempDir &root, const Proc &p)
{
    std::string dir = root / std::to_string(p.pid);
    mkdir(dir.c_str(), 0755);
    std::ofstream(dir + "/stat") << p.pid << " (fake) S " << p.ppid
                                 << " 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 " << 1000 + p.pid
                                 << " 0 10 0 0\n";
    std::ofstream(dir + "/status") << "Name:\tfake\nPPid:\t" << p.ppid
                                   << "\nThreads:\t1\nvoluntary_ctxt_switches:\t0\n"
                                      "nonvoluntary_ctxt_switches:\t0\n";
    std::ofstream(dir + "/io") << "rchar: 0\nwchar: 0\nsyscr: " << p.syscr
                               << "\nsyscw: 0\nread_bytes: 0\nwrite_bytes: 0\n";
}

} // namespace

TEST_CASE("a reader listed before its parent is counted once the parent shows")
{
    // The sandbox's launcher (100) forks its init (101), which forks the reader (102). The
    // listing that first sees the reader missed the init: a fork takes its pid before it shows
    // in /proc, and the tail listing had moved past it. Before the fix the reader was taken for
    // another program's process for good, and the kernel's syscr stayed at 0 while the library
    // counted millions of reads.
    TempDir proc;
    Proc launcher{100, 50, 3}, init{101, 100, 0}, reader{102, 101, 1000};
    put(proc, Proc{50, 1, 0}); // iolab
    put(proc, launcher);
    put(proc, reader);

    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), nullptr, 0, 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "reader", LESSON_ROLE_CLIENT);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.syscr == 3); // the launcher only: its child is not listed yet

    put(proc, init);
    reader.syscr = 50000;
    put(proc, reader);
    snap = sampler_sample(s, 0.1);
    CHECK(snap->progs[0].f.nprocs == 3);
    CHECK(snap->progs[0].f.syscr == 3 + 50000);

    reader.syscr = 90000;
    put(proc, reader);
    snap = sampler_sample(s, 0.2);
    CHECK(snap->progs[0].f.syscr == 3 + 90000);
    int pids[8];
    REQUIRE(sampler_tree(s, 0, pids, 8) == 3);
    CHECK(pids[2] == 102);
    sampler_close(s);
}

TEST_CASE("a process whose parent is pid 1 or none is another program's at once")
{
    // The rule above waits only for parents that may still show: pid 1 and 0 (a parent outside
    // iolab's pid namespace) are never in a recorded /proc, and their children are strangers.
    TempDir proc;
    put(proc, Proc{100, 50, 3});
    put(proc, Proc{50, 1, 0});
    put(proc, Proc{200, 1, 999});
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), nullptr, 0, 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "reader", LESSON_ROLE_CLIENT);
    sampler_set_root(s, 0, 100, 1);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    CHECK(snap->progs[0].f.nprocs == 1);
    CHECK(snap->progs[0].f.syscr == 3);
    sampler_close(s);
}
