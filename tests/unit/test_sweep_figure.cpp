// A sweep point's y value is its figure computed over the point's span by the figure table
// (metrics/figure.h): for every figure a sweep can name it equals the point's own figure of that
// name, and it is undefined where a chart has nothing to draw.
#include <catch2/catch.hpp>
#include <string>

extern "C" {
#include "engine/sweeprun.h"
#include "metrics/figure.h"
}

namespace
{

// The point's own figure a sweep figure is drawn from: its kept figure of that id.
double field(const sweep_point &p, figure_id f)
{
    return p.has[f] ? p.fig[f] : -1;
}

} // namespace

TEST_CASE("sweep point: the y value of every sweep figure comes from the figure table")
{
    static snapshot a, b;
    a = snapshot{};
    b = snapshot{};
    a.elapsed_s = 1;
    b.elapsed_s = 3;
    a.roles[LESSON_ROLE_CLIENT].requests = 100;
    b.roles[LESSON_ROLE_CLIENT].requests = 2100;
    b.roles[LESSON_ROLE_CLIENT].app_bytes = 4096 * 2000;
    b.roles[LESSON_ROLE_SERVER].calls_total = 6000;
    b.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ].count = 5000;
    b.roles[LESSON_ROLE_SERVER].syscr = 1000;
    b.roles[LESSON_ROLE_SERVER].ctx_voluntary = 300;
    b.roles[LESSON_ROLE_CLIENT].ctx_involuntary = 100;
    b.roles[LESSON_ROLE_CLIENT].cpu_user_s = 0.5;
    b.latency_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(1000000)] = 2000;
    lesson_sweep sw = {};
    sw.role = LESSON_ROLE_SERVER;
    sw.call = IOLAB_CALL_READ;
    size_t n = 0;
    for (size_t i = 0; i < figure_count(); i++) {
        const figure_def *d = figure_at(static_cast<figure_id>(i));
        if (!(d->where & FIGURE_IN_SWEEP))
            continue;
        INFO(d->name);
        sw.figure = static_cast<figure_id>(i);
        sweep_point p = {};
        sweep_point_measure(&sw, &a, &b, &p);
        REQUIRE(p.has_figure);
        if (sw.figure == FIGURE_ONE_CALL_PER_REQ)
            CHECK(p.figure == Approx(2.5)); // 5000 reads over 2000 requests
        else
            CHECK(p.figure == Approx(field(p, sw.figure)));
        n++;
    }
    CHECK(n == 10);
}

TEST_CASE("sweep point: no y value where there is nothing to draw, the point's figures kept")
{
    static snapshot a, b;
    a = snapshot{};
    b = snapshot{};
    b.elapsed_s = 2;
    // Nothing answered, 5 clients waiting for a second: the point's p99 says so (the table's
    // latency counts the waiting; the chart leaves such a point out, chart_point_drawn), and
    // there is no size of reads (no read) and no ratio over requests.
    b.in_flight_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(1000000000)] = 5;
    b.roles[LESSON_ROLE_CLIENT].waiting = 5;
    lesson_sweep sw = {};
    sw.role = LESSON_ROLE_SERVER;
    sweep_point p = {};
    for (figure_id f : {FIGURE_BYTES_PER_SYSCR, FIGURE_ALL_CALLS_PER_REQ}) {
        sw.figure = f;
        sweep_point_measure(&sw, &a, &b, &p);
        INFO(figure_at(f)->name);
        CHECK_FALSE(p.has_figure);
    }
    for (figure_id f : {FIGURE_P50_MS, FIGURE_P99_MS}) {
        sw.figure = f;
        sweep_point_measure(&sw, &a, &b, &p);
        INFO(figure_at(f)->name);
        CHECK(p.has_figure);
        CHECK(p.figure > 500);
    }
    CHECK(p.fig[FIGURE_P99_MS] > 500);
    // Throughput is a figure even at zero.
    sw.figure = FIGURE_REQUESTS_PER_S;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.has_figure);
    CHECK(p.figure == 0);
}
