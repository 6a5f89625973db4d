// The launcher's report lines, read once: fields found by their path, damaged lines refused.
#include <catch2/catch.hpp>
#include <string>

extern "C" {
#include "engine/sandbox_line.h"
}

TEST_CASE("report lines give their fields, damaged or partial lines give nothing")
{
    struct sandbox_line *r = sandbox_line_parse(
        R"({"pid":4242,"sandbox":{"tier":"reduced","advice":"see --probe","missing":[]}})");
    REQUIRE(r);
    uint64_t v = 0;
    char s[32];
    CHECK(sandbox_line_u64(r, "pid", &v));
    CHECK(v == 4242);
    CHECK(sandbox_line_string(r, "sandbox.tier", s, sizeof s)); // nested: named by its path
    CHECK(std::string(s) == "reduced");
    CHECK_FALSE(sandbox_line_string(r, "tier", s, sizeof s)); // not a member of the top
    CHECK_FALSE(sandbox_line_u64(r, "sandbox.tier", &v));     // a string is not a number
    CHECK_FALSE(sandbox_line_string(r, "nope", s, sizeof s));
    CHECK_FALSE(sandbox_line_string(r, "sandbox.tier.x", s, sizeof s)); // a string has no members
    sandbox_line_free(r);

    r = sandbox_line_parse(R"({"utime_us":120,"stime_us":-3,"nvcsw":1.5})");
    REQUIRE(r);
    CHECK(sandbox_line_u64(r, "utime_us", &v));
    CHECK_FALSE(sandbox_line_u64(r, "stime_us", &v)); // negative
    CHECK_FALSE(sandbox_line_u64(r, "nvcsw", &v));    // not whole
    sandbox_line_free(r);

    // One key in two objects (the launcher's "landlock_ioctl" is a feature and a terminal
    // guard): each path reads its own.
    r = sandbox_line_parse(R"({"sandbox":{"features":{"landlock_ioctl":false},)"
                           R"("terminal":{"landlock_ioctl":true}}})");
    REQUIRE(r);
    bool b = true;
    CHECK(sandbox_line_bool(r, "sandbox.features.landlock_ioctl", &b));
    CHECK_FALSE(b);
    CHECK(sandbox_line_bool(r, "sandbox.terminal.landlock_ioctl", &b));
    CHECK(b);
    CHECK_FALSE(sandbox_line_bool(r, "landlock_ioctl", &b));
    sandbox_line_free(r);

    CHECK(sandbox_line_parse(R"({"pid":42)") == nullptr); // cut short
    CHECK(sandbox_line_parse("iolab-sandbox: cannot start") == nullptr);
    CHECK(sandbox_line_parse("[1,2]") == nullptr);
    CHECK(sandbox_line_parse(nullptr) == nullptr);
    sandbox_line_free(nullptr);
}
