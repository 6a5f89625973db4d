// The sampler's budget and the age of its figures: the round-robin logic (rotation.h) on
// recorded costs, and a tree built from a recorded process (tests/data/proc/4242) read one slice
// a tick, whose figures then say how old they are, on screen and in the snapshot.
#include "helpers.hpp"
#include <catch2/catch.hpp>

extern "C" {
#include "metrics/rotation.h"
#include "metrics/sampler.h"
#include "ui/counterview.h"
}

#include <fstream>
#include <sstream>
#include <vector>

using namespace iolab_test;

namespace
{

// Simulates ticks of the rotation over items of the given costs (seconds, as measured on this
// machine: a process's stat+io about 4 us, a thread's status 7 us, a first read with its opens
// 30 us), each tick on a clock that the reads advance. Returns, per tick, the indexes read.
std::vector<std::vector<size_t>> simulate(const std::vector<double> &cost, rotation r, int ticks,
                                          double tick_s)
{
    std::vector<int> keys(cost.size());
    for (size_t i = 0; i < keys.size(); i++)
        keys[i] = (int)(100 + 3 * i); // sorted, with gaps, as pids are
    std::vector<std::vector<size_t>> out;
    int cursor = 0;
    double now = 0;
    for (int t = 0; t < ticks; t++, now = t * tick_s) {
        rotation_begin(&r, now);
        size_t n = keys.size(), i0 = rotation_start(keys.data(), n, sizeof(int), cursor);
        std::vector<size_t> read;
        for (size_t k = 0; k < n && rotation_may(&r, now); k++) {
            size_t i = (i0 + k) % n;
            now += cost[i];
            rotation_took(&r);
            cursor = keys[i];
            read.push_back(i);
        }
        out.push_back(read);
    }
    return out;
}

} // namespace

TEST_CASE("rotation: a tick stops at its budget, resumes where it stopped and starves no item")
{
    // 1,000 processes at 11 us each (stat, io, status kept open) and a budget of 0.75% of a core
    // at 10 Hz: 0.75 ms a tick.
    std::vector<double> cost(1000, 11e-6);
    rotation r{};
    r.budget_s = rotation_budget(0.0075, 10);
    r.min_items = 16;
    CHECK(r.budget_s == Approx(0.00075));
    auto ticks = simulate(cost, r, 30, 0.1);
    std::vector<int> seen(cost.size(), 0);
    for (const auto &t : ticks) {
        // The budget holds to within one item: about 0.75 ms / 11 us = 68 items.
        CHECK(t.size() >= 68);
        CHECK(t.size() <= 70);
        for (size_t i : t)
            seen[i]++;
    }
    // Round-robin: consecutive ticks continue from one another, so in 30 ticks (2,000+ reads)
    // every item was read twice at least and none more than once more than another.
    int lo = *std::min_element(seen.begin(), seen.end());
    int hi = *std::max_element(seen.begin(), seen.end());
    CHECK(lo >= 2);
    CHECK(hi - lo <= 1);
    CHECK(ticks[1].front() == (ticks[0].back() + 1) % cost.size());
}

TEST_CASE("rotation: a slow machine still reads min_items a tick, no budget reads everything")
{
    // Recorded on a loaded machine: one read took 2 ms, far over the budget.
    std::vector<double> cost(100, 2e-3);
    rotation r{};
    r.budget_s = rotation_budget(0.0075, 10);
    r.min_items = 16;
    auto ticks = simulate(cost, r, 3, 0.1);
    for (const auto &t : ticks)
        CHECK(t.size() == 16);
    r.budget_s = 0;
    ticks = simulate(cost, r, 1, 0.1);
    CHECK(ticks[0].size() == 100);
}

TEST_CASE("rotation: the share grows with the scenario, within what iolab allows itself")
{
    CHECK(rotation_share(0) == Approx(ROTATION_SHARE_SMALL));
    CHECK(rotation_share(256) == Approx(0.0075));
    CHECK(rotation_share(628) > 0.0075);
    CHECK(rotation_share(628) < 0.016);
    CHECK(rotation_share(1000) == Approx(0.016));
    CHECK(rotation_share(100000) == Approx(0.016)); // never more than 1.6% for the reads
    int keys[] = {10, 20, 30};
    CHECK(rotation_start(keys, 3, sizeof(int), 0) == 0);
    CHECK(rotation_start(keys, 3, sizeof(int), 10) == 1);
    CHECK(rotation_start(keys, 3, sizeof(int), 25) == 2);
    CHECK(rotation_start(keys, 3, sizeof(int), 30) == 0); // wraps
    CHECK(rotation_start(keys, 0, sizeof(int), 5) == 0);
}

namespace
{

// A copy of the recorded process under pid `pid` with parent `ppid` (its stat's fields 1 and 4
// rewritten; the comm "a) (b c" stays, so the parser still meets it).
void put_recorded(const TempDir &root, int pid, int ppid)
{
    std::string src = std::string(IOLAB_SOURCE_DIR) + "/tests/data/proc/4242";
    std::string stat = slurp(src + "/stat");
    size_t close = stat.rfind(')');
    std::istringstream rest(stat.substr(close + 2));
    std::string state, oldppid, tail;
    rest >> state >> oldppid;
    std::getline(rest, tail);
    std::string dir = root / std::to_string(pid);
    std::string cmd = "mkdir -p '" + dir + "/task' && cp -r '" + src + "/task/4243' '" + dir +
                      "/task/" + std::to_string(pid + 1) + "' && cp -r '" + src + "/task/4242' '" +
                      dir + "/task/" + std::to_string(pid) + "' && cp '" + src + "/status' '" +
                      src + "/io' '" + dir + "/'";
    REQUIRE(system(cmd.c_str()) == 0);
    std::ofstream(dir + "/stat") << pid << " "
                                 << stat.substr(stat.find('('), close + 1 - stat.find('(')) << " "
                                 << state << " " << ppid << tail << "\n";
}

} // namespace

TEST_CASE("figures read a slice a tick say how old they are, on screen and in the snapshot")
{
    // Six copies of the recorded two-thread process in one tree: eighteen files to read.
    TempDir proc;
    put_recorded(proc, 4242, 1);
    for (int i = 1; i <= 5; i++)
        put_recorded(proc, 4242 + 10 * i, 4242);
    struct sampler *s = nullptr;
    REQUIRE(sampler_open(&s, proc.path.c_str(), 1, 10, 0.0) == 0);
    sampler_set_prog(s, 0, "server", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, 4242, 1);
    // A budget no read fits in: each tick reads its minimum, two files (one process's stat and
    // io, one thread).
    sampler_set_budget(s, 1e-9, 2);
    const struct snapshot *snap = sampler_sample(s, 0.0);
    const struct snapshot_figures *f = &snap->progs[0].f;
    CHECK(f->nprocs == 6);
    CHECK(f->proc_unread > 0);
    char text[64];
    counterview_age(text, sizeof text, f, snap->tick_hz);
    CHECK(std::string(text).find("unread") != std::string::npos);
    double t = 0;
    for (int i = 1; i <= 20; i++)
        snap = sampler_sample(s, t = 0.1 * i);
    f = &snap->progs[0].f;
    // Everything has been read by now, but a round takes several ticks: the oldest figure is
    // older than a tick, and the pane says so.
    CHECK(f->proc_unread == 0);
    CHECK(f->proc_age_s > 0.15);
    CHECK(f->proc_age_s < 2.0);
    CHECK(snap->roles[LESSON_ROLE_SERVER].proc_age_s == Approx(f->proc_age_s));
    CHECK(f->nthreads == 12);
    counterview_age(text, sizeof text, f, snap->tick_hz);
    CHECK(std::string(text).find("oldest") != std::string::npos);
    CHECK(std::string(text).find("unread") == std::string::npos);
    // The recorded counts are all there: 6 processes x the two threads' switches.
    uint64_t vol = 0;
    for (const char *tid : {"4242", "4243"}) {
        std::string st =
            slurp(std::string(IOLAB_SOURCE_DIR) + "/tests/data/proc/4242/task/" + tid + "/status");
        size_t k = st.find("\nvoluntary_ctxt_switches:");
        vol += std::stoull(st.substr(k + 25));
    }
    CHECK(f->ctx_voluntary == 6 * vol);
    // With no budget, one tick reads everything: no figure is older than the tick, no mark.
    sampler_set_budget(s, 0, 16);
    snap = sampler_sample(s, t + 0.1);
    f = &snap->progs[0].f;
    CHECK(f->proc_age_s < 1e-9);
    counterview_age(text, sizeof text, f, snap->tick_hz);
    CHECK(std::string(text).empty());
    sampler_close(s);
}
