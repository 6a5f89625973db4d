// Call sites to source lines: iolab-site-lines (tests/progs/site_lines.c, built -O2 -g) runs
// under the real shim on a real page; its sites, summed by tally and resolved by siteline with
// the program's DWARF, must land on the lines marked "site:" with exactly the calls made there.
#include <catch2/catch.hpp>

#include <fstream>

#include "counter_page.hpp"
#include "helpers.hpp"

extern "C" {
#include "metrics/siteline.h"
#include "metrics/tally.h"
}

using namespace iolab_test;

namespace
{

std::string site_lines()
{
    return build_dir() + "/lib/iolab/iolab-site-lines";
}

// The line of site_lines.c that carries "site: <name>".
int marked_line(const std::string &name)
{
    std::ifstream in(source_dir() + "/tests/progs/site_lines.c");
    std::string text;
    for (int n = 1; std::getline(in, text); n++)
        if (text.find("/* site: " + name + " */") != std::string::npos)
            return n;
    FAIL("no line marked " << name);
    return 0;
}

struct Resolved {
    std::map<std::pair<std::string, int>, uint64_t> by_line; // (call, line) -> calls
    std::map<int, std::string> function, caller;             // line -> names
};

Resolved run_and_resolve(long n, struct tally_totals *t, const char *extra = nullptr)
{
    CounterPage pg(16);
    Child c;
    std::vector<std::string> argv = {site_lines(), std::to_string(n)};
    if (extra)
        argv.push_back(extra);
    c.start(argv, pg.env());
    int st = c.wait(30);
    INFO(c.output());
    REQUIRE(WIFEXITED(st));
    REQUIRE(WEXITSTATUS(st) == 0);
    tally_page(pg.page, pg.nslots, t);
    REQUIRE_FALSE(t->forged);

    Resolved r;
    struct siteline_map *map = nullptr;
    REQUIRE(siteline_open(site_lines().c_str(), &map) == 0);
    for (uint32_t i = 0; i < t->sites.n; i++) {
        const struct tally_site *s = &t->sites.site[i];
        REQUIRE(s->object < t->sites.nobjects);
        if (!t->sites.objects[s->object].exe)
            continue;
        CHECK(std::string(t->sites.objects[s->object].name) == site_lines());
        struct siteline l;
        REQUIRE(siteline_lookup(map, s->offset, &l) == 0);
        CHECK(std::string(l.file) == "site_lines.c");
        r.by_line[{iolab_call_info[s->call].label, l.line}] += s->count;
        r.function[l.line] = l.function;
        r.caller[l.line] = l.caller;
    }
    siteline_close(map);
    return r;
}

} // namespace

TEST_CASE("calls on known lines are counted exactly by line", "[siteline]")
{
    const long n = 1000;
    auto t = std::make_unique<struct tally_totals>();
    Resolved r = run_and_resolve(n, t.get());
    int refill = marked_line("refill"), read4 = marked_line("read4");
    int write = marked_line("write"), open = marked_line("open");
    CHECK(r.by_line[{"read", refill}] == (uint64_t)n);
    CHECK(r.by_line[{"read", read4}] == (uint64_t)(2 * n));
    CHECK(r.by_line[{"write", write}] == 3);
    CHECK(r.by_line[{"openat", open}] == 1);
    // refill() is inlined into main at -O2: the line is refill's, and main is named as the caller.
    CHECK(r.function[refill] == "refill");
    CHECK(r.caller[refill] == "main");
    CHECK(r.function[read4] == "main");
    CHECK(r.caller[read4].empty());
}

TEST_CASE("the counts of a call's sites add up to the call's count", "[siteline]")
{
    auto t = std::make_unique<struct tally_totals>();
    run_and_resolve(300, t.get());
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        if (c == IOLAB_CALL_RECVMSG_RIGHTS)
            continue; // a part of recvmsg: its calls are recvmsg's sites
        INFO(iolab_call_info[c].label);
        CHECK(tally_sites_calls(&t->sites, c) == t->calls[c].count);
    }
    CHECK(t->calls[IOLAB_CALL_READ].count == 900);
    CHECK(t->sites.other[IOLAB_CALL_READ] == 0);
}

TEST_CASE("more sites than a slot holds: the rest are counted as other sites, none lost",
          "[siteline]")
{
    // 80 call sites on one line, 50 rounds: 64 fit in the slot (some of them now share the
    // thread's cache entries), the others' calls go to other[]; the sums stay exact.
    const long n = 50;
    auto t = std::make_unique<struct tally_totals>();
    Resolved r = run_and_resolve(n, t.get(), "many");
    const uint64_t reads = 3 * n + 80 * n;
    CHECK(t->calls[IOLAB_CALL_READ].count == reads);
    CHECK(tally_sites_calls(&t->sites, IOLAB_CALL_READ) == reads);
    CHECK(t->sites.other[IOLAB_CALL_READ] > 0);
    CHECK(r.by_line[{"read", marked_line("many")}] + t->sites.other[IOLAB_CALL_READ] ==
          (uint64_t)(80 * n));
}

TEST_CASE("an offset with no line information is not given one", "[siteline]")
{
    struct siteline_map *map = nullptr;
    REQUIRE(siteline_open(site_lines().c_str(), &map) == 0);
    struct siteline l;
    CHECK(siteline_lookup(map, 1ull << 40, &l) == -ENOENT);
    CHECK(l.line == 0);
    siteline_close(map);
    CHECK(siteline_open("/nonexistent/program", &map) < 0);
}
