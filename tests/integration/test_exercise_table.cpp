// Every exercise's table of programs, as data: tests/data/exercises/LESSON/STEP/{wrong,right}/
// NAME.c, each a whole learner's file whose first line says what `iolab check` must answer:
//
//   /* expect: pass */
//   /* expect: fail: SENTENCE */     (SENTENCE: a part of the message of a check that fails)
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

} // namespace

TEST_CASE("every exercise table row: known-wrong programs fail with their sentence, other correct "
          "programs pass",
          "[exercises]")
{
    std::vector<Row> all = rows();
    REQUIRE(!all.empty());
    TempDir home;
    for (const Row &r : all) {
        DYNAMIC_SECTION(r.lesson << "/" << r.step << " " << r.name)
        {
            INFO("row " << r.path);
            REQUIRE(r.problem.empty());
            std::string dir, why;
            std::vector<std::string> files;
            bool found = exercise_of(r, dir, files, why);
            INFO(why);
            REQUIRE(found);
            std::vector<std::string> sources;
            for (const auto &f : files)
                if (f.size() > 2 && f.compare(f.size() - 2, 2, ".c") == 0)
                    sources.push_back(f);
            INFO("the row replaces the workspace's one .c file; this workspace has "
                 << sources.size());
            REQUIRE(sources.size() == 1);
            TempDir ws;
            for (const auto &f : files)
                std::ofstream(ws / f) << slurp(dir + "/" + f);
            std::ofstream(ws / sources[0]) << slurp(r.path);
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
                continue;
            }
            CHECK(status == "fail");
            CHECK(res.code == 1);
            // The sentence is in the message of a check that does not hold.
            bool said = false;
            const cJSON *c;
            cJSON_ArrayForEach(c, cJSON_GetObjectItem(res.json.get(), "checks"))
            {
                if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")) &&
                    has(cJSON_GetObjectItem(c, "message")->valuestring, r.sentence))
                    said = true;
            }
            INFO("expected a failing check to say: " << r.sentence);
            CHECK(said);
        }
    }
}
