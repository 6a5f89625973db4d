// The text pane's rows shared between a step's text and what stands under it, and the checks'
// rows there: a task passes by in three presses of j whatever the foot wants, a build error
// takes the pane, the "more" hint never covers a word, failing checks come whole first, holding
// ones fold, checks not judged never fold into the holding row.
#include <catch2/catch.hpp>

extern "C" {
#include "ui/footrows.h"
}

#include <vector>

// What a reader sees of a text of n rows in `rows` rows after `presses` of j, when the more hint
// takes a row of its own while there is more.
static int seen_after(int n, int rows, int presses)
{
    int shown = rows < n ? rows - 1 : rows;
    int top = 0;
    for (int i = 0; i < presses; i++) {
        top += footrows_page(shown);
        if (top > (n > shown ? n - shown : 0))
            top = n > shown ? n - shown : 0;
    }
    return top + shown < n ? top + shown : n;
}

TEST_CASE("footrows: the text keeps the rows to pass by in three presses of j")
{
    for (int n = 0; n <= 120; n++) {
        int need = footrows_text_need(n);
        INFO("text of " << n << " rows, " << need << " kept");
        CHECK(need <= (n > 3 ? n : 3));
        CHECK(seen_after(n, need, FOOTROWS_TEXT_PRESSES) == n);
    }
    // At 80x24 an exercise's text pane has 19 rows inside its box.
    for (int n = 1; n <= 60; n++)
        for (int want = 0; want <= 40; want++) {
            int foot = footrows_split(19, n, want, 4, false);
            INFO("text " << n << ", foot wants " << want << ", gets " << foot);
            CHECK(foot >= 0);
            CHECK(foot <= want);
            CHECK(foot <= 19);
            if (n + want <= 19)
                CHECK(foot == want); // both fit: all of it
            else if (footrows_text_need(n) + 4 <= 19)
                CHECK(seen_after(n, 19 - foot, FOOTROWS_TEXT_PRESSES) == n);
        }
}

TEST_CASE("footrows: a build error's messages take the pane but two rows of the text")
{
    CHECK(footrows_split(19, 40, 30, 1, true) == 17);
    CHECK(footrows_split(19, 40, 30, 1, false) == 19 - footrows_text_need(40));
    CHECK(footrows_split(19, 3, 10, 1, true) == 10); // both fit
    CHECK(footrows_split(0, 3, 10, 1, true) == 0);
}

TEST_CASE("footrows: the foot's least rows stay while the pane has them")
{
    // A text that needs most of the pane still leaves the foot its heading and first check.
    CHECK(footrows_split(19, 200, 12, 5, false) == 5);
    CHECK(footrows_split(4, 200, 12, 5, false) == 4);
    CHECK(footrows_split(19, 200, 3, 5, false) == 3); // never more than it wants
}

TEST_CASE("footrows: the more hint takes a row of its own rather than cover a word")
{
    CHECK(footrows_more_fits(20, 9, 36));
    CHECK(footrows_more_fits(26, 9, 36)); // 26 + space + 9 = 36
    CHECK_FALSE(footrows_more_fits(27, 9, 36));
    CHECK_FALSE(footrows_more_fits(36, 9, 36));
}

namespace
{

std::vector<footrows_check> checks(std::initializer_list<std::pair<footrows_state, int>> l)
{
    std::vector<footrows_check> v;
    for (auto &p : l)
        v.push_back(footrows_check{p.first, p.second, -1});
    return v;
}

int sum(const std::vector<footrows_check> &v)
{
    int s = 0;
    for (auto &c : v)
        s += c.rows;
    return s;
}

} // namespace

TEST_CASE("footrows: every failing check whole when they fit, holding ones on one row")
{
    auto v = checks({{FOOTROWS_FAIL, 6},
                     {FOOTROWS_FAIL, 5},
                     {FOOTROWS_PASS, 1},
                     {FOOTROWS_PASS, 1},
                     {FOOTROWS_PASS, 1}});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 20, false, &p);
    CHECK(v[0].rows == 6);
    CHECK(v[1].rows == 5);
    CHECK(p.fold);
    CHECK(p.npass == 3);
    CHECK(v[2].rows == 1); // the fold row, on the first holding check
    CHECK(v[3].rows == 0);
    CHECK(v[4].rows == 0);
    CHECK(p.rows == 1 + 6 + 5 + 1);
    CHECK_FALSE(p.cut);
    CHECK(p.left == 0);

    // Opened, each holding check takes its row.
    footrows_checks(v.data(), v.size(), 20, true, &p);
    CHECK_FALSE(p.fold);
    CHECK(v[2].rows == 1);
    CHECK(v[3].rows == 1);
    CHECK(v[4].rows == 1);
    CHECK(p.rows == 1 + 6 + 5 + 3);
}

TEST_CASE("footrows: short of room, the first failing check is whole before the next one's "
          "sentence, and each keeps its name's row")
{
    auto v = checks({{FOOTROWS_FAIL, 8}, {FOOTROWS_FAIL, 7}, {FOOTROWS_PASS, 1}});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 12, false, &p);
    CHECK(v[0].rows == 8);
    CHECK(v[1].rows == 2);
    CHECK(v[2].rows == 1);
    CHECK(p.rows == 12);
    CHECK(p.cut);
    CHECK(p.left == 0);
}

TEST_CASE("footrows: checks not judged never fold into the holding row, and short of room they "
          "share a row of their own after every sentence")
{
    // The tinyfile starter: one failing check, eight not judged.
    std::vector<footrows_check> v = checks({{FOOTROWS_FAIL, 9}});
    for (int i = 0; i < 8; i++)
        v.push_back(footrows_check{FOOTROWS_UNJUDGED, 1, -1});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 12, false, &p);
    CHECK(v[0].rows == 9); // the advice whole
    CHECK(p.ufold);
    CHECK(v[1].rows == 1);
    CHECK(sum(v) == 10);
    CHECK(p.rows == 11);
    CHECK_FALSE(p.fold);
    CHECK(p.npass == 0);

    // With room, each has its row.
    footrows_checks(v.data(), v.size(), 30, false, &p);
    CHECK_FALSE(p.ufold);
    for (size_t i = 1; i < v.size(); i++)
        CHECK(v[i].rows == 1);
    CHECK(p.rows == 1 + 9 + 8);

    // Holding and not judged side by side: two rows, never one.
    auto w = checks({{FOOTROWS_UNJUDGED, 1}, {FOOTROWS_PASS, 1}, {FOOTROWS_PASS, 1}});
    footrows_checks(w.data(), w.size(), 10, false, &p);
    CHECK(w[0].rows == 1);
    CHECK(w[1].rows == 1);
    CHECK(p.fold);
    CHECK(p.rows == 3);
}

TEST_CASE("footrows: when not even a row each fits, the last row counts what is left out")
{
    auto v = checks({{FOOTROWS_FAIL, 5},
                     {FOOTROWS_FAIL, 5},
                     {FOOTROWS_OPEN, 2},
                     {FOOTROWS_UNJUDGED, 1},
                     {FOOTROWS_PASS, 1},
                     {FOOTROWS_PASS, 1}});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 4, false, &p);
    // The heading, the first failing name and a row of its advice, and the row that counts
    // the others.
    CHECK(v[0].rows == 2);
    CHECK(v[1].rows == 0);
    CHECK(v[2].rows == 0);
    CHECK(p.left == 5);
    CHECK(p.rows == 4);
    CHECK(p.cut);
    // Twenty failing checks in seven rows (chat at 80x24): the first with three rows of its
    // advice, the second's name, and the count of the rest.
    std::vector<footrows_check> many;
    for (int i = 0; i < 20; i++)
        many.push_back(footrows_check{FOOTROWS_FAIL, 6, -1});
    footrows_checks(many.data(), many.size(), 7, false, &p);
    CHECK(many[0].rows == 4);
    CHECK(many[1].rows == 1);
    CHECK(many[2].rows == 0);
    CHECK(p.left == 18);
    CHECK(p.rows == 7);
    // Two rows: the heading and the first failing check's name, nothing to count the rest on.
    footrows_checks(v.data(), v.size(), 2, false, &p);
    CHECK(v[0].rows == 1);
    CHECK(v[1].rows == 0);
    CHECK(p.rows == 2);
    CHECK(p.left == 5);
    footrows_checks(v.data(), v.size(), 0, false, &p);
    CHECK(p.rows == 0);
    CHECK(sum(v) == 0);
}

TEST_CASE("footrows: with every check holding, each has its row when they fit, else one row")
{
    auto v = checks({{FOOTROWS_PASS, 1}, {FOOTROWS_PASS, 1}, {FOOTROWS_PASS, 1}});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 10, false, &p);
    CHECK_FALSE(p.fold);
    CHECK(sum(v) == 3);
    CHECK(p.rows == 4);
    footrows_checks(v.data(), v.size(), 3, false, &p);
    CHECK(p.fold);
    CHECK(sum(v) == 1);
    CHECK(p.rows == 2);
}

TEST_CASE("footrows: opened, a holding check's name and figure wrap when the rows are there")
{
    auto v = checks({{FOOTROWS_PASS, 2}, {FOOTROWS_PASS, 3}});
    footrows_plan p;
    footrows_checks(v.data(), v.size(), 10, true, &p);
    CHECK(v[0].rows == 2);
    CHECK(v[1].rows == 3);
    CHECK(p.rows == 6);
    footrows_checks(v.data(), v.size(), 4, true, &p);
    CHECK(v[0].rows == 2);
    CHECK(v[1].rows == 1);
    CHECK(p.rows == 4);
}
