// The zero-copy exercise headless (`iolab check`), what is not a row of
// test_exercise_variants.cpp: the starter fails with the message that points at its TODO and
// the workspace is never overwritten, a build error is reported at the learner's file:line:col
// with exit 2, and the author's check of the whole pack holds.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

using namespace iolab_test;

namespace
{

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

const char *kStep = "zerocopy/write-sendfile";

std::string solution()
{
    return slurp(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c");
}

// The solution with its send_file() body replaced.
std::string variant(const std::string &body)
{
    std::string s = solution();
    size_t a = s.find("static int send_file(int sock, int file, off_t size)\n{");
    size_t b = s.find("\n}\n", a);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    return s.substr(0, a) + "static int send_file(int sock, int file, off_t size)\n{\n" + body +
           s.substr(b);
}

struct Check {
    int code;
    Json json{nullptr, cJSON_Delete};
    std::string out;
};

Check check(const TempDir &home, const std::vector<std::string> &extra)
{
    std::vector<std::string> argv = {bin("iolab"), "check", kStep, "--json", "--seconds", "2"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto [code, out] = run(argv, {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                                  "XDG_CACHE_HOME=" + (home / "cache")});
    Check c;
    c.code = code;
    c.out = out;
    c.json.reset(cJSON_Parse(out.c_str()));
    return c;
}

std::string message_of(const cJSON *j, const std::string &text_part)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "checks"))
    {
        if (std::string(cJSON_GetObjectItem(c, "text")->valuestring).find(text_part) !=
            std::string::npos)
            return std::string(cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")) ? "ok: " : "no: ") +
                   cJSON_GetObjectItem(c, "message")->valuestring;
    }
    return "(no such check)";
}

} // namespace

TEST_CASE("the starter builds, runs and fails where its TODO is", "[exercise]")
{
    TempDir home;
    Check c = check(home, {});
    INFO(c.out);
    CHECK(c.code == 1);
    REQUIRE(c.json);
    CHECK(std::string(cJSON_GetObjectItem(c.json.get(), "status")->valuestring) == "fail");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(c.json.get(), "build"), "ok")));
    // The client says at once that the body never came, and the run stops there: the check
    // waiting for its 20 requests is not judged rather than failed with another sentence.
    std::string todo = message_of(c.json.get(), "The body follows the header");
    CHECK(todo.rfind("no: yours: 1 matching lines", 0) == 0);
    CHECK(todo.find("send its bytes with sendfile() (its TODO)") != std::string::npos);
    CHECK(todo.find("a download stalled at 0 of 1048576 bytes") != std::string::npos);
    CHECK(message_of(c.json.get(), "complete the TODO in send_file").find("not judged") !=
          std::string::npos);
    // The workspace now holds the starter, with its TODO, and is the learner's from now on.
    std::string ws = home / "data/iolab/work/linux-io/zerocopy/write-sendfile/file-server.c";
    CHECK(slurp(ws).find("/* TODO 1: send the file with sendfile(") != std::string::npos);
    spit_append(ws, "/* mine */\n");
    check(home, {});
    CHECK(slurp(ws).find("/* mine */") != std::string::npos); // never overwritten
}

TEST_CASE("a build error: the learner's file:line:col and exit 2 and status error", "[exercise]")
{
    TempDir home, bad;
    spit(bad / "file-server.c", variant("    return sendfile(sock, file, size;"));
    Check c = check(home, {"--dir", bad.path});
    INFO(c.out);
    CHECK(c.code == 2);
    REQUIRE(c.json);
    CHECK(std::string(cJSON_GetObjectItem(c.json.get(), "status")->valuestring) == "error");
    std::string log =
        cJSON_GetObjectItem(cJSON_GetObjectItem(c.json.get(), "build"), "log")->valuestring;
    CHECK(std::regex_search(log, std::regex(bad.path + "/file-server\\.c:\\d+:\\d+: error")));
    CHECK(
        cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(c.json.get(), "build"), "log_cut")));
}

TEST_CASE("a workspace made from an older starter is told so before any build, and moving the "
          "file aside gives the new starter",
          "[exercise]")
{
    // The built-in pack with file-server.c's starter at version 2: the learner's workspace,
    // made from version 1 (the solution as it is today), is older.
    TempDir home, pack;
    REQUIRE(run({"/bin/cp", "-R", source_dir() + "/lessons/.", pack.path}).first == 0);
    std::string sol = pack / "exercises/zerocopy/sendfile/file-server.c";
    std::string text = slurp(sol);
    REQUIRE(text.rfind("/* iolab-starter: 1 */\n", 0) == 0);
    spit(sol, "/* iolab-starter: 2 */\n" + text.substr(text.find('\n') + 1));
    std::string dir = home / "data/iolab/work/linux-io/zerocopy/write-sendfile";
    REQUIRE(run({"/bin/mkdir", "-p", dir}).first == 0);
    spit(dir + "/file-server.c", solution());

    Check c = check(home, {"--pack", pack.path});
    INFO(c.out);
    CHECK(c.code == 2);
    REQUIRE(c.json);
    CHECK(std::string(cJSON_GetObjectItem(c.json.get(), "status")->valuestring) == "error");
    std::string error = cJSON_GetObjectItem(c.json.get(), "error")->valuestring;
    CHECK(error.rfind(dir + "/file-server.c was made from an older starter of this exercise "
                            "(version 1, now 2): move it aside (mv file-server.c "
                            "file-server.c.old)",
                      0) == 0);
    CHECK(error.find("your TODO code is kept in file-server.c.old") != std::string::npos);
    // Nothing of the learner's was built or judged.
    CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(c.json.get(), "build"), "ok")));
    const cJSON *chk;
    cJSON_ArrayForEach(chk, cJSON_GetObjectItem(c.json.get(), "checks"))
    {
        CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(chk, "ok")));
    }

    // Moved aside as the sentence says: the next check writes the new starter and judges it.
    REQUIRE(rename((dir + "/file-server.c").c_str(), (dir + "/file-server.c.old").c_str()) == 0);
    Check again = check(home, {"--pack", pack.path});
    INFO(again.out);
    CHECK(again.code == 1);
    CHECK(slurp(dir + "/file-server.c").rfind("/* iolab-starter: 2 */\n", 0) == 0);
}

TEST_CASE("the author's check: every solution passes and every starter fails", "[exercise]")
{
    TempDir home;
    auto [code, out] =
        run({bin("iolab"), "check", "--pack", source_dir() + "/lessons", "--solutions"},
            {"HOME=" + home.path, "XDG_CACHE_HOME=" + (home / "cache")}, 300);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("zerocopy/write-sendfile: solution pass; starter fail") != std::string::npos);
}
