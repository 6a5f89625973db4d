// What the counters pane and the comparison choose to show, as pure functions: the calls a step
// names come first, a compact list never splits a call, the comparison's columns fit the width
// with short headers when they must, and the running mode always keeps its row.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

extern "C" {
#include "ui/cvlayout.h"
}

TEST_CASE("cvlayout_order: the named calls the role made come first, in the step's order, then "
          "the busiest")
{
    //               0    1    2    3    4    5
    uint64_t count[] = {100, 0, 8, 5000, 40, 7};
    double rate[] = {10, 0, 0, 900, 50, 0};
    unsigned watch[] = {2, 1, 5}; // call 1 was never made: not listed
    unsigned out[6];
    size_t nw = 99;
    size_t n = cvlayout_order(count, rate, 6, watch, 3, out, &nw);
    REQUIRE(n == 5);
    CHECK(nw == 2);
    CHECK(out[0] == 2);
    CHECK(out[1] == 5);
    CHECK(out[2] == 3); // then by rate
    CHECK(out[3] == 4);
    CHECK(out[4] == 0);
}

TEST_CASE("cvlayout_order: without named calls, the busiest first, ties by count")
{
    uint64_t count[] = {3, 9, 0, 1};
    double rate[] = {0, 0, 0, 2};
    unsigned out[4];
    size_t nw = 99;
    REQUIRE(cvlayout_order(count, rate, 4, nullptr, 0, out, &nw) == 3);
    CHECK(nw == 0);
    CHECK(out[0] == 3);
    CHECK(out[1] == 1);
    CHECK(out[2] == 0);
}

TEST_CASE("cvlayout_order: a call named twice or out of range is listed once or not at all")
{
    uint64_t count[] = {1, 2};
    double rate[] = {1, 2};
    unsigned watch[] = {0, 0, 7};
    unsigned out[2];
    size_t nw = 0;
    REQUIRE(cvlayout_order(count, rate, 2, watch, 3, out, &nw) == 2);
    CHECK(nw == 1);
    CHECK(out[0] == 0);
    CHECK(out[1] == 1);
}

TEST_CASE("cvlayout_pack: items fill lines in order and are never split")
{
    int w[] = {10, 10, 10, 30, 5};
    // 46 columns with 2 between: 10+2+10+2+10 = 34 fits, 30 does not join it.
    CHECK(cvlayout_pack(w, 5, 46, 2, 1) == 3);
    CHECK(cvlayout_pack(w, 5, 46, 2, 2) == 5); // 30+2+5 on the second line
    CHECK(cvlayout_pack(w, 5, 46, 2, 0) == 0);
    CHECK(cvlayout_pack_rows(w, 5, 46, 2) == 2);
    CHECK(cvlayout_pack_rows(w, 0, 46, 2) == 0);
    int wide[] = {60, 3};
    CHECK(cvlayout_pack(wide, 2, 46, 2, 1) == 1); // too wide: a line of its own
    CHECK(cvlayout_pack_rows(wide, 2, 46, 2) == 2);
}

TEST_CASE("cvlayout_compare_cols: full headers when they fit, short ones at 80 columns, names "
          "whole either way")
{
    int value_w[] = {5, 6, 4, 4, 3};
    int full[] = {10, 7, 9, 10, 9}; // requests/s bytes/s calls/req ctx sw/req cpu %core
    int brief[] = {5, 3, 6, 5, 4};  // req/s B/s call/r ctx/r cpu%
    int namew = 0, colw[5];
    // The comparison's inside at 80x24 is 46 columns; names up to read-64k-work and " *".
    CHECK(cvlayout_compare_cols(46, 16, value_w, full, brief, 5, &namew, colw));
    int sum = namew;
    for (int k = 0; k < 5; k++) {
        CHECK(colw[k] >= (value_w[k] > brief[k] ? value_w[k] : brief[k]) + 1);
        sum += colw[k];
    }
    // The names take what the figures leave: read-64k-work and its mark "*" still fit.
    CHECK(namew >= 14);
    CHECK(sum == 46);
    // A wide terminal: full headers, the room left shared by the figures.
    CHECK_FALSE(cvlayout_compare_cols(120, 16, value_w, full, brief, 5, &namew, colw));
    CHECK(namew == 16);
    for (int k = 0; k < 5; k++)
        CHECK(colw[k] >= full[k] + 1);
    // Too narrow even for short headers: the names are cut, the figures are not.
    CHECK(cvlayout_compare_cols(30, 16, value_w, full, brief, 5, &namew, colw));
    CHECK(namew < 16);
    CHECK(namew >= 1);
}

TEST_CASE("cvlayout_compare_rows: three rows a mode when they fit, then two, then one")
{
    CHECK(cvlayout_compare_rows(12, 4) == 3);
    CHECK(cvlayout_compare_rows(10, 4) == 2); // concurrency/compare at 80x24
    CHECK(cvlayout_compare_rows(10, 7) == 1); // stdio/aio at 80x24
    CHECK(cvlayout_compare_rows(0, 1) == 1);
}

TEST_CASE("cvlayout_compare_pick: the running mode keeps its row when not all fit")
{
    size_t out[8];
    REQUIRE(cvlayout_compare_pick(7, 7, 6, out) == 7);
    CHECK(out[6] == 6);
    REQUIRE(cvlayout_compare_pick(7, 3, 6, out) == 3);
    CHECK(out[0] == 0);
    CHECK(out[1] == 1);
    CHECK(out[2] == 6);
    REQUIRE(cvlayout_compare_pick(7, 3, 1, out) == 3); // already shown: nothing moves
    CHECK(out[2] == 2);
    REQUIRE(cvlayout_compare_pick(7, 3, -1, out) == 3);
    CHECK(out[2] == 2);
    CHECK(cvlayout_compare_pick(7, 0, 6, out) == 0);
}
