// human: the figures iolab writes, and the numbers a learner types back after reading them.
#include <catch2/catch.hpp>
#include <string>

extern "C" {
#include "human.h"
}

static double parsed(const char *s)
{
    double x = -1;
    char why[200];
    REQUIRE(human_parse(s, &x, why, sizeof why) == 0);
    return x;
}

TEST_CASE("human: a prediction typed as the screen writes figures reads as that figure")
{
    CHECK(parsed("16") == 16);
    CHECK(parsed("0.5") == 0.5);
    CHECK(parsed("16k") == 16000);
    CHECK(parsed("16.5k") == 16500);
    CHECK(parsed("4.07M") == Approx(4.07e6));
    CHECK(parsed("2G") == 2e9);
    CHECK(parsed("512 B") == 512);
    CHECK(parsed("64KiB") == 65536);
    CHECK(parsed("1.5 MiB") == 1.5 * 1048576);
    CHECK(parsed(" 3 ") == 3);
    CHECK(parsed("1e3") == 1000);
    // What iolab writes, it reads back: human_si's own output round-trips.
    char buf[32];
    CHECK(parsed(human_si(182000, buf, sizeof buf)) == 182000);
    CHECK(parsed(human_si(16500, buf, sizeof buf)) == 16500);
}

TEST_CASE("human: a number with a unit iolab does not write is refused in one sentence")
{
    double x = 7;
    char why[200];
    CHECK(human_parse("16q", &x, why, sizeof why) < 0);
    CHECK(std::string(why).find("'q' is not a unit") != std::string::npos);
    CHECK(human_parse("", &x, why, sizeof why) < 0);
    CHECK(std::string(why).find("Type a number") == 0);
    CHECK(human_parse("-3", &x, why, sizeof why) < 0);
    CHECK(human_parse("k", &x, why, sizeof why) < 0);
    CHECK(x == 7); // untouched when refused
}
