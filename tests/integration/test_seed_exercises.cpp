// The seed exercises of the concurrency lesson (the fib server, a process or a thread per
// request) and of the page-cache lesson (residency counted with mincore()), headless (`iolab
// check --json`): each starter fails with the message that points at its TODO, each solution
// passes, and every row of the exercise's table of programs does what its first line says.
//
// The table: tests/data/exercises/LESSON/STEP/{wrong,right}/NAME.c replaces the learner's file
// (or NAME/ holds several replaced files), and its first line is `/* expect: pass */` or
// `/* expect: fail: SENTENCE */`, SENTENCE being part of the message of a failing check. The
// wrong rows are the bugs learners write (a server that waits for each child, children never
// reaped, a count that reads the file it measures...); the right rows are correct programs
// written apart from the reference (a thread per request, a kernel that reaps by itself...).
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace iolab_test;

namespace
{

const Exercise kFib{"concurrency/write-fib-server", "concurrency/fib-server", "fib-server.c", {}};
const Exercise kResident{"pagecache/count-resident", "pagecache/resident", "resident-server.c", {}};

struct Row {
    std::string name;   // the row's file or directory name
    std::string path;   // its full path
    bool pass = false;  // what its first line expects
    std::string reason; // the failing sentence expected, for a fail row
};

bool is_dir(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The expectation on the first line of a row's file: "/* expect: pass */" or
// "/* expect: fail: SENTENCE */".
void parse_expect(const std::string &file, Row &row)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    INFO(file << ": first line must be /* expect: pass */ or /* expect: fail: ... */");
    const std::string pass = "/* expect: pass */", fail = "/* expect: fail: ";
    if (line.rfind(pass, 0) == 0) {
        row.pass = true;
        return;
    }
    REQUIRE(line.rfind(fail, 0) == 0);
    size_t end = line.rfind(" */");
    REQUIRE(end != std::string::npos);
    REQUIRE(end > fail.size());
    row.reason = line.substr(fail.size(), end - fail.size());
}

// Every row of tests/data/exercises/LESSON/STEP/KIND, sorted by name.
std::vector<Row> rows(const std::string &step, const std::string &kind, const Exercise &e)
{
    std::string dir = source_dir() + "/tests/data/exercises/" + step + "/" + kind;
    std::vector<Row> out;
    DIR *d = opendir(dir.c_str());
    INFO("no table at " << dir);
    REQUIRE(d);
    while (struct dirent *ent = readdir(d)) {
        std::string n = ent->d_name;
        if (n[0] == '.')
            continue;
        Row r;
        r.name = n;
        r.path = dir + "/" + n;
        bool several = is_dir(r.path);
        if (!several && (n.size() < 3 || n.substr(n.size() - 2) != ".c"))
            continue;
        parse_expect(several ? r.path + "/" + e.file : r.path, r);
        out.push_back(r);
    }
    closedir(d);
    std::sort(out.begin(), out.end(), [](const Row &a, const Row &b) { return a.name < b.name; });
    return out;
}

// The directory of the learner's workspace, which `iolab check` without --dir creates from the
// starter's markers and names in its JSON ("dir").
std::string starter_dir(const TempDir &home, const Exercise &e)
{
    Result first = check(home, e, {});
    REQUIRE(first.json);
    const cJSON *d = cJSON_GetObjectItem(first.json.get(), "dir");
    REQUIRE(cJSON_IsString(d));
    return d->valuestring;
}

// A workspace made from the exercise's starter (its files copied from starter_ws), with the
// row's file in place of the learner's, or the row's files over it.
Result check_row(const TempDir &home, const Exercise &e, const std::string &starter_ws,
                 const Row &row)
{
    TempDir ws;
    std::vector<std::string> files = {e.file};
    for (const char *o : e.others)
        files.push_back(o);
    for (const auto &f : files)
        std::ofstream(ws / f) << slurp(starter_ws + "/" + f);
    if (is_dir(row.path)) {
        DIR *d = opendir(row.path.c_str());
        REQUIRE(d);
        while (struct dirent *ent = readdir(d))
            if (ent->d_name[0] != '.')
                std::ofstream(ws / ent->d_name) << slurp(row.path + "/" + ent->d_name);
        closedir(d);
    } else {
        std::ofstream(ws / e.file) << slurp(row.path);
    }
    return check(home, e, {"--dir", ws.path});
}

// Every failing check's "no: MESSAGE", one a line.
std::string failures(const Result &r)
{
    std::string all;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.json.get(), "checks"))
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")))
            all += std::string("no: ") + cJSON_GetObjectItem(c, "text")->valuestring + ": " +
                   cJSON_GetObjectItem(c, "message")->valuestring + "\n";
    }
    return all;
}

void expect_pass(const Result &r)
{
    INFO(r.out);
    REQUIRE(r.json);
    INFO(failures(r));
    CHECK(r.code == 0);
    CHECK(std::string(cJSON_GetObjectItem(r.json.get(), "status")->valuestring) == "pass");
}

// Runs every row of the table, right and wrong, and asserts each verdict and sentence.
void run_table(const std::string &step, const Exercise &e)
{
    TempDir home;
    std::string starter_ws = starter_dir(home, e);
    size_t nright = 0, nwrong = 0;
    for (const std::string kind : {"right", "wrong"}) {
        for (const Row &row : rows(step, kind, e)) {
            INFO(step << " " << kind << "/" << row.name);
            CHECK(row.pass == (kind == "right")); // a row's place and its first line agree
            Result r = check_row(home, e, starter_ws, row);
            if (row.pass) {
                expect_pass(r);
                nright++;
            } else {
                expect_fail(r);
                std::string why = failures(r);
                INFO(why);
                CHECK(has(why, row.reason));
                nwrong++;
            }
        }
    }
    // Two correct programs written apart from the reference, and the bugs learners write.
    CHECK(nright >= 2);
    CHECK(nwrong >= 3);
}

} // namespace

TEST_CASE("fib server: the starter fails at its TODO and the solution passes", "[exercises]")
{
    TempDir home;
    Result starter = check(home, kFib, {}); // the workspace, created from the starter
    expect_fail(starter);
    INFO(starter.out);
    // Served one after another: the check that fails names the bug and the TODO that fixes it.
    std::string at_once = verdict(starter, "served at the same time");
    CHECK(has(at_once, "no: yours: "));
    CHECK(has(at_once, "requests are served one after another"));
    CHECK(has(at_once, "TODO 1 of fib-server.c"));
    std::string spawns = verdict(starter, "A process or a thread per request");
    CHECK(has(spawns, "no: yours: 0 of 8 fork and pthread_create calls"));
    CHECK(has(spawns, "TODO 1 of fib-server.c"));
    // The starter still answers every request, one at a time, right.
    CHECK(has(verdict(starter, "Every answer is fib(n)"), "ok: "));
    CHECK(has(verdict(starter, "No wrong answer"), "ok: "));

    expect_pass(check(home, kFib, {"--dir", solution_dir(kFib)}));
}

TEST_CASE("fib server: every program of its table fails or passes as it says", "[exercises]")
{
    run_table("concurrency/write-fib-server", kFib);
}

TEST_CASE("residency: the starter fails at its TODO and the solution passes", "[exercises]")
{
    TempDir home;
    Result starter = check(home, kResident, {});
    expect_fail(starter);
    INFO(starter.out);
    std::string count = verdict(starter, "Every count is the kernel's");
    CHECK(has(count, "no: yours: 0 of 10 requests"));
    std::string asked = verdict(starter, "mincore()");
    CHECK(has(asked, "no: yours: 0 of 1 mincore calls"));
    // The run stops at the first check that is certain to fail (a wrong count), whose sentence
    // points at the TODO; the checks still open then are "not judged".
    CHECK(has(starter.out, "(its TODO)"));
    // The starter reads nothing: it does not change the cache, it only answers wrong.
    CHECK(has(verdict(starter, "measured, not changed"), "ok: "));

    expect_pass(check(home, kResident, {"--dir", solution_dir(kResident)}));
}

TEST_CASE("residency: every program of its table fails or passes as it says", "[exercises]")
{
    run_table("pagecache/count-resident", kResident);
}
