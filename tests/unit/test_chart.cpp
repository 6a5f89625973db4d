// The chart's geometry as a pure function: columns in order inside the plot, log spacing, a nice
// y axis from zero, rows inside the plot, and the crossings a sweep view names.
#include <catch2/catch.hpp>

extern "C" {
#include "ui/chart.h"
}

#include <cmath>

TEST_CASE("nice numbers are 1, 2 or 5 times a power of ten")
{
    CHECK(chart_nice(0) == 1);
    CHECK(chart_nice(0.7) == Approx(1));
    CHECK(chart_nice(1) == Approx(1));
    CHECK(chart_nice(1.2) == Approx(2));
    CHECK(chart_nice(3) == Approx(5));
    CHECK(chart_nice(9671) == Approx(10000));
    CHECK(chart_nice(2.2e9) == Approx(5e9));
}

TEST_CASE("a chart fits its rectangle at the smallest and a large terminal")
{
    const double xs[] = {8, 64, 512, 4096, 8192, 65536};
    for (auto [w, h] : {std::pair{50, 19}, std::pair{110, 43}}) {
        INFO(w << "x" << h);
        chart_geom g;
        chart_compute(&g, 30, 2, w, h, xs, 6, true, 3.1e9, 7);
        REQUIRE(g.ok);
        CHECK(g.plot_x > 30 + 7);
        CHECK(g.plot_x + g.plot_w <= 30 + w);
        CHECK(g.plot_y > 2);
        CHECK(g.axis_row + 1 < 2 + h); // the x labels' row is inside too
        CHECK(g.ymax == Approx(5e9));
        for (size_t i = 0; i < 6; i++) {
            CHECK(g.xcol[i] >= g.plot_x);
            CHECK(g.xcol[i] < g.plot_x + g.plot_w);
            if (i)
                CHECK(g.xcol[i] > g.xcol[i - 1]);
        }
        CHECK(g.xcol[0] == g.plot_x);
        CHECK(g.xcol[5] == g.plot_x + g.plot_w - 1);
        // Log scale: 8 -> 64 and 512 -> 4096 are the same factor, so the same distance.
        CHECK(std::abs((g.xcol[1] - g.xcol[0]) - (g.xcol[3] - g.xcol[2])) <= 1);
        // 0 at the bottom row, ymax at the top, ticks bottom first and inside.
        CHECK(chart_row(&g, 0) == g.plot_y + g.plot_h - 1);
        CHECK(chart_row(&g, g.ymax) == g.plot_y);
        CHECK(chart_row(&g, 10 * g.ymax) == g.plot_y);
        CHECK(chart_row(&g, -5) == g.plot_y + g.plot_h - 1);
        REQUIRE(g.nticks >= 2);
        CHECK(g.tick_v[0] == 0);
        CHECK(g.tick_v[g.nticks - 1] == Approx(g.ymax));
        for (size_t k = 1; k < g.nticks; k++)
            CHECK(g.tick_row[k] < g.tick_row[k - 1]);
    }
}

TEST_CASE("linear x spacing is proportional, a rectangle too small says so")
{
    const double xs[] = {1, 3, 5};
    chart_geom g;
    chart_compute(&g, 0, 0, 43, 10, xs, 3, false, 10, 3);
    REQUIRE(g.ok);
    CHECK(std::abs((g.xcol[1] - g.xcol[0]) - (g.xcol[2] - g.xcol[1])) <= 1);
    chart_compute(&g, 0, 0, 8, 4, xs, 3, false, 10, 3);
    CHECK_FALSE(g.ok);
}

TEST_CASE("crossings are found where two series swap order, skipping holes")
{
    const double flat[] = {1000, 1000, 1000, 1000, 1000};
    const double grow[] = {100, 300, 500, 3000, 10000};
    const bool have[] = {true, true, false, true, true};
    chart_series a = {flat, nullptr}, b = {grow, have};
    size_t at[4];
    REQUIRE(chart_crossings(&a, &b, 5, at, 4) == 1);
    CHECK(at[0] == 1); // between the second value and the next measured one
    chart_series c = {grow, nullptr};
    CHECK(chart_crossings(&c, &c, 5, at, 4) == 0);
    CHECK(chart_ymax(&b, 1, 5) == 10000);
}

TEST_CASE("a crossover is named only when the points change order once beyond the noise")
{
    size_t from = 99, to = 99;
    bool a_after = false;
    // One clean change: a behind at the small values, ahead from the fourth on.
    const double rising[] = {100, 300, 500, 3000, 10000};
    const double flat[] = {1000, 1000, 1000, 1000, 1000};
    chart_series up = {rising, nullptr}, level = {flat, nullptr};
    CHECK(chart_crossover(&up, &level, 5, CHART_NOISE_SHARE, &from, &to, &a_after) ==
          CHART_OVERTAKES);
    CHECK(from == 2);
    CHECK(to == 3);
    CHECK(a_after);
    // The same from the other side.
    CHECK(chart_crossover(&level, &up, 5, CHART_NOISE_SHARE, &from, &to, &a_after) ==
          CHART_OVERTAKES);
    CHECK_FALSE(a_after);

    // Noise: the order flips three times (as two copies of one speed do on a busy machine), so
    // no place can be named, whatever the one-run differences.
    const double rw[] = {3.9, 4.7, 2.9, 4.5, 1.5, 1.8};
    const double sf[] = {7.5, 4.1, 4.0, 2.2, 2.2, 2.4};
    chart_series a = {rw, nullptr}, b = {sf, nullptr};
    CHECK(chart_crossover(&a, &b, 6, CHART_NOISE_SHARE, &from, &to, &a_after) == CHART_NOISE);

    // Differences within a tenth are ties: a lead of 5% that changes hands is no crossing...
    const double near_a[] = {100, 104, 96, 103};
    const double near_b[] = {100, 100, 100, 100};
    chart_series na = {near_a, nullptr}, nb = {near_b, nullptr};
    CHECK(chart_crossover(&na, &nb, 4, CHART_NOISE_SHARE, &from, &to, &a_after) ==
          CHART_SAME_ORDER);
    // ...and ties between two clear leads do not hide the one change: it is named between the
    // last value where the old leader was clearly ahead and the first where the other one is.
    const double tie_mid[] = {50, 98, 101, 150};
    chart_series tm = {tie_mid, nullptr};
    CHECK(chart_crossover(&tm, &nb, 4, CHART_NOISE_SHARE, &from, &to, &a_after) == CHART_OVERTAKES);
    CHECK(from == 0);
    CHECK(to == 3);

    // A hole is skipped, not read as a tie or a change.
    const bool have[] = {true, false, true, true, true};
    const double holed[] = {100, 99999, 500, 3000, 10000};
    chart_series h = {holed, have};
    CHECK(chart_crossover(&h, &level, 5, CHART_NOISE_SHARE, &from, &to, &a_after) ==
          CHART_OVERTAKES);
    CHECK(from == 2);
}

TEST_CASE("a y axis over figures that span more than twenty times is logarithmic")
{
    // mmap's copies near 0.1 GB/s beside 20 GB/s: from zero, they would lie on the bottom row.
    const double fast[] = {2e10, 1.5e10, 1.2e10};
    const double slow[] = {1e8, 1.5e8, 2e8};
    chart_series s[] = {{fast, nullptr}, {slow, nullptr}};
    REQUIRE(chart_wants_log_y(s, 2, 3));
    CHECK(chart_ymin(s, 2, 3) == Approx(1e8));
    const double xs[] = {4096, 65536, 1048576};
    chart_geom g;
    chart_compute(&g, 0, 0, 48, 14, xs, 3, true, 2e10, 7);
    REQUIRE(g.ok);
    chart_log_y(&g, 1e8, 2e10);
    CHECK(g.log_y);
    CHECK(g.ymin == Approx(1e8));
    CHECK(g.ymax == Approx(2e10)); // the nice number at the top figure, not the next decade
    // Every power of ten that fits is a tick, bottom first, each on its own row.
    REQUIRE(g.nticks >= 2);
    CHECK(g.tick_v[0] == Approx(1e8));
    for (size_t k = 1; k < g.nticks; k++)
        CHECK(g.tick_row[k] < g.tick_row[k - 1]);
    // The slow series stands off the bottom row: 1e8 is the bottom, 2e8 a row or more above.
    CHECK(chart_row(&g, 1e8) == g.plot_y + g.plot_h - 1);
    CHECK(chart_row(&g, 2e8) < chart_row(&g, 1e8));
    CHECK(chart_row(&g, 2e10) < chart_row(&g, 2e8));
    CHECK(chart_row(&g, 0) == g.plot_y + g.plot_h - 1);

    // Within a factor of twenty the axis stays linear from zero.
    const double close_a[] = {4e9, 5e9}, close_b[] = {1.5e9, 2e9};
    chart_series c[] = {{close_a, nullptr}, {close_b, nullptr}};
    CHECK_FALSE(chart_wants_log_y(c, 2, 2));
}

TEST_CASE("chart: a latency of a run that answered nothing is no point, other figures are")
{
    // The figure table gives such a run a latency made of its waits alone (the run's length):
    // its cell and its outcomes keep it, the chart leaves it out.
    CHECK_FALSE(chart_point_drawn(true, true, 0));
    CHECK(chart_point_drawn(true, true, 1));
    CHECK(chart_point_drawn(true, false, 0));
    CHECK_FALSE(chart_point_drawn(false, false, 10));
}
