// A mode's span ends when its programs end: after a live switch, what the old server did while
// it stopped (the rest of its read loop, the counters it left, its exit's top-up) is the old
// mode's. zerocopy/compare has the check that shows it: the sendfile server reads no file.
// Before spans were closed at the old server's exit, that check counted hundreds of the
// read+send server's file reads as sendfile's, one to four times in four.
#include "helpers.hpp"
#include <catch2/catch.hpp>

#include <cjson/cJSON.h>

using namespace iolab_test;

namespace
{

struct Json {
    cJSON *root = nullptr;
    explicit Json(const std::string &text) : root(cJSON_Parse(text.c_str())) {}
    ~Json()
    {
        cJSON_Delete(root);
    }
};

const cJSON *check_named(const cJSON *root, const std::string &text)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "checks"))
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text");
        if (cJSON_IsString(t) && text == t->valuestring)
            return c;
    }
    return nullptr;
}

} // namespace

TEST_CASE("a live switch never credits the old mode's file reads to the new one", "[modes][span]")
{
    // Five switches from read+send, which reads the file a buffer at a time, to sendfile,
    // which never reads it. The old server is still in its read loop when the switch asks it
    // to stop; its last reads must stay with read-send, every time.
    for (int round = 1; round <= 5; round++) {
        auto [code, out] = run({bin("iolab"), "run", "zerocopy/compare", "--mode",
                                "read-send,sendfile", "--seconds", "1.5", "--json"},
                               {}, 120);
        INFO("round " << round << ":\n" << out);
        REQUIRE(code == 0);
        Json j(out.substr(out.find('{')));
        REQUIRE(j.root);
        const cJSON *c = check_named(j.root, "See the sendfile server read no file");
        REQUIRE(c);
        std::string msg = cJSON_GetObjectItemCaseSensitive(c, "message")->valuestring;
        INFO(msg);
        CHECK(msg.rfind("sendfile: 0 read calls on a file", 0) == 0);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")));
    }
}
