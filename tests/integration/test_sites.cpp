// Call sites end to end: `iolab run --json` lists, per process, the source lines that made its
// counted calls (through the jail, resolved with the demos' DWARF), and a call's lines add up
// to its count. The exact counts on known lines are test_siteline.cpp's (a program built -O2 -g
// with calls on marked lines).
#include <catch2/catch.hpp>

#include <cjson/cJSON.h>
#include <fstream>
#include <map>

#include "helpers.hpp"

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

// Line n of a demo's source.
std::string demo_line(const std::string &file, int n)
{
    std::ifstream in(source_dir() + "/sandbox/demos/" + file);
    std::string text;
    for (int k = 1; std::getline(in, text); k++)
        if (k == n)
            return text;
    return "";
}

} // namespace

TEST_CASE("run --json: the epoll server's calls by line add up, and epoll_wait has its line",
          "[sites][e2e]")
{
    auto [code, out] = run(
        {bin("iolab"), "run", "concurrency/compare", "--mode", "epoll", "--seconds", "2", "--json"},
        {}, 90);
    INFO(out);
    REQUIRE(code == 0);
    Json j(out.substr(out.find('{')));
    REQUIRE(j.root);
    const cJSON *procs = cJSON_GetObjectItem(j.root, "processes");
    REQUIRE(cJSON_GetArraySize(procs) >= 2);
    bool saw_epoll_wait = false;
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        std::string name = cJSON_GetObjectItem(p, "name")->valuestring;
        INFO(name);
        std::map<std::string, double> by_call;
        const cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItem(p, "sites"))
        {
            std::string call = cJSON_GetObjectItem(s, "call")->valuestring;
            double count = cJSON_GetObjectItem(s, "count")->valuedouble;
            by_call[call] += count;
            std::string file = cJSON_GetObjectItem(s, "file")->valuestring;
            int line = cJSON_GetObjectItem(s, "line")->valueint;
            if (name == "server" && call == "epoll_wait") {
                CHECK(file == "echo-server.c");
                CHECK(demo_line(file, line).find("epoll_wait(") != std::string::npos);
                CHECK(count > 0);
                saw_epoll_wait = true;
            }
        }
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(p, "calls"))
        {
            if (std::string(c->string) == "recvmsg_rights")
                continue; // a part of recvmsg: its calls are recvmsg's lines
            INFO(c->string);
            // A call counts its site and its total one after the other, and a segment's ends are
            // read while the programs run: each thread may be between the two at either end.
            // At rest (tests/unit/test_siteline.cpp) the sum is exact.
            double threads = cJSON_GetObjectItem(p, "threads")
                                 ? cJSON_GetObjectItem(p, "threads")->valuedouble
                                 : 1;
            double slack = 2 * (threads > 1 ? threads : 1);
            double total = cJSON_GetObjectItem(c, "count")->valuedouble;
            CHECK(by_call[c->string] >= total - slack);
            CHECK(by_call[c->string] <= total + slack);
        }
    }
    CHECK(saw_epoll_wait);
}
