// Call sites end to end: `iolab run --json` lists, per process, the source lines that made its
// counted calls (through the jail, resolved with the demos' DWARF), and a call's lines add up
// to its count. The exact counts on known lines are test_siteline.cpp's (a program built -O2 -g
// with calls on marked lines).
#include <catch2/catch.hpp>

#include <cjson/cJSON.h>
#include <fstream>
#include <cstdio>
#include <map>
#include <sstream>
#include <sys/stat.h>

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

namespace
{

// A program with counted calls on known lines: 300 write()s on one line, 120 read()s on another
// and 180 on a third (each marked SITE:call:count), then it waits to be stopped, or exits at
// once with an argument. Built by iolab as a pack's program, -O2 -g with _FORTIFY_SOURCE=2 as the
// demos are: its read() is then glibc's inline wrapper from bits/unistd.h, whose call the line
// of known.c that wrote it must still be credited with (siteline.c).
const char *known_c = R"(#include <unistd.h>

int main(int argc, char **argv)
{
    int p[2];
    char c = 'x';
    (void)argv;
    if (pipe(p) < 0)
        return 1;
    if (argc == 1)
        usleep(500000); /* under iolab: after the run's first snapshot, where a segment starts */
    for (int i = 0; i < 300; i++)
        if (write(p[1], &c, 1) != 1) /* SITE:write:300 */
            return 1;
    for (int i = 0; i < 120; i++)
        if (read(p[0], &c, 1) != 1) /* SITE:read:120 */
            return 1;
    for (int i = 0; i < 180; i++)
        if (read(p[0], &c, 1) != 1) /* SITE:read:180 */
            return 1;
    if (argc > 1)
        return 0;
    for (;;)
        pause();
}
)";

// (call, line) -> count.
using LineCounts = std::map<std::pair<std::string, int>, long>;

// The SITE: marks of known_c.
LineCounts known_marks()
{
    LineCounts m;
    std::istringstream in(known_c);
    std::string text;
    for (int line = 1; std::getline(in, text); line++) {
        size_t at = text.find("/* SITE:");
        if (at == std::string::npos)
            continue;
        std::string mark = text.substr(at + 8, text.find(" */") - at - 8);
        m[{mark.substr(0, mark.find(':')), line}] = std::stol(mark.substr(mark.find(':') + 1));
    }
    return m;
}

} // namespace

// The calls of exe under strace -f -k, by line of known.c: each call's first frame in the
// program itself, whose return address (less one) addr2line turns into a line.
static LineCounts strace_lines(const std::string &trace, const std::string &exe)
{
    auto [scode, sout] =
        run({"/usr/bin/strace", "-f", "-k", "-e", "trace=read,write", "-o", trace, exe, "--exit"},
            {}, 60);
    INFO(sout);
    REQUIRE(scode == 0);
    std::ifstream in(trace);
    std::string text, call;
    std::map<std::pair<std::string, std::string>, long> by_offset; // (call, offset) -> count
    bool framed = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(" > ", 0) != 0) {
            // "PID NAME(...": strace pads a PID of fewer than 5 digits ("847   read(").
            size_t paren = line.find('(');
            size_t name = line.find_first_not_of("0123456789 ");
            call =
                paren != std::string::npos && name < paren ? line.substr(name, paren - name) : "";
            framed = false;
            continue;
        }
        if (framed || line.find(" > " + exe + "(") != 0)
            continue;
        framed = true; // the first frame in the program: the call's site
        size_t at = line.rfind("[0x");
        by_offset[{call, line.substr(at + 1, line.find(']', at) - at - 1)}]++;
    }
    REQUIRE(!by_offset.empty());
    LineCounts strace;
    for (const auto &[key, count] : by_offset) {
        unsigned long off = std::stoul(key.second, nullptr, 16);
        char hex[32];
        snprintf(hex, sizeof hex, "0x%lx", off - 1);
        // -i: the inlined frames too, innermost first (the wrapper's header line, then the line
        // of known.c that called it): the first line of known.c is the call's.
        auto [acode, where] = run({"/usr/bin/addr2line", "-i", "-e", exe, hex});
        INFO(where);
        REQUIRE(acode == 0);
        size_t k = where.find("known.c:");
        if (k == std::string::npos)
            continue;
        std::string loc = where.substr(k, where.find_first_of(" \n", k) - k);
        strace[{key.first, std::stoi(loc.substr(loc.rfind(':') + 1))}] += count;
    }
    return strace;
}

TEST_CASE("run --json: a program with calls on known lines gets exactly those counts by line, "
          "and strace -k on the same program gives the same",
          "[sites][e2e]")
{
    TempDir t;
    std::string pack = t / "known";
    REQUIRE(mkdir(pack.c_str(), 0755) == 0);
    REQUIRE(mkdir((pack + "/tools").c_str(), 0755) == 0);
    spit(pack + "/tools/known.c", known_c);
    spit(pack + "/pack.json", R"({"format_version": 1, "id": "known", "title": "Known lines",
        "version": "1", "lessons": ["lines"],
        "build": [{"program": "tools/known", "sources": ["tools/known.c"],
                   "command": ["cc", "-std=gnu17", "-O2", "-g", "-D_FORTIFY_SOURCE=2",
                               "-o", "{out}", "{sources}"]}]})");
    spit(pack + "/lines.json", R"({"id": "lines", "title": "Calls on known lines",
        "summary": "A program whose calls are on lines the test knows.",
        "steps": [{"id": "calls", "title": "Count them", "kind": "run", "text": "Its calls.",
          "programs": [{"name": "known", "role": "client", "program": "./tools/known"}],
          "seconds": 2,
          "checks": [{"text": "It writes", "metric": "calls:write", "role": "client",
                      "min": 1}]}]})");
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (t / "cache"),
                                    "XDG_STATE_HOME=" + (t / "state"),
                                    "XDG_DATA_HOME=" + (t / "data")};
    auto [code, out] = run(
        {bin("iolab"), "run", "lines/calls", "--pack", pack, "--seconds", "3", "--json"}, env, 120);
    INFO(out);
    REQUIRE(code == 0);
    Json j(out.substr(out.find('{')));
    REQUIRE(j.root);
    LineCounts iolab;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(j.root, "processes"))
    {
        if (std::string(cJSON_GetObjectItem(p, "name")->valuestring) != "known")
            continue;
        const cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItem(p, "sites"))
        {
            if (std::string(cJSON_GetObjectItem(s, "file")->valuestring) != "known.c")
                continue; // the C library's start and exit (its close() calls) are not lines here
            iolab[{cJSON_GetObjectItem(s, "call")->valuestring,
                   cJSON_GetObjectItem(s, "line")->valueint}] +=
                (long)cJSON_GetObjectItem(s, "count")->valuedouble;
        }
    }
    LineCounts marks = known_marks();
    REQUIRE(marks.size() == 3);
    CHECK(iolab == marks);

    // The same binary under strace -f -k (Debian's strace is built with libdw: each call's
    // stack, each frame with its offset in its file), reduced to the frame in the program
    // itself, whose return address (less one) addr2line turns into a line. No shim here: strace
    // sees every system call, the C library's start-up reads included, which have no frame in
    // the program and are left out.
    auto [fcode, exe] =
        run({"/bin/sh", "-c", "find \"$0\" -type f -name prog -perm -u+x -exec readlink -f {} \\;",
             t / "cache"});
    exe = exe.substr(0, exe.find('\n'));
    INFO(exe);
    REQUIRE(!exe.empty());
    LineCounts strace = strace_lines(t / "trace", exe);
    std::string shown; // what strace saw, for a failure's message
    for (const auto &[key, count] : strace)
        shown += "'" + key.first + "' at known.c:" + std::to_string(key.second) + " " +
                 std::to_string(count) + "\n";
    INFO(shown);
    CHECK(strace == marks);
}
