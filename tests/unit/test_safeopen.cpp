// safeopen: a name under a directory is opened only if it stays there, with openat2() and with
// the fallback a kernel without it gets; the tree removal never follows a link.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sys/stat.h>

extern "C" {
#include "fileread.h"
#include "safeopen.h"
}

using namespace iolab_test;

namespace
{

// dir/in.txt, dir/sub/deep.txt, ../out.txt beside dir, and links of every kind in dir.
struct Tree {
    TempDir t;
    std::string dir = t / "dir";
    Tree()
    {
        REQUIRE(mkdir(dir.c_str(), 0755) == 0);
        REQUIRE(mkdir((dir + "/sub").c_str(), 0755) == 0);
        spit(dir + "/in.txt", "inside");
        spit(dir + "/sub/deep.txt", "deep");
        spit(t / "out.txt", "outside");
        REQUIRE(symlink("in.txt", (dir + "/rel-in").c_str()) == 0);
        REQUIRE(symlink("../in.txt", (dir + "/sub/up-in").c_str()) == 0);
        REQUIRE(symlink((dir + "/in.txt").c_str(), (dir + "/abs-in").c_str()) == 0);
        REQUIRE(symlink("../out.txt", (dir + "/rel-out").c_str()) == 0);
        REQUIRE(symlink((t / "out.txt").c_str(), (dir + "/abs-out").c_str()) == 0);
        REQUIRE(symlink("..", (dir + "/parent").c_str()) == 0);
    }
};

// What the name opens to under dir ("" when refused), and the error.
std::pair<std::string, int> open_read(const std::string &dir, const char *rel)
{
    char *text = nullptr;
    size_t len = 0;
    int rc = fileread_beneath(dir.c_str(), rel, 1 << 20, &text, &len, nullptr);
    std::string s = rc == 0 ? std::string(text, len) : "";
    free(text);
    return {s, rc};
}

} // namespace

TEST_CASE("a name that stays under its directory opens, one that leads out is EXDEV")
{
    Tree tr;
    for (bool fallback : {false, true}) {
        safeopen_force_fallback(fallback);
        INFO("fallback " << fallback);
        CHECK(open_read(tr.dir, "in.txt") == std::make_pair(std::string("inside"), 0));
        CHECK(open_read(tr.dir, "sub/deep.txt") == std::make_pair(std::string("deep"), 0));
        CHECK(open_read(tr.dir, "rel-in").first == "inside");
        CHECK(open_read(tr.dir, "sub/up-in").first == "inside");
        CHECK(open_read(tr.dir, "abs-in").first == "inside");
        CHECK(open_read(tr.dir, "rel-out").second == -EXDEV);
        CHECK(open_read(tr.dir, "abs-out").second == -EXDEV);
        CHECK(open_read(tr.dir, "parent/out.txt").second == -EXDEV);
        CHECK(open_read(tr.dir, "../out.txt").second == -EXDEV);
        CHECK(open_read(tr.dir, (tr.t / "out.txt").c_str()).second == -EXDEV);
        CHECK(open_read(tr.dir, "absent").second == -ENOENT);
        safeopen_force_fallback(false);
    }
}

TEST_CASE("the link that leads out is named for the sentence")
{
    Tree tr;
    char to[4096];
    safeopen_escape(tr.dir.c_str(), "abs-out", to, sizeof to);
    CHECK(std::string(to) == tr.t / "out.txt");
    safeopen_escape(tr.dir.c_str(), "rel-out", to, sizeof to);
    CHECK(std::string(to) == "../out.txt");
    safeopen_escape(tr.dir.c_str(), "parent/out.txt", to, sizeof to);
    CHECK(std::string(to) == "..");
    safeopen_escape(tr.dir.c_str(), "rel-in", to, sizeof to);
    CHECK(std::string(to).empty());
}

TEST_CASE("removing a tree removes its links, never what they point to")
{
    Tree tr;
    std::string victim = tr.t / "victim";
    REQUIRE(mkdir(victim.c_str(), 0755) == 0);
    spit(victim + "/keep.txt", "keep");
    REQUIRE(symlink(victim.c_str(), (tr.dir + "/sub/to-victim").c_str()) == 0);
    CHECK(safeopen_rmtree(tr.dir.c_str()) == 0);
    struct stat st;
    CHECK(lstat(tr.dir.c_str(), &st) < 0);
    CHECK(lstat((victim + "/keep.txt").c_str(), &st) == 0);
    CHECK(lstat((tr.t / "out.txt").c_str(), &st) == 0);
}
