// The starter version stamps of an exercise's files: a workspace file whose stamp is below its
// solution's (none counts as 1) was made from an older starter and is told so, in one sentence
// that names the file, both versions and where the learner's TODO code is kept.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

extern "C" {
#include "exercise/exercise.h"
#include "lesson/starter.h"
}

using namespace iolab_test;

namespace
{

int stamp(const std::string &text, int *line = nullptr)
{
    int v = 0, l = 0;
    int rc = starter_stamp(text.data(), text.size(), &v, &l);
    if (line)
        *line = l;
    return rc == 1 ? v : rc;
}

// An exercise of two files, solution in sol/ and workspace in ws/.
struct Stamped {
    TempDir sol, ws;
    char f0[16] = "server.c", f1[16] = "proto.h";
    char *files[2] = {f0, f1};
    lesson_exercise ex = {};
    Stamped()
    {
        ex.dir = const_cast<char *>(sol.path.c_str());
        ex.files = files;
        ex.nfiles = 2;
    }
    void solution(const std::string &name, const std::string &text)
    {
        spit(sol / name, text);
    }
    void workspace(const std::string &name, const std::string &text)
    {
        spit(ws / name, text);
    }
    // 1 and the sentence when stale, 0 and "" when current.
    std::pair<int, std::string> stale()
    {
        char why[1024] = "x";
        int rc = exercise_workspace_stale(&ex, ws.path.c_str(), why, sizeof why);
        return {rc, why};
    }
};

} // namespace

TEST_CASE("a starter version stamp is read in each comment style, once per file")
{
    CHECK(stamp("/* iolab-starter: 1 */\nint x;\n") == 1);
    CHECK(stamp("int x;\n  // iolab-starter: 12\n") == 12);
    CHECK(stamp("#!/bin/sh\n# iolab-starter: 3\n") == 3);
    CHECK(stamp("/*   iolab-starter:7*/  \r\n") == 7);
    CHECK(stamp("int x;\n") == 0);
    int line = 0;
    CHECK(stamp("a\n/* iolab-starter: 0 */\n", &line) == -EINVAL);
    CHECK(line == 2);
    CHECK(stamp("/* iolab-starter: two */\n") == -EINVAL);
    CHECK(stamp("/* iolab-starter: 99999 */\n") == -EINVAL);
    CHECK(stamp("/* iolab-starter: 2 */ int x;\n") == -EINVAL);
    CHECK(stamp("int x; /* iolab-starter: 2 */\n") == -EINVAL);
    CHECK(stamp("/* iolab-starter: 1 */\n/* iolab-starter: 2 */\n", &line) == -EINVAL);
    CHECK(line == 2);
}

TEST_CASE("the stamp survives into the starter a workspace is made from")
{
    std::string src = "/* iolab-starter: 2 */\nint f(void)\n{\n    /* TODO 1: return 1 */\n"
                      "    return 1;\n}\n";
    char *out = nullptr;
    size_t todos = 0;
    starter_diag d;
    REQUIRE(starter_generate(src.data(), src.size(), &out, &todos, &d) == 0);
    std::string starter = out;
    free(out);
    CHECK(stamp(starter) == 2);
}

TEST_CASE("a workspace made from an older starter is told so, naming the file and both versions")
{
    Stamped s;
    s.solution("server.c", "/* iolab-starter: 2 */\nint main(void) { return 0; }\n");
    s.solution("proto.h", "/* iolab-starter: 1 */\n#define X 1\n");

    SECTION("a file of the current version is current")
    {
        s.workspace("server.c", "/* iolab-starter: 2 */\nint main(void) { return 1; }\n");
        s.workspace("proto.h", "#define X 1\n"); // no stamp: version 1, the current one
        auto r = s.stale();
        CHECK(r.first == 0);
        CHECK(r.second.empty());
    }
    SECTION("an older stamp is stale")
    {
        s.workspace("server.c", "/* iolab-starter: 1 */\nint main(void) { return 1; }\n");
        auto r = s.stale();
        CHECK(r.first == 1);
        CHECK(r.second.find(s.ws / "server.c") == 0);
        CHECK(r.second.find("was made from an older starter of this exercise (version 1, now "
                            "2)") != std::string::npos);
        CHECK(r.second.find("mv server.c server.c.old") != std::string::npos);
        CHECK(r.second.find("your TODO code is kept in server.c.old") != std::string::npos);
    }
    SECTION("no stamp where the current starter has one above 1 is stale")
    {
        s.workspace("server.c", "int main(void) { return 1; }\n");
        auto r = s.stale();
        CHECK(r.first == 1);
        CHECK(r.second.find("(no version stamp, so version 1, now 2)") != std::string::npos);
    }
    SECTION("a stamp that cannot be read counts as none")
    {
        s.workspace("server.c", "/* iolab-starter: lots */\n");
        CHECK(s.stale().first == 1);
    }
    SECTION("a newer stamp (a pack taken back to an older version) is not stale")
    {
        s.workspace("server.c", "/* iolab-starter: 3 */\n");
        CHECK(s.stale().first == 0);
    }
    SECTION("a missing file is current: the starter is written for it")
    {
        s.workspace("proto.h", "#define X 1\n");
        CHECK(s.stale().first == 0);
    }
    SECTION("a workspace file that is not a regular file is left to the build")
    {
        REQUIRE(mkfifo((s.ws / "server.c").c_str(), 0600) == 0);
        CHECK(s.stale().first == 0);
    }
}
