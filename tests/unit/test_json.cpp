// json: the one writer of iolab's JSON output. What it writes must parse (cJSON here, as any
// consumer's parser would), whatever the strings hold and however deep a caller nests.
extern "C" {
#include "json.h"
}

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace
{

// What fill writes, as text.
std::string written(const std::function<void(json_out *)> &fill)
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    json_out j;
    json_init(&j, f);
    fill(&j);
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
}

// The string value of key in the object text, through cJSON; "(no parse)" when it is not JSON.
std::string string_of(const std::string &text, const char *key)
{
    cJSON *root = cJSON_Parse(text.c_str());
    if (!root)
        return "(no parse)";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    std::string s = cJSON_IsString(v) ? v->valuestring : "(not a string)";
    cJSON_Delete(root);
    return s;
}

} // namespace

TEST_CASE("json: objects and arrays get their commas, keys and closers")
{
    std::string out = written([](json_out *j) {
        json_object(j, nullptr);
        json_string(j, "name", "echo");
        json_u64(j, "big", 18446744073709551615ull);
        json_int(j, "neg", -3);
        json_double(j, "rate", 12.3456, 2);
        json_bool(j, "ok", true);
        json_null(j, "none");
        json_string(j, "null_string", nullptr);
        json_array(j, "list");
        json_int(j, nullptr, 1);
        json_object(j, nullptr);
        json_end(j);
        json_raw(j, nullptr, "[true]");
        json_end(j);
        json_end(j);
    });
    CHECK(out == R"({"name":"echo","big":18446744073709551615,"neg":-3,"rate":12.35,"ok":true,)"
                 R"("none":null,"null_string":null,"list":[1,{},[true]]})");
}

TEST_CASE("json: NaN and infinities, which JSON cannot hold, are written as null")
{
    std::string out = written([](json_out *j) {
        json_array(j, nullptr);
        json_double(j, nullptr, std::nan(""), 1);
        json_double(j, nullptr, INFINITY, 1);
        json_double(j, nullptr, -INFINITY, 1);
        json_end(j);
    });
    CHECK(out == "[null,null,null]");
}

TEST_CASE("json: quotes, backslashes and control bytes are escaped and parse back as they were")
{
    const std::string s = "a \"quoted\" \\path\\\nnew\ttab \x01\x1b[31m \x7f end";
    std::string out = written([&](json_out *j) {
        json_object(j, nullptr);
        json_string(j, "s", s.c_str());
        json_end(j);
    });
    CHECK(out.find('\x1b') == std::string::npos); // no raw escape byte reaches a terminal
    CHECK(out.find('\x01') == std::string::npos);
    CHECK(string_of(out, "s") == s);
}

TEST_CASE("json: UTF-8 passes through and bytes that are not UTF-8 become U+FFFD")
{
    const char *good = "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x88"; // café → 📈
    std::string out = written([&](json_out *j) {
        json_object(j, nullptr);
        json_string(j, "good", good);
        // a stray continuation byte, a cut sequence, an overlong '/', a surrogate, past U+10FFFF
        json_string(j, "bad",
                    "a\x80"
                    "b\xc3"
                    "c\xc0\xaf"
                    "d\xed\xa0\x80"
                    "e\xf4\x90\x80\x80");
        json_end(j);
    });
    CHECK(string_of(out, "good") == good);
    std::string bad = string_of(out, "bad");
    CHECK(bad.rfind("a\xef\xbf\xbd"
                    "b\xef\xbf\xbd"
                    "c",
                    0) == 0);
    CHECK(bad.find("d") != std::string::npos);
    CHECK(bad.find("\xed\xa0") == std::string::npos);
    CHECK(bad.find("\xf4\x90") == std::string::npos);
    CHECK(bad.back() == '\xbd');
}

TEST_CASE("json: a container nested past JSON_MAX_DEPTH is left out and the rest stays well formed")
{
    std::string out = written([](json_out *j) {
        json_object(j, nullptr);
        json_string(j, "before", "x");
        for (int i = 0; i < JSON_MAX_DEPTH + 3; i++)
            json_array(j, i == 0 ? "deep" : nullptr);
        json_int(j, nullptr, 42);
        for (int i = 0; i < JSON_MAX_DEPTH + 3; i++)
            json_end(j);
        json_string(j, "after", "y");
        json_end(j);
    });
    INFO(out);
    CHECK(string_of(out, "before") == "x");
    CHECK(string_of(out, "after") == "y");
    CHECK(out.find("42") == std::string::npos);
}
