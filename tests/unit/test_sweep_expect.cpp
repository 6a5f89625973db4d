// A sweep read by a learner, without processes: its title in words (sweep_title), an expected
// outcome's figure taken from a sweep's point (sweep_point_expect_figure), an outcome judged on
// such a source (expect_judge_with), and the outcome's why at the end of a differing verdict.
#include <catch2/catch.hpp>

extern "C" {
#include "engine/sweeprun.h"
#include "grade/expect.h"
#include "lesson/lesson.h"
#include "lesson/sweep.h"
}

#include <string>

namespace
{

struct lesson_sweep sweep_of(enum figure_id f, const char *param)
{
    struct lesson_sweep sw = {};
    sw.param = const_cast<char *>(param);
    sw.figure = f;
    sw.role = LESSON_ROLE_SERVER;
    return sw;
}

// Two points a side reads from: index 0 is mode 0's, index 1 mode 1's.
bool two_points(void *data, const struct lesson_expect_side *side, double *out)
{
    const double *v = static_cast<const double *>(data);
    if (side->mode < 0 || side->mode > 1)
        return false;
    *out = v[side->mode];
    return true;
}

} // namespace

TEST_CASE("sweep_title: the figure and the parameter in words, never a key or braces")
{
    char buf[128];
    struct lesson_sweep sw = sweep_of(FIGURE_REQUESTS_PER_S, "connections");
    CHECK(std::string(sweep_title(&sw, buf, sizeof buf)) == "requests/s by connections");
    sw = sweep_of(FIGURE_BYTES_PER_SYSCR, "size");
    CHECK(std::string(sweep_title(&sw, buf, sizeof buf)) == "bytes per read call by size");
    sw = sweep_of(FIGURE_P99_MS, "n");
    CHECK(std::string(sweep_title(&sw, buf, sizeof buf)) == "p99 latency by n");
}

TEST_CASE("sweep_point_expect_figure: a measured point's figures, per request only with requests")
{
    struct lesson_sweep sw = sweep_of(FIGURE_REQUESTS_PER_S, "n");
    struct sweep_point p = {};
    p.measured = true;
    p.seconds = 0.1;
    p.requests = 100;
    p.fig[FIGURE_REQUESTS_PER_S] = 1000;
    p.fig[FIGURE_CTX_PER_REQ] = 2.5;
    p.fig[FIGURE_P99_MS] = 1.5;
    p.fig[FIGURE_ALL_CALLS_PER_REQ] = 3;
    p.has[FIGURE_REQUESTS_PER_S] = p.has[FIGURE_CTX_PER_REQ] = p.has[FIGURE_P99_MS] =
        p.has[FIGURE_ALL_CALLS_PER_REQ] = true;
    struct lesson_expect_side side = {0, FIGURE_REQUESTS_PER_S, 0, LESSON_ROLE_SERVER};
    double v = 0;
    REQUIRE(sweep_point_expect_figure(&sw, &p, &side, &v));
    CHECK(v == 1000);
    side.figure = FIGURE_CTX_PER_REQ;
    REQUIRE(sweep_point_expect_figure(&sw, &p, &side, &v));
    CHECK(v == 2.5);
    side.figure = FIGURE_P99_MS;
    REQUIRE(sweep_point_expect_figure(&sw, &p, &side, &v));
    CHECK(v == 1.5);
    // A point counts the sweep's role's calls only, and one call only when it is the figure.
    side.figure = FIGURE_ALL_CALLS_PER_REQ;
    side.role = LESSON_ROLE_CLIENT;
    CHECK_FALSE(sweep_point_expect_figure(&sw, &p, &side, &v));
    side.role = LESSON_ROLE_SERVER;
    REQUIRE(sweep_point_expect_figure(&sw, &p, &side, &v));
    CHECK(v == 3);
    side.figure = FIGURE_ONE_CALL_PER_REQ;
    CHECK_FALSE(sweep_point_expect_figure(&sw, &p, &side, &v));
    // Without requests, nothing per request (the table left it undefined when the point was
    // measured); a point whose program died, nothing at all.
    p.requests = 0;
    p.has[FIGURE_CTX_PER_REQ] = false;
    side.figure = FIGURE_CTX_PER_REQ;
    CHECK_FALSE(sweep_point_expect_figure(&sw, &p, &side, &v));
    p.measured = false;
    side.figure = FIGURE_REQUESTS_PER_S;
    CHECK_FALSE(sweep_point_expect_figure(&sw, &p, &side, &v));
}

TEST_CASE("expect_judge_with: the comparison on another source, and the why when it differs")
{
    struct lesson_mode modes[2] = {};
    modes[0].id = const_cast<char *>("iterative");
    modes[1].id = const_cast<char *>("fork");
    struct lesson_scenario sc = {};
    sc.modes = modes;
    sc.nmodes = 2;
    struct lesson_expect e = {};
    e.text = const_cast<char *>("iterative trails fork");
    e.why = const_cast<char *>("fork wakes a process per request");
    e.left = {1, FIGURE_REQUESTS_PER_S, 0, LESSON_ROLE_SERVER};
    e.right = {0, FIGURE_REQUESTS_PER_S, 0, LESSON_ROLE_SERVER};
    e.has_right = true;
    e.op = LESSON_CMP_GT;
    double agrees[2] = {10000, 20000}, differs[2] = {20000, 15000};
    CHECK(expect_judge_with(&e, two_points, agrees).state == EXPECT_AGREES);
    struct expect_verdict v = expect_judge_with(&e, two_points, differs);
    REQUIRE(v.state == EXPECT_DIFFERS);
    CHECK(v.left == 15000);
    CHECK(v.right == 20000);
    char buf[512];
    struct expect_context ctx = {2, 1.0, "full"};
    expect_describe(&sc, &e, &v, &ctx, buf, sizeof buf);
    std::string s = buf;
    INFO(s);
    CHECK(s.rfind("not this time: fork 15k requests/s against iterative 20k requests/s", 0) == 0);
    const std::string tail = ". Why: fork wakes a process per request";
    REQUIRE(s.size() > tail.size());
    CHECK(s.compare(s.size() - tail.size(), tail.size(), tail) == 0);
    // A side the source does not have leaves the outcome undecided.
    e.left.mode = 5;
    CHECK(expect_judge_with(&e, two_points, agrees).state == EXPECT_UNDECIDED);
}
