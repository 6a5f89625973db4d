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
