// What the grader measured of each mode (its session's span of the mode) read by a step's
// expected outcomes and predictions through the figure table, snapshot by snapshot as a run
// publishes them: the requests still waiting count as long as they waited in the mode, not one
// tick, and the figures survive a restart.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

extern "C" {
#include "grade/expect.h"
#include "grade/prediction.h"
#include "grade/session.h"
}

namespace
{

struct Fixture {
    lesson_mode modes[2] = {};
    lesson_scenario sc = {};
    Fixture()
    {
        modes[0].id = (char *)"iterative";
        modes[1].id = (char *)"epoll";
        sc.modes = modes;
        sc.nmodes = 2;
    }
};

// A snapshot at t seconds into a run, in mode `mode`: the client's cumulative answered requests
// (each in about 50 us) and `waiting` requests unanswered for `age` seconds.
snapshot *snap_at(double t, int mode, uint64_t answered, uint64_t waiting = 0, double age = 0)
{
    static snapshot s; // large: keep it off the stack
    static uint64_t seq;
    memset(&s, 0, sizeof s);
    s.seq = ++seq;
    s.elapsed_s = t;
    s.mode = mode;
    s.mode_running = true;
    s.roles[LESSON_ROLE_CLIENT].requests = answered;
    s.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ].count = 2 * answered;
    s.latency_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(50000)] = answered;
    if (waiting)
        s.in_flight_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket((uint64_t)(age * 1e9))] = waiting;
    return &s;
}

lesson_expect compare(figure_id fig, lesson_cmp op)
{
    lesson_expect e = {};
    e.text = (char *)"iterative keeps clients waiting";
    e.left = {0, fig, 0, LESSON_ROLE_SERVER};
    e.right = {1, fig, 0, LESSON_ROLE_SERVER};
    e.has_right = true;
    e.op = op;
    return e;
}

} // namespace

TEST_CASE("mode span: an outcome's p99 counts the clients left waiting for seconds, tick by tick")
{
    Fixture f;
    static session s;
    session_reset(&s);
    // Iterative for 3 s in ticks of 0.1 s: it answers one client (100 requests a tick) while
    // seven others wait from the start; then epoll for 3 s, answering everyone.
    double t = 0;
    uint64_t answered = 0;
    for (int i = 0; i <= 30; i++, t += 0.1, answered += 100)
        session_update(&s, &f.sc, snap_at(t, 0, answered, 7, t));
    for (int i = 0; i <= 30; i++, t += 0.1, answered += 1000)
        session_update(&s, &f.sc, snap_at(t, 1, answered));
    lesson_expect e = compare(FIGURE_P99_MS, LESSON_CMP_GT);
    expect_verdict v = expect_judge(&f.sc, &e, s.modes, s.nmodes);
    REQUIRE(v.state == EXPECT_AGREES);
    CHECK(v.left > 1000); // ms: the seven waited about 3 s, not one tick's 0.1 s
    CHECK(v.right < 0.07);
    char buf[512];
    expect_describe(&f.sc, &e, &v, nullptr, buf, sizeof buf);
    std::string said = buf;
    INFO(said);
    CHECK(said.rfind("iterative p99 latency ", 0) == 0);
    CHECK(said.find(" s > epoll p99 latency ") != std::string::npos);

    // A restart: the new run's totals start from zero; the mode's figures go on.
    session_new_run(&s);
    double before = 0;
    lesson_expect_side side = {1, FIGURE_REQUESTS_PER_S, 0, LESSON_ROLE_SERVER};
    REQUIRE(expect_figure(&f.sc, &side, s.modes, s.nmodes, &before));
    CHECK(before == Approx(10000).epsilon(0.05));
    session_update(&s, &f.sc, snap_at(0.1, 1, 0));
    session_update(&s, &f.sc, snap_at(3.1, 1, 3000));
    double after = 0;
    REQUIRE(expect_figure(&f.sc, &side, s.modes, s.nmodes, &after));
    CHECK(after < before / 1.5); // 3,000 more requests in 3 more seconds
    // A prediction reads the same figure: read() calls per request, 2 in every mode.
    lesson_predict p = {};
    p.kind = LESSON_PREDICT_NUMBER;
    p.figure = {1, FIGURE_ONE_CALL_PER_REQ, IOLAB_CALL_READ, LESSON_ROLE_SERVER};
    p.tolerance = 0.1;
    prediction a = {true, 2, -1};
    prediction_verdict pv = prediction_judge(&f.sc, &p, &a, s.modes, s.nmodes);
    CHECK(pv.state == EXPECT_AGREES);
    CHECK(pv.measured == Approx(2));
}

TEST_CASE("mode span: the requests waiting are the mode's last running snapshot's")
{
    Fixture f;
    static session s;
    session_reset(&s);
    session_update(&s, &f.sc, snap_at(0.0, 0, 0, 3, 0.0));
    session_update(&s, &f.sc, snap_at(2.0, 0, 100, 3, 2.0));
    // Switching away: the mode's server is down, nothing more is credited to it, and what it
    // left waiting when it last ran stays.
    snapshot *sw = snap_at(2.1, 0, 100, 0);
    sw->mode_running = false;
    session_update(&s, &f.sc, sw);
    const span *sp = nullptr;
    for (size_t i = 0; i < s.nmodes; i++)
        if (s.modes[i].mode == 0)
            sp = &s.modes[i].span;
    REQUIRE(sp);
    CHECK(sp->seconds == Approx(2.0));
    uint64_t waiting = 0, old = 0;
    for (unsigned k = 0; k < IOLAB_HIST_BUCKETS; k++) {
        waiting += sp->waits[k];
        if (k >= iolab_hist_bucket(1000000000ull))
            old += sp->waits[k];
    }
    CHECK(waiting == 3);
    CHECK(old == 3); // waited 2 s: more than a second, at most the mode's 2 s
}
