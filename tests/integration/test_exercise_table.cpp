// Every exercise's table of programs, as data: tests/data/exercises/LESSON/STEP/{wrong,right}/
// NAME.c, each a whole learner's file whose first line says what `iolab check` must answer:
//
//   /* expect: pass */
//   /* expect: fail: SENTENCE */     (SENTENCE: a part of the message of a check that fails;
//                                     "A || B" when either of two checks may decide first)
//
// For every row the exercise's workspace is copied from its solution's directory, the row takes
// the place of the workspace's .c file, and `iolab check LESSON/STEP --dir` must give the
// verdict; a failing row must also show the sentence in the message of a check that does not
// hold, so that a check that fails for another reason (or with a sentence that sends the learner
// to another fix) is caught. A new exercise's table is files only: this test finds them.
#include "exercise_helpers.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace iolab_test;
namespace fs = std::filesystem;

namespace
{

struct Row {
    std::string lesson, step, name; // name: "wrong/giveup-eintr.c"
    std::string path;
    bool pass = false;
    std::string sentence; // for a failing row
    std::string problem;  // a row this test cannot read: why
};

// The first line's expectation.
void parse_expect(Row &r)
{
    std::ifstream f(r.path);
    std::string line;
    std::getline(f, line);
    const std::string open = "/* expect: ", close = " */";
    if (line.rfind(open, 0) != 0 || line.size() < open.size() + close.size() ||
        line.compare(line.size() - close.size(), close.size(), close) != 0) {
        r.problem = "its first line is not /* expect: pass */ or /* expect: fail: SENTENCE */";
        return;
    }
    std::string e = line.substr(open.size(), line.size() - open.size() - close.size());
    if (e == "pass") {
        r.pass = true;
    } else if (e.rfind("fail: ", 0) == 0 && e.size() > 6) {
        r.sentence = e.substr(6);
    } else {
        r.problem = "its expectation '" + e + "' is neither 'pass' nor 'fail: SENTENCE'";
    }
}

std::vector<Row> rows()
{
    std::vector<Row> out;
    fs::path root = source_dir() + "/tests/data/exercises";
    if (!fs::is_directory(root))
        return out;
    for (const auto &lesson : fs::directory_iterator(root)) {
        if (!lesson.is_directory())
            continue;
        for (const auto &step : fs::directory_iterator(lesson.path())) {
            if (!step.is_directory())
                continue;
            for (const char *kind : {"wrong", "right"}) {
                fs::path dir = step.path() / kind;
                if (!fs::is_directory(dir))
                    continue;
                for (const auto &file : fs::directory_iterator(dir)) {
                    if (file.path().extension() != ".c")
                        continue;
                    Row r;
                    r.lesson = lesson.path().filename();
                    r.step = step.path().filename();
                    r.name = std::string(kind) + "/" + file.path().filename().string();
                    r.path = file.path();
                    parse_expect(r);
                    if (r.problem.empty() && r.pass != (std::string(kind) == "right"))
                        r.problem = std::string("a row under ") + kind + "/ must expect " +
                                    (std::string(kind) == "right" ? "pass" : "fail");
                    out.push_back(r);
                }
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const Row &a, const Row &b) { return a.path < b.path; });
    return out;
}

// The exercise's solution directory and workspace files, from the lesson's JSON.
bool exercise_of(const Row &r, std::string &dir, std::vector<std::string> &files, std::string &why)
{
    std::string text = slurp(source_dir() + "/lessons/" + r.lesson + ".json");
    JsonPtr j(cJSON_Parse(text.c_str()), cJSON_Delete);
    if (!j) {
        why = "lessons/" + r.lesson + ".json does not exist or does not parse";
        return false;
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(j.get(), "steps"))
    {
        const cJSON *id = cJSON_GetObjectItem(s, "id");
        if (!cJSON_IsString(id) || r.step != id->valuestring)
            continue;
        const cJSON *d = cJSON_GetObjectItem(s, "dir");
        if (!cJSON_IsString(d))
            break;
        dir = source_dir() + "/lessons/" + d->valuestring;
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "workspace")) files.push_back(w->valuestring);
        return true;
    }
    why = "lessons/" + r.lesson + ".json has no exercise step '" + r.step + "'";
    return false;
}

// "ok"/"no" and the message of every check, one a line, for the report of a row that fails.
std::string messages(const Result &res)
{
    std::string s;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(res.json.get(), "checks"))
    {
        s += std::string(cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")) ? "  ok " : "  no ") +
             cJSON_GetObjectItem(c, "message")->valuestring + "\n";
    }
    return s;
}

// One row: the solution's workspace with the row's file for its one .c file, checked; a wrong
// row fails with its sentence in a failing check, a right row passes.
void check_row(const TempDir &home, const Row &r)
{
    INFO("row " << r.path);
    REQUIRE(r.problem.empty());
    std::string dir, why;
    std::vector<std::string> files;
    bool found = exercise_of(r, dir, files, why);
    INFO(why);
    REQUIRE(found);
    // The row stands for the learner's file: the one .c file with a TODO (a workspace may hold
    // iolab's own plumbing beside it, as stdio's reader-main.c, which has none).
    std::vector<std::string> sources;
    for (const auto &f : files)
        if (f.size() > 2 && f.compare(f.size() - 2, 2, ".c") == 0 &&
            slurp(dir + "/" + f).find("/* TODO") != std::string::npos)
            sources.push_back(f);
    INFO("the row replaces the workspace's one .c file with a TODO; this workspace has "
         << sources.size());
    REQUIRE(sources.size() == 1);
    TempDir ws;
    for (const auto &f : files)
        spit(ws / f, slurp(dir + "/" + f));
    spit(ws / sources[0], slurp(r.path));
    Exercise e{nullptr, "", "", {}};
    std::string step = r.lesson + "/" + r.step;
    e.step = step.c_str();
    Result res = check(home, e, {"--dir", ws.path});
    INFO(res.out);
    REQUIRE(res.json);
    std::string status = cJSON_GetObjectItem(res.json.get(), "status")->valuestring;
    INFO("the checks said:\n" << messages(res));
    if (r.pass) {
        CHECK(status == "pass");
        CHECK(res.code == 0);
        return;
    }
    CHECK(status == "fail");
    CHECK(res.code == 1);
    // The sentence is in the message of a check that does not hold.
    bool said = false;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(res.json.get(), "checks"))
    {
        if (cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")))
            continue;
        // "A || B": either sentence, when two checks each catch the bug and which one decides
        // first depends on the machine's pace (both sentences are right for the program).
        std::string alts = r.sentence;
        for (size_t at = 0; at != std::string::npos;) {
            size_t bar = alts.find(" || ", at);
            std::string one = alts.substr(at, bar == std::string::npos ? bar : bar - at);
            said |= has(cJSON_GetObjectItem(c, "message")->valuestring, one);
            at = bar == std::string::npos ? bar : bar + 4;
        }
    }
    INFO("expected a failing check to say: " << r.sentence);
    CHECK(said);
}

// Runs every row of one table (LESSON/STEP), each in a section of its own.
void check_table(const std::string &table)
{
    std::vector<Row> all;
    for (const Row &r : rows())
        if (r.lesson + "/" + r.step == table)
            all.push_back(r);
    // A checker is only as good as the wrong programs it has seen, and a reference alone does
    // not show that a correct program written another way passes.
    size_t wrong = std::count_if(all.begin(), all.end(), [](const Row &r) { return !r.pass; });
    INFO("tests/data/exercises/" << table << ": " << wrong << " wrong rows, " << all.size() - wrong
                                 << " right rows");
    REQUIRE(wrong >= 2);
    REQUIRE(all.size() - wrong >= 2);
    TempDir home;
    for (const Row &r : all) {
        DYNAMIC_SECTION(r.lesson << "/" << r.step << " " << r.name)
        {
            check_row(home, r);
        }
    }
}

// The tables, one test case each, so that ctest runs them side by side.
const char *const kTables[] = {
    "chat/write-epoll-server",  "concurrency/write-fib-server", "copying/write-sendfile-copy",
    "ipc/write-fd-proxy",       "ordered/write-client-loop",    "ordered/write-server-loop",
    "pagecache/count-resident", "stdio/write-buffered-reader",  "tinyfile/write-async",
    "tinyfile/write-client",    "upload/write-epoll-server",    "upload/write-fork-server",
    "zerocopy/write-sendfile",
};

} // namespace

TEST_CASE("every exercise table has its own test case here", "[exercises]")
{
    std::set<std::string> listed(std::begin(kTables), std::end(kTables)), found;
    for (const Row &r : rows())
        found.insert(r.lesson + "/" + r.step);
    for (const auto &t : found) {
        INFO("tests/data/exercises/" << t
                                     << " is run by no test case: add it to kTables and a "
                                        "TABLE_CASE in test_exercise_table.cpp");
        CHECK(listed.count(t) == 1);
    }
    for (const auto &t : listed) {
        INFO(t << " is listed but tests/data/exercises has no row of it");
        CHECK(found.count(t) == 1);
    }
}

#define TABLE_CASE(TABLE)                                                                          \
    TEST_CASE("exercise table " TABLE ": known-wrong programs fail with their sentence, other "    \
              "correct programs pass",                                                             \
              "[exercises]")                                                                       \
    {                                                                                              \
        check_table(TABLE);                                                                        \
    }

TABLE_CASE("chat/write-epoll-server")
TABLE_CASE("concurrency/write-fib-server")
TABLE_CASE("copying/write-sendfile-copy")
TABLE_CASE("ipc/write-fd-proxy")
TABLE_CASE("ordered/write-client-loop")
TABLE_CASE("ordered/write-server-loop")
TABLE_CASE("pagecache/count-resident")
TABLE_CASE("stdio/write-buffered-reader")
TABLE_CASE("tinyfile/write-async")
TABLE_CASE("tinyfile/write-client")
TABLE_CASE("upload/write-epoll-server")
TABLE_CASE("upload/write-fork-server")
TABLE_CASE("zerocopy/write-sendfile")
