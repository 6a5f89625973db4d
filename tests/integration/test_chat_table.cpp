// The tables of programs of the chat, ordered-server and both upload exercises, both ways: each
// file under tests/data/exercises/LESSON/STEP/{wrong,right}/ is a whole replacement of the
// exercise's main file (its other files come from the solution), whose first line says what `iolab
// check` must conclude: `/* expect: pass */`, or `/* expect: fail: SENTENCE */` where SENTENCE is
// part of what a failing check tells the learner. The table-driven test of every exercise
// (test_exercise_table.cpp) reads the same rows; this one runs these two exercises' rows.
#include "exercise_helpers.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

using namespace iolab_test;
namespace fs = std::filesystem;

namespace
{

const Exercise kChat{
    "chat/write-epoll-server", "chat/epoll-server", "chat-server.c", {"w_epoll.h"}};
const Exercise kOrdered{"ordered/write-server-loop", "ordered/exit-loop", "ordered-server.c", {}};
const Exercise kUpload{
    "upload/write-fork-server", "upload/fork-server", "upload-server.c", {"upload.h", "w_epoll.h"}};
const Exercise kUploadEpoll{"upload/write-epoll-server",
                            "upload/epoll-server",
                            "upload-server.c",
                            {"upload.h", "w_epoll.h"}};

struct Row {
    std::string path;
    bool pass = false;
    std::string sentence; // for a failure: part of a failing check's text or message
};

// The first line's verdict, or a row with an empty path when the line is not one.
Row read_row(const fs::path &p)
{
    std::string first = slurp(p.string());
    first = first.substr(0, first.find('\n'));
    Row r;
    const std::string pass = "/* expect: pass */", fail = "/* expect: fail: ";
    if (first == pass) {
        r.path = p.string();
        r.pass = true;
    } else if (first.rfind(fail, 0) == 0 && first.size() > fail.size() + 3 &&
               first.compare(first.size() - 3, 3, " */") == 0) {
        r.path = p.string();
        r.sentence = first.substr(fail.size(), first.size() - fail.size() - 3);
    }
    return r;
}

std::vector<fs::path> rows_in(const Exercise &ex, const std::string &kind)
{
    std::vector<fs::path> v;
    fs::path dir = fs::path(source_dir()) / "tests/data/exercises" / ex.step / kind;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().extension() == ".c")
            v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
}

// Every failing check as "TEXT: MESSAGE", one per line.
std::string failures(const Result &r)
{
    std::string out;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.json.get(), "checks"))
    {
        if (cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")))
            continue;
        out += std::string(cJSON_GetObjectItem(c, "text")->valuestring) + ": " +
               cJSON_GetObjectItem(c, "message")->valuestring + "\n";
    }
    return out;
}

Result check_row(const TempDir &home, const Exercise &ex, const Row &row)
{
    TempDir dir;
    fs::copy_file(row.path, dir / ex.file);
    for (const char *o : ex.others)
        fs::copy_file(solution_dir(ex) + "/" + o, dir / o);
    return check(home, ex, {"--dir", dir.path});
}

// Every known-wrong row of ex fails, and one of its failing checks says the row's sentence.
void expect_wrong_rows(const Exercise &ex, size_t at_least)
{
    auto files = rows_in(ex, "wrong");
    REQUIRE(files.size() >= at_least);
    TempDir home;
    for (const auto &f : files) {
        Row row = read_row(f);
        INFO(f.string());
        REQUIRE(!row.path.empty()); // a row without its verdict line is a broken table
        REQUIRE(!row.pass);
        // The edge-triggered listener loses clients only when they arrive within one wake-up:
        // the scenario repeats the crowd five times, and a row is tried up to three runs for
        // the race to show (each run either shows it or passes; any other verdict fails here).
        int tries = f.filename() == "et-listener-accepts-once.c" ? 3 : 1;
        Result r;
        for (int t = 0; t < tries; t++) {
            r = check_row(home, ex, row);
            if (r.code != 0)
                break;
            WARN(f.filename().string() << ": run " << t + 1 << " passed; the race did not show");
        }
        INFO(r.out);
        CHECK(r.code == 1);
        REQUIRE(r.json);
        std::string why = failures(r);
        INFO(why);
        CHECK(has(why, row.sentence));
    }
}

// Every correct row of ex passes.
void expect_right_rows(const Exercise &ex)
{
    auto files = rows_in(ex, "right");
    REQUIRE(files.size() >= 2);
    TempDir home;
    for (const auto &f : files) {
        Row row = read_row(f);
        INFO(f.string());
        REQUIRE(row.pass);
        Result r = check_row(home, ex, row);
        INFO(r.out);
        INFO(failures(r));
        CHECK(r.code == 0);
    }
}

} // namespace

TEST_CASE("chat table: every known-wrong server fails with the sentence its bug needs",
          "[exercises][table]")
{
    expect_wrong_rows(kChat, 5);
}

TEST_CASE("chat table: correct servers written differently from the reference pass",
          "[exercises][table]")
{
    expect_right_rows(kChat);
}

TEST_CASE("ordered table: every known-wrong server fails with the sentence its bug needs",
          "[exercises][table]")
{
    expect_wrong_rows(kOrdered, 2);
}

TEST_CASE("ordered table: correct servers written differently from the reference pass",
          "[exercises][table]")
{
    expect_right_rows(kOrdered);
}

TEST_CASE("upload table: every known-wrong fork server fails with the sentence its bug needs",
          "[exercises][table]")
{
    expect_wrong_rows(kUpload, 3);
}

TEST_CASE("upload table: correct fork servers written differently from the reference pass",
          "[exercises][table]")
{
    expect_right_rows(kUpload);
}

TEST_CASE("upload table: every known-wrong epoll server fails with the sentence its bug needs",
          "[exercises][table]")
{
    expect_wrong_rows(kUploadEpoll, 3);
}

TEST_CASE("upload table: correct epoll servers written differently from the reference pass",
          "[exercises][table]")
{
    expect_right_rows(kUploadEpoll);
}
