// The calls a step is about ("watch"), which the counters pane lists first: the built-in steps
// name theirs, and a step without the key watches the calls its checks and outcomes name.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

extern "C" {
#include "lesson/lesson.h"
#include <iolab_counters.h>
}

using namespace iolab_test;

namespace
{

std::vector<std::string> watched(const lesson_scenario *sc)
{
    std::vector<std::string> out;
    for (size_t i = 0; i < sc->nwatch; i++)
        out.push_back(iolab_call_info[sc->watch[i]].label);
    return out;
}

} // namespace

TEST_CASE("lesson_watch_derive: the calls of the checks, then of the outcomes, each once")
{
    lesson_check checks[3] = {};
    checks[0].figure = FIGURE_SECONDS;
    checks[1].figure = FIGURE_CALLS;
    checks[1].call = IOLAB_CALL_FORK;
    checks[2].figure = FIGURE_CHECK_CALL_PER_REQ;
    checks[2].call = IOLAB_CALL_EPOLL_WAIT;
    lesson_expect expects[1] = {};
    expects[0].left.figure = FIGURE_ONE_CALL_PER_REQ;
    expects[0].left.call = IOLAB_CALL_SENDFILE;
    expects[0].has_right = true;
    expects[0].right.figure = FIGURE_ONE_CALL_PER_REQ;
    expects[0].right.call = IOLAB_CALL_FORK; // already there
    lesson_scenario sc = {};
    sc.checks = checks;
    sc.nchecks = 3;
    sc.expects = expects;
    sc.nexpects = 1;
    lesson_watch_derive(&sc);
    CHECK(watched(&sc) == std::vector<std::string>{"fork", "epoll_wait", "sendfile"});
}

TEST_CASE("lesson_watch_add: a full list takes no more")
{
    lesson_scenario sc = {};
    for (unsigned c = 0; c < LESSON_MAX_WATCH; c++)
        CHECK(lesson_watch_add(&sc, c));
    CHECK_FALSE(lesson_watch_add(&sc, LESSON_MAX_WATCH));
    CHECK_FALSE(lesson_watch_add(&sc, 0));
    CHECK(sc.nwatch == LESSON_MAX_WATCH);
}

TEST_CASE("the built-in steps name the calls their text is about")
{
    std::string libexec = build_dir() + "/libexec/iolab";
    lesson_load_options opts = {};
    opts.libexec_dir = libexec.c_str();
    lesson_pack *pack = nullptr;
    lesson_diags diags = {};
    REQUIRE(lesson_pack_load((source_dir() + "/lessons").c_str(), &opts, &pack, &diags) == 0);
    struct {
        const char *step;
        std::vector<std::string> calls;
    } want[] = {
        {"concurrency/compare", {"accept4", "epoll_wait", "fork", "pthread_create"}},
        {"zerocopy/compare", {"sendfile", "read", "sendto"}},
        {"stdio/aio", {"read", "pthread_create"}},
        {"stdio/write-buffered-reader", {"read"}},
    };
    for (const auto &w : want) {
        const lesson *l = nullptr;
        const lesson_step *st = nullptr;
        char why[256];
        INFO(w.step);
        REQUIRE(lesson_resolve(pack, w.step, &l, &st, why, sizeof why) == 0);
        const lesson_scenario *sc = lesson_step_scenario(st);
        REQUIRE(sc);
        CHECK(watched(sc) == w.calls);
    }
    lesson_pack_free(pack);
    lesson_diags_free(&diags);
}
