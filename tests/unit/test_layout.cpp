// Pane geometry as a pure function of the terminal size: every pane inside the screen, no
// overlaps, the body covered exactly, and the "too small" verdict at the documented minimum, which
// no number of programs raises: programs beyond what fits share the last pane.
#include <catch2/catch.hpp>

extern "C" {
#include "ui/layout.h"
}

static bool overlap(layout_rect a, layout_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void check_partition(const layout &l, const std::vector<layout_rect> &panes)
{
    long area = 0;
    for (size_t i = 0; i < panes.size(); i++) {
        const layout_rect &p = panes[i];
        INFO("pane " << i << " at " << p.x << "," << p.y << " " << p.w << "x" << p.h);
        CHECK(p.x >= l.body.x);
        CHECK(p.y >= l.body.y);
        CHECK(p.x + p.w <= l.body.x + l.body.w);
        CHECK(p.y + p.h <= l.body.y + l.body.h);
        CHECK(p.w >= LAYOUT_MIN_PANE_W);
        CHECK(p.h >= 3);
        area += (long)p.w * p.h;
        for (size_t j = 0; j < i; j++)
            CHECK_FALSE(overlap(p, panes[j]));
    }
    CHECK(area == (long)l.body.w * l.body.h);
}

TEST_CASE("layout: run screens partition the body at every size and program count")
{
    for (layout_kind kind : {LAYOUT_RUN, LAYOUT_RUN_VERDICT})
        for (int cols = LAYOUT_MIN_COLS; cols <= 300; cols += 7) {
            for (int rows = LAYOUT_MIN_ROWS; rows <= 120; rows += 5) {
                for (size_t n = 0; n <= LAYOUT_MAX_PROGS; n++) {
                    layout l;
                    REQUIRE(layout_compute(kind, cols, rows, n, &l) == 0);
                    INFO(cols << "x" << rows << " with " << n << " programs, kind " << kind);
                    REQUIRE_FALSE(l.too_small);
                    CHECK(l.title.y == 0);
                    CHECK(l.footer.y == rows - 1);
                    CHECK(l.status.y == rows - 2);
                    CHECK(l.body.y + l.body.h == l.status.y);
                    std::vector<layout_rect> panes = {l.text, l.counters};
                    for (size_t i = 0; i < l.nprogs; i++)
                        panes.push_back(l.progs[i]);
                    check_partition(l, panes);
                    if (n > 0) {
                        // The text column sits left of everything else, the programs above the
                        // counters.
                        CHECK(l.text.x == 0);
                        CHECK(l.progs[0].y < l.counters.y);
                        CHECK(l.text.w >= LAYOUT_MIN_TEXT_W);
                        // Every program has a pane: its own, or a share of the last one.
                        if (l.nfolded) {
                            CHECK(l.nfolded >= 2);
                            CHECK(l.progs[l.nprogs - 1].w > LAYOUT_MIN_PANE_W);
                            CHECK(l.nprogs - 1 + l.nfolded == n);
                        } else {
                            CHECK(l.nprogs == n);
                        }
                        for (size_t p = 0; p < n; p++)
                            CHECK(layout_pane_of(&l, p) < l.nprogs);
                        CHECK(layout_pane_of(&l, n) == l.nprogs);
                    }
                }
            }
        }
}

TEST_CASE("layout: start and text screens")
{
    layout l;
    REQUIRE(layout_compute(LAYOUT_START, 120, 40, 0, &l) == 0);
    check_partition(l, {l.list, l.detail});
    CHECK(l.list.x == 0);
    REQUIRE(layout_compute(LAYOUT_TEXT, 80, 24, 0, &l) == 0);
    check_partition(l, {l.text});
    CHECK(l.text.w == 80);
    CHECK(l.text.h == 21);
}

TEST_CASE("layout: below the minimum only the enlarge message is drawn")
{
    layout l;
    REQUIRE(layout_compute(LAYOUT_TEXT, LAYOUT_MIN_COLS - 1, 40, 0, &l) == 0);
    CHECK(l.too_small);
    REQUIRE(layout_compute(LAYOUT_START, 200, LAYOUT_MIN_ROWS - 1, 0, &l) == 0);
    CHECK(l.too_small);
    REQUIRE(layout_compute(LAYOUT_TEXT, 0, 0, 0, &l) == 0);
    CHECK(l.too_small);
    // Many programs never ask for more than the plain minimum: they fold.
    REQUIRE(layout_compute(LAYOUT_RUN, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, 8, &l) == 0);
    CHECK_FALSE(l.too_small);
    REQUIRE(layout_compute(LAYOUT_RUN, LAYOUT_MIN_COLS, 30, 2, &l) == 0);
    CHECK_FALSE(l.too_small);
    CHECK(layout_compute(LAYOUT_RUN, 100, 30, LAYOUT_MAX_PROGS + 1, &l) == -EINVAL);
}

TEST_CASE("layout: centred boxes fit the screen")
{
    layout_rect r = layout_center(80, 24, 60, 30);
    CHECK(r.h <= 22);
    CHECK(r.x + r.w <= 80);
    CHECK(r.y >= 0);
    CHECK(layout_contains(r, r.x, r.y));
    CHECK_FALSE(layout_contains(r, r.x + r.w, r.y));
}

TEST_CASE("layout: a failing exercise's verdict gets half the width at 80 columns")
{
    layout run, verdict;
    REQUIRE(layout_compute(LAYOUT_RUN, 80, 24, 2, &run) == 0);
    REQUIRE(layout_compute(LAYOUT_RUN_VERDICT, 80, 24, 2, &verdict) == 0);
    CHECK(run.text.w == 28);
    CHECK(verdict.text.w == 40);
    // Four programs keep their minimum width: the text gives way.
    REQUIRE(layout_compute(LAYOUT_RUN_VERDICT, 80, 24, 4, &verdict) == 0);
    CHECK(verdict.text.w == 80 - 4 * LAYOUT_MIN_PANE_W);
}

TEST_CASE("layout: chat's seven programs at 80x24 fold into the last of four panes")
{
    layout l;
    for (layout_kind kind : {LAYOUT_RUN, LAYOUT_RUN_VERDICT}) {
        REQUIRE(layout_compute(kind, 80, 24, 7, &l) == 0);
        REQUIRE_FALSE(l.too_small);
        CHECK(l.text.w == LAYOUT_MIN_TEXT_W);
        // The shared pane has room for its title's name and place ("ben 1/4").
        CHECK(l.progs[3].w > LAYOUT_MIN_PANE_W);
        CHECK(l.nprogs == 4);
        CHECK(l.nfolded == 4);
        CHECK(layout_pane_of(&l, 0) == 0);
        CHECK(layout_pane_of(&l, 2) == 2);
        CHECK(layout_pane_of(&l, 3) == 3);
        CHECK(layout_pane_of(&l, 6) == 3);
        CHECK(layout_pane_of(&l, 7) == 4);
    }
    // At 114 columns each has its own pane, none narrower than the minimum; a verdict keeps
    // half the width, and the programs share panes.
    REQUIRE(layout_compute(LAYOUT_RUN, 114, 24, 7, &l) == 0);
    CHECK(l.nprogs == 7);
    CHECK(l.nfolded == 0);
    for (size_t i = 0; i < l.nprogs; i++)
        CHECK(l.progs[i].w >= LAYOUT_MIN_PANE_W);
    REQUIRE(layout_compute(LAYOUT_RUN_VERDICT, 114, 24, 7, &l) == 0);
    CHECK(l.text.w == 57);
    CHECK(l.nprogs == 4);
    CHECK(l.nfolded == 4);
    CHECK(l.progs[3].w > LAYOUT_MIN_PANE_W);
}
