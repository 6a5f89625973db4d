// The session's check facts, built from snapshots: time and counts credited to the mode that was
// running, nothing credited while paused or switching, and figures kept across a restart.
#include <catch2/catch.hpp>
#include <cstring>

extern "C" {
#include "grade/session.h"
}

namespace
{

struct Fixture {
    lesson_mode modes[2] = {};
    lesson_scenario sc = {};
    Fixture()
    {
        modes[0].id = (char *)"epoll";
        modes[1].id = (char *)"fork";
        sc.modes = modes;
        sc.nmodes = 2;
    }
};

snapshot snap_at(double elapsed, int mode, uint64_t requests, uint64_t forks, bool running = true)
{
    static snapshot s; // large: keep it off the stack
    memset(&s, 0, sizeof s);
    s.elapsed_s = elapsed;
    s.mode = mode;
    s.mode_running = running;
    s.roles[LESSON_ROLE_CLIENT].requests = requests;
    s.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK].count = forks;
    return s;
}

// The facts of the mode with this id (the fixture's: epoll is 0, fork is 1).
const mode_span *find(const session &s, const char *id)
{
    int mode = !strcmp(id, "epoll") ? 0 : !strcmp(id, "fork") ? 1 : -2;
    for (size_t i = 0; i < s.nmodes; i++)
        if (s.modes[i].mode == mode)
            return &s.modes[i];
    return nullptr;
}

} // namespace

TEST_CASE("session: increments go to the running mode, across a restart")
{
    Fixture f;
    static session s;
    session_reset(&s);
    snapshot a = snap_at(0.0, 0, 0, 0);
    session_update(&s, &f.sc, &a);
    a = snap_at(2.0, 0, 1000, 0);
    session_update(&s, &f.sc, &a);
    a = snap_at(2.5, 1, 1100, 0, false); // switching: counts go on, time does not
    session_update(&s, &f.sc, &a);
    a = snap_at(4.5, 1, 1500, 8);
    session_update(&s, &f.sc, &a);

    const mode_span *e = find(s, "epoll"), *k = find(s, "fork");
    REQUIRE(e);
    REQUIRE(k);
    CHECK(e->span.seconds == Approx(2.0));
    CHECK(e->span.roles[LESSON_ROLE_CLIENT].requests == 1000);
    CHECK(k->span.seconds == Approx(2.0));
    CHECK(k->span.roles[LESSON_ROLE_CLIENT].requests == 500);
    CHECK(k->span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 8);

    // A restart: the engine's totals start from zero; the session keeps what it had.
    session_new_run(&s);
    a = snap_at(0.1, 1, 10, 1);
    session_update(&s, &f.sc, &a);
    a = snap_at(1.1, 1, 110, 3);
    session_update(&s, &f.sc, &a);
    CHECK(k->span.seconds == Approx(3.0));
    CHECK(k->span.roles[LESSON_ROLE_CLIENT].requests == 600);
    CHECK(k->span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 10);

    // The facts feed the lesson's checks.
    lesson_check ck = {};
    ck.mode = 1; // fork
    ck.role = -1;
    ck.figure = FIGURE_SECONDS;
    ck.has_min = true;
    ck.min = 3;
    check_facts facts;
    session_facts(&s, &facts);
    check_result r;
    REQUIRE(check_eval(&ck, &facts, &r) == 0);
    CHECK(r.holds);
    ck.min = 3.5;
    REQUIRE(check_eval(&ck, &facts, &r) == 0);
    CHECK_FALSE(r.holds);
}

// Issue 26: in an exercise what the learner's program publishes about itself counts for nothing;
// the requests and bytes of a role are those its other (reference) programs published.
TEST_CASE("session: in an exercise, requests and bytes come from the programs the learner did "
          "not write")
{
    Fixture f;
    f.sc.nmodes = 0;
    f.sc.has_learner = true;
    f.sc.learner = 1; // the learner writes the second client
    static session s;
    session_reset(&s);
    static snapshot a;
    auto at = [&](double t, uint64_t reference, uint64_t learner) {
        memset(&a, 0, sizeof a);
        a.elapsed_s = t;
        a.mode = -1;
        a.mode_running = true;
        a.nprogs = 3;
        a.progs[0].role = LESSON_ROLE_SERVER;
        a.progs[1].role = a.progs[2].role = LESSON_ROLE_CLIENT;
        a.progs[1].f.requests = learner; // forged in its own slot
        a.progs[1].f.app_bytes = learner * 100;
        a.progs[2].f.requests = reference;
        a.progs[2].f.app_bytes = reference * 10;
        a.roles[LESSON_ROLE_CLIENT].requests = reference + learner;
        a.roles[LESSON_ROLE_CLIENT].app_bytes = reference * 10 + learner * 100;
        session_update(&s, &f.sc, &a);
    };
    at(0.0, 0, 0);
    at(1.0, 3, 5000);
    check_facts facts;
    session_facts(&s, &facts);
    REQUIRE(facts.nmodes == 1);
    CHECK(facts.modes[0].span.roles[LESSON_ROLE_CLIENT].requests == 3);
    CHECK(facts.modes[0].span.roles[LESSON_ROLE_CLIENT].bytes == 30);

    // Outside an exercise every program counts.
    f.sc.has_learner = false;
    session_reset(&s);
    at(0.0, 0, 0);
    at(1.0, 3, 5000);
    session_facts(&s, &facts);
    CHECK(facts.modes[0].span.roles[LESSON_ROLE_CLIENT].requests == 5003);
}

TEST_CASE("session: paused time does not count, totals that go backwards only set the base")
{
    Fixture f;
    static session s;
    session_reset(&s);
    snapshot a = snap_at(0.0, 0, 0, 0);
    session_update(&s, &f.sc, &a);
    a = snap_at(1.0, 0, 100, 0);
    a.paused = true;
    session_update(&s, &f.sc, &a);
    a = snap_at(0.5, 0, 5, 0); // elapsed went back without session_new_run: a new run
    session_update(&s, &f.sc, &a);
    const mode_span *e = find(s, "epoll");
    REQUIRE(e);
    CHECK(e->span.seconds == 0);
    CHECK(e->span.roles[LESSON_ROLE_CLIENT].requests == 100);
}

TEST_CASE("session: a run's first snapshot is growth from zero, not a base")
{
    // A one-shot program that made its calls before the run's first sample: they are its
    // mode's, as the counter page started at zero with the run.
    Fixture f;
    static session s;
    session_reset(&s);
    snapshot a = snap_at(0.05, 0, 3, 2);
    a.seq = 1;
    session_update(&s, &f.sc, &a);
    const mode_span *e = find(s, "epoll");
    REQUIRE(e);
    CHECK(e->span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 2);
    CHECK(e->span.roles[LESSON_ROLE_CLIENT].requests == 3);
    CHECK(e->span.seconds == Approx(0.05)); // the mode ran from the run's start to the sample

    // A grader that joins a run later (its first snapshot is not the run's first) only takes
    // the base, as before.
    static session late;
    session_reset(&late);
    a = snap_at(3.0, 0, 300, 4);
    a.seq = 30;
    session_update(&late, &f.sc, &a);
    const mode_span *l = find(late, "epoll");
    CHECK((l == nullptr || l->span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 0));
}
