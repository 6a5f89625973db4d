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

// The point's own figure a sweep figure is drawn from.
double field(const sweep_point &p, figure_id f)
{
    switch (f) {
    case FIGURE_REQUESTS_PER_S:
        return p.requests_per_s;
    case FIGURE_BYTES_PER_S:
        return p.bytes_per_s;
    case FIGURE_CALLS_PER_REQ:
        return p.calls_per_request;
    case FIGURE_SYSCR_PER_REQ:
        return p.syscr_per_request;
    case FIGURE_BYTES_PER_SYSCR:
        return p.bytes_per_syscr;
    case FIGURE_CTX_PER_REQ:
        return p.ctx_per_request;
    case FIGURE_CPU_PCT:
        return p.cpu_pct;
    case FIGURE_P50_MS:
        return p.p50_ms;
    case FIGURE_P99_MS:
        return p.p99_ms;
    default:
        return -1;
    }
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
        if (sw.figure == FIGURE_CALL_PER_REQ)
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
    // Nothing answered, 5 clients waiting for a second: the point's p99 says so, the chart
    // draws no latency (no request answered) and no size of reads (no read).
    b.in_flight_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(1000000000)] = 5;
    b.roles[LESSON_ROLE_CLIENT].waiting = 5;
    lesson_sweep sw = {};
    sw.role = LESSON_ROLE_SERVER;
    sweep_point p = {};
    for (figure_id f :
         {FIGURE_P50_MS, FIGURE_P99_MS, FIGURE_BYTES_PER_SYSCR, FIGURE_CALLS_PER_REQ}) {
        sw.figure = f;
        sweep_point_measure(&sw, &a, &b, &p);
        INFO(figure_at(f)->name);
        CHECK_FALSE(p.has_figure);
    }
    CHECK(p.p99_ms > 500);
    // Throughput is a figure even at zero.
    sw.figure = FIGURE_REQUESTS_PER_S;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.has_figure);
    CHECK(p.figure == 0);
}
