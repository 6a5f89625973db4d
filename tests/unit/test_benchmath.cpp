// iolab bench's arithmetic on recorded inputs: medians that skip rounds with nothing measured,
// and ratios that are the median of per-round ratios (not the ratio of the medians).
#include <catch2/catch.hpp>

extern "C" {
#include "engine/benchmath.h"
}

#include <cmath>

TEST_CASE("median, min and max leave out rounds that measured nothing")
{
    const double v[] = {3, NAN, 1, 2, 10};
    benchmath_summary s;
    benchmath_summarize(v, 5, &s);
    CHECK(s.n == 4);
    CHECK(s.median == Approx(2.5));
    CHECK(s.min == 1);
    CHECK(s.max == 10);
    const double none[] = {NAN, NAN};
    benchmath_summarize(none, 2, &s);
    CHECK(s.n == 0);
    CHECK(std::isnan(s.median));
    CHECK(benchmath_median(v, 1) == 3);
}

TEST_CASE("the ratio is the median of the rounds' ratios")
{
    // A machine that slowed down in round 3: both modes fell, the round's ratio did not.
    const double base[] = {100, 110, 50, 105};
    const double mode[] = {200, 220, 100, 160};
    // per round: 2, 2, 2, 1.524 -> median 2; the ratio of the medians would be 180/102.5.
    CHECK(benchmath_ratio(mode, base, 4) == Approx(2));
    const double holes[] = {NAN, 220, 100, NAN};
    CHECK(benchmath_ratio(holes, base, 4) == Approx(2));
    const double zero[] = {0, 0, 0, 0};
    CHECK(std::isnan(benchmath_ratio(mode, zero, 4)));
    CHECK(benchmath_differs(1.94, 1.2, 0.2));
    CHECK_FALSE(benchmath_differs(1.94, 1.8, 0.2));
    CHECK_FALSE(benchmath_differs(NAN, 1, 0.2));
}
