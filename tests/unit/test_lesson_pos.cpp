// The position index: each value's offset in document order, and line:col in characters.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

extern "C" {
#include "lesson/lesson_pos.h"
}

TEST_CASE("values are found in document order with their keys")
{
    std::string t = "{\"a\": 1,\n \"b\": [true, {\"c\": \"x}\\\"\"}], \"d\": null}";
    lesson_pos p = {};
    REQUIRE(lesson_pos_scan(&p, t.c_str(), t.size()) == 0);
    // {, 1, [, true, {, "x}\"", null
    REQUIRE(p.n == 7);
    CHECK(p.v[0].value == 0);
    CHECK(p.v[0].key == LESSON_POS_NOKEY);
    CHECK(t.substr(p.v[1].key, 3) == "\"a\"");
    CHECK(t[p.v[1].value] == '1');
    CHECK(t[p.v[2].value] == '[');
    CHECK(p.v[3].key == LESSON_POS_NOKEY); // array elements have no key
    CHECK(t.substr(p.v[5].value, 2) == "\"x");
    CHECK(t.substr(p.v[6].value, 4) == "null");
    CHECK(t.substr(p.v[6].key, 3) == "\"d\"");
    lesson_pos_free(&p);
}

TEST_CASE("truncated text is refused")
{
    lesson_pos p = {};
    const char *t = "{\"a\": [1, 2";
    CHECK(lesson_pos_scan(&p, t, strlen(t)) == -EINVAL);
    lesson_pos_free(&p);
}

TEST_CASE("columns count characters, not bytes")
{
    const char *t = "ab\n\xC3\xA9t\xC3\xA9 x";
    int line, col;
    lesson_pos_linecol(t, strlen(t), 0, &line, &col);
    CHECK((line == 1 && col == 1));
    lesson_pos_linecol(t, strlen(t), 3, &line, &col);
    CHECK((line == 2 && col == 1));
    lesson_pos_linecol(t, strlen(t), strlen(t) - 1, &line, &col);
    CHECK((line == 2 && col == 5));
}
