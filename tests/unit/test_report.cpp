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

TEST_CASE("report lines are read as JSON is written: escapes, spaces, arrays passed over")
{
    struct sandbox_line *r = sandbox_line_parse(
        R"( { "missing" : [ "a", ["b", {"tier": "x"}], 1e3 ], "n": 0, "s": "q\"\\\/\t\u00e9\ud83d\ude00",)"
        R"( "sandbox" : { "tier" : "full", "features": {"landlock_abi": 5} } } )");
    REQUIRE(r);
    char s[64];
    uint64_t v = 9;
    CHECK(sandbox_line_string(r, "sandbox.tier", s, sizeof s)); // not the one inside the array
    CHECK(std::string(s) == "full");
    CHECK(sandbox_line_u64(r, "n", &v));
    CHECK(v == 0);
    CHECK(sandbox_line_string(r, "s", s, sizeof s));
    CHECK(std::string(s) == "q\"\\/\t\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(sandbox_line_string(r, "s", s, 3)); // cut to the buffer
    CHECK(std::string(s) == "q\"");
    CHECK(sandbox_line_json(r, "sandbox.features", s, sizeof s));
    CHECK(std::string(s) == R"({"landlock_abi": 5})");
    CHECK_FALSE(sandbox_line_json(r, "sandbox", s, 8)); // too long for the buffer
    CHECK_FALSE(sandbox_line_u64(r, "missing", &v));    // an array is not a number
    sandbox_line_free(r);

    // What JSON does not allow is refused whole, as cJSON refused it.
    for (const char *bad : {R"({"a":1,})", R"({"a":01})", R"({"a":1} x)", "{\"a\":\"x\ty\"}",
                            R"({"a":tru})", R"({"a":"\x"})", R"({"a" 1})", R"({"a":[1,]})",
                            R"({"a":-})", R"({"a":1.})", "{\"a\":\"\\u12g4\"}"}) {
        INFO(bad);
        CHECK(sandbox_line_parse(bad) == nullptr);
    }
    std::string deep(40, '[');
    CHECK(sandbox_line_parse(("{\"a\":" + deep + std::string(40, ']') + "}").c_str()) == nullptr);
}
