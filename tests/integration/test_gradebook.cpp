// The gradebook: an instructor sums up three learners' exports of a course. The points a check
// earned are kept in the learner's progress (the same as `check --json`'s score), an export names
// the pack's version even when the course was used by directory, and one rule decides which
// records fit the installed pack: `--import` and `--summary` leave out the same records, a
// timestamp far in the future among them. Two installed packs with one id are refused by both,
// naming both directories; a learner's name cannot forge a row of the text table or a formula in
// the CSV, and bidi controls are shown escaped.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <set>
#include <sstream>

using namespace iolab_test;

namespace
{

// One person's iolab: a state directory (progress), a data directory (installed packs), a login.
struct Person {
    std::string root;
    std::vector<std::string> env;
    Person(const TempDir &t, const std::string &name)
        : root(t / name),
          env({"XDG_STATE_HOME=" + (t / name) + "/state", "XDG_DATA_HOME=" + (t / name) + "/data",
               "XDG_CACHE_HOME=" + (t / name) + "/cache", "HOME=" + (t / name),
               "TMPDIR=" + (t / ""), "USER=" + name, "LOGNAME=" + name})
    {
        REQUIRE(system(("mkdir -p '" + root + "/state/iolab' '" + root + "/data/iolab/packs'")
                           .c_str()) == 0);
    }
    std::pair<int, std::string> iolab(std::vector<std::string> args, double timeout = 180) const
    {
        args.insert(args.begin(), bin("iolab"));
        return run(args, env, timeout);
    }
    // Installs a copy of pack as packs/NAME.
    std::string install(const std::string &pack, const std::string &name) const
    {
        std::string dir = root + "/data/iolab/packs/" + name;
        REQUIRE(system(("cp -r '" + pack + "' '" + dir + "'").c_str()) == 0);
        return dir;
    }
};

// The lines of out that name a record left out ("FILE: PACK/STEP: why; left out."), from the
// pack on, so that an import's and a summary's can be compared.
std::set<std::string> left_out(const std::string &out, const std::string &file)
{
    std::set<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.find("iolab: " + file + ": ") == 0 &&
            line.find("; left out.") != std::string::npos)
            lines.insert(line.substr(("iolab: " + file + ": ").size()));
    return lines;
}

// The first line of out that is a JSON object, parsed (a command's --json output).
cJSON *json_line(const std::string &out)
{
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] == '{')
            return cJSON_Parse(line.c_str());
    return nullptr;
}

double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

// A CSV line split at its commas (the cells tested here hold none).
std::vector<std::string> cells(const std::string &line)
{
    std::vector<std::string> c;
    for (size_t at = 0, next; at <= line.size(); at = next + 1) {
        next = line.find(',', at);
        if (next == std::string::npos)
            next = line.size();
        c.push_back(line.substr(at, next - at));
    }
    return c;
}

} // namespace

TEST_CASE("gradebook: three learners' exports summed up with points, versions and totals, and the "
          "records that do not fit are left out by import and summary alike")
{
    TempDir t;
    Person teacher(t, "teacher");
    std::string pack = t / "course";
    auto [ncode, nout] = teacher.iolab({"new", pack});
    INFO(nout);
    REQUIRE(ncode == 0);
    teacher.install(pack, "course");

    // ann uses the course by directory, as the CI flow does, and passes the exercise.
    Person ann(t, "ann");
    std::string work = t / "ann-work";
    REQUIRE(system(("mkdir -p '" + work + "' && cp -r '" + pack + "/exercises/first/echo/.' '" +
                    work + "'")
                       .c_str()) == 0);
    auto [ccode, cout] =
        ann.iolab({"check", "first/your-echo", "--pack", pack, "--dir", work, "--json"});
    INFO(cout);
    REQUIRE(ccode == 0);
    cJSON *verdict = json_line(cout);
    REQUIRE(verdict);
    double points = num(cJSON_GetObjectItem(verdict, "score"), "points");
    cJSON_Delete(verdict);
    CHECK(points == 2);

    // The record keeps that score, and the pass is an attempt though the reference's bytes were
    // a cache hit of the build.
    cJSON *store = cJSON_Parse(slurp(ann.root + "/state/iolab/progress.json").c_str());
    REQUIRE(store);
    const cJSON *course = cJSON_GetObjectItem(cJSON_GetObjectItem(store, "packs"), "course");
    const cJSON *rec = cJSON_GetObjectItem(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(course, "steps"), "first/your-echo"), "fields"),
        "exercise");
    CHECK(num(rec, "attempts") >= 1);
    CHECK(num(cJSON_GetObjectItem(rec, "score"), "points") == points);
    CHECK(num(cJSON_GetObjectItem(rec, "score"), "of") == 2);
    cJSON_Delete(store);

    // Her export names the pack's version though no pack is installed on her machine.
    std::string ann_file = t / "ann.json";
    REQUIRE(ann.iolab({"progress", "--export", ann_file}).first == 0);
    CHECK(slurp(ann_file).find("\"id\": \"course\", \"version\": \"1\"") != std::string::npos);

    // bob's export holds every kind of record that does not fit, beside two that do.
    std::string bob_file = t / "bob.json";
    spit(bob_file, R"({"iolab_progress": 1, "learner": "bob", "exported_at": 3000,
  "packs": [{"id": "course", "version": "1", "steps": [
    {"step": "first/welcome", "done": true, "done_at": 1000, "updated": 1000, "fields": {}},
    {"step": "first/check", "done": true, "done_at": 1200, "updated": 1200,
     "fields": {"quiz": {"questions": [{"chosen": [0], "tries": 1, "right": true}],
                         "score": {"points": 1, "of": 1}}}},
    {"step": "first/removed", "done": true, "done_at": 1000, "updated": 1000, "fields": {}},
    {"step": "nolesson/step", "done": true, "done_at": 1000, "updated": 1000, "fields": {}},
    {"step": "first/check", "done": false, "done_at": 0, "updated": 1300,
     "fields": {"quiz": {"questions": [{"chosen": [7], "tries": 1, "right": true}]}}},
    {"step": "first/welcome", "done": false, "done_at": 0, "updated": 1400,
     "fields": {"predict": {"predictions": [{"number": 3}]}}},
    {"step": "first/watch", "done": false, "done_at": 0, "updated": 1500,
     "fields": {"exercise": {"attempts": 9}}},
    {"step": "first/watch", "done": true, "done_at": 1600, "updated": 1600,
     "fields": {"quiz": {"questions": [{"chosen": [0], "tries": 1, "right": true}]}}}]},
   {"id": "another-pack", "version": "3", "steps": [
    {"step": "first/welcome", "done": true, "done_at": 1000, "updated": 1000, "fields": {}}]}]})");
    // carol's export has a record from the year 5138 beside one that fits.
    std::string carol_file = t / "carol.json";
    spit(carol_file, R"({"iolab_progress": 1, "learner": "carol", "exported_at": 3000,
  "packs": [{"id": "course", "version": "2", "steps": [
    {"step": "first/welcome", "done": true, "done_at": 1000, "updated": 1000, "fields": {}},
    {"step": "first/your-echo", "done": true, "done_at": 99999999999, "updated": 99999999999,
     "fields": {"exercise": {"attempts": 1, "first_pass": 99999999999,
                             "score": {"points": 2, "of": 2}}}}]}]})");

    // The summary: points per step, a total per learner, the version per pack.
    auto [scode, sout] = teacher.iolab({"progress", "--summary", ann_file, bob_file, carol_file});
    INFO(sout);
    CHECK(scode == 0);
    CHECK(sout.find("Points are the learners' own records") != std::string::npos);
    CHECK(sout.find("iolab check --junit") != std::string::npos);
    std::istringstream lines(sout);
    std::map<std::string, std::string> rows;
    for (std::string line; std::getline(lines, line);)
        rows[line.substr(0, line.find(' '))] = line;
    CHECK(rows["learner"].find("version") != std::string::npos);
    CHECK(rows["learner"].find("points") != std::string::npos);
    CHECK(rows["ann"].find(" 1  ") != std::string::npos); // the version from a directory pack
    CHECK(rows["ann"].find("2/3") != std::string::npos);  // the exercise's 2 of the pack's 3
    CHECK(rows["ann"].find("done 1x 2/2pt") != std::string::npos);
    CHECK(rows["bob"].find("1/3") != std::string::npos); // the quiz's point only
    CHECK(rows["bob"].find("done 1x 1/1pt") != std::string::npos);
    CHECK(rows["carol"].find(" 2  ") != std::string::npos);
    CHECK(rows["carol"].find("0/3") != std::string::npos); // the future record is not counted

    // Both commands leave out the same records, each named once.
    std::set<std::string> bob_summary = left_out(sout, bob_file);
    CHECK(bob_summary.size() == 7);
    std::set<std::string> carol_summary = left_out(sout, carol_file);
    CHECK(carol_summary.size() == 1);
    for (const std::string &file : {bob_file, carol_file}) {
        auto [icode, iout] = teacher.iolab({"progress", "--import", file, "--as-mine"});
        INFO(iout);
        CHECK(icode == 0);
        CHECK(left_out(iout, file) == (file == bob_file ? bob_summary : carol_summary));
    }
    CHECK(*carol_summary.begin() ==
          "course/first/your-echo: its \"updated\" time is more than a day after now; left out.");
    // The import kept no trace of what it left out: the year-5138 time is not in the store.
    CHECK(slurp(teacher.root + "/state/iolab/progress.json").find("99999999999") ==
          std::string::npos);

    // The CSV: the same points and versions, as numbers and text cells.
    auto [vcode, csv] =
        teacher.iolab({"progress", "--summary", "--csv", ann_file, bob_file, carol_file});
    INFO(csv);
    CHECK(vcode == 0);
    std::istringstream in(csv.substr(csv.find("learner,")));
    std::string header;
    std::getline(in, header);
    std::vector<std::string> titles = cells(header);
    std::map<std::string, std::vector<std::string>> table;
    for (std::string line; std::getline(in, line);)
        if (line.find(',') != std::string::npos)
            table[cells(line)[0]] = cells(line);
    auto cell = [&](const std::string &who, const std::string &title) {
        for (size_t i = 0; i < titles.size(); i++)
            if (titles[i].find(title) == 0)
                return i < table[who].size() ? table[who][i] : std::string("?");
        return "no column " + title;
    };
    CHECK(cell("ann", "version") == "1");
    CHECK(cell("carol", "version") == "2");
    CHECK(cell("ann", "points (the learner's own record") == "2");
    CHECK(cell("ann", "points of") == "3");
    CHECK(cell("ann", "first/your-echo points") == "2");
    CHECK(cell("bob", "first/check points") == "1");
    CHECK(cell("carol", "first/your-echo points") == "");
}

TEST_CASE("gradebook: two installed packs with one id are refused by summary and import, both "
          "directories named")
{
    TempDir t;
    Person teacher(t, "teacher");
    std::string pack = t / "course";
    REQUIRE(teacher.iolab({"new", pack}).first == 0);
    std::string one = teacher.install(pack, "course"), two = teacher.install(pack, "course-copy");
    std::string file = t / "ann.json";
    spit(file, R"({"iolab_progress": 1, "learner": "teacher", "exported_at": 3000,
  "packs": [{"id": "course", "version": "1", "steps": [
    {"step": "first/welcome", "done": true, "done_at": 1000, "updated": 1000, "fields": {}}]}]})");
    for (auto args : {std::vector<std::string>{"progress", "--summary", file},
                      std::vector<std::string>{"progress", "--import", file}}) {
        auto [code, out] = teacher.iolab(args);
        INFO(out);
        CHECK(code == 1);
        CHECK(out.find("two packs have the id 'course'") != std::string::npos);
        CHECK(out.find(one) != std::string::npos);
        CHECK(out.find(two) != std::string::npos);
    }
    // Nothing was imported.
    CHECK(slurp(teacher.root + "/state/iolab/progress.json").find("first/welcome") ==
          std::string::npos);
}

TEST_CASE("gradebook: a learner's name is one line of the text table, a formula is text in the "
          "CSV, and bidi controls are shown escaped")
{
    TempDir t;
    Person teacher(t, "teacher");
    std::string pack = t / "course";
    REQUIRE(teacher.iolab({"new", pack}).first == 0);
    teacher.install(pack, "course");
    auto write = [&](const std::string &file, const std::string &learner) {
        spit(file, R"({"iolab_progress": 1, "learner": ")" + learner +
                       R"(", "exported_at": 3000, "packs": [{"id": "course",
  "version": "1", "steps": [{"step": "first/welcome", "done": true, "done_at": 1000,
  "updated": 1000, "fields": {}}]}]})");
    };
    std::string forged = t / "forged.json", formula = t / "formula.json", bidi = t / "bidi.json";
    write(forged, R"(eve\nmallory  done)");
    write(formula, R"(=HYPERLINK(\"http://x.invalid\",\"click\"))");
    write(bidi, "ann\xe2\x80\xaegnp.exe");
    auto [code, out] = teacher.iolab({"progress", "--summary", forged, formula, bidi});
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("\neve\\nmallory  done") != std::string::npos);
    CHECK(out.find("\nmallory") == std::string::npos);
    CHECK(out.find("ann\\u202egnp.exe") != std::string::npos);
    CHECK(out.find("\xe2\x80\xae") == std::string::npos);

    auto [ccode, csv] = teacher.iolab({"progress", "--summary", "--csv", forged, formula, bidi});
    INFO(csv);
    CHECK(ccode == 0);
    CHECK(csv.find("\n\"'=HYPERLINK(\"\"http://x.invalid\"\",\"\"click\"\")\",") !=
          std::string::npos);
    CHECK(csv.find("\n=") == std::string::npos);
    CHECK(csv.find("ann\\u202egnp.exe,") != std::string::npos);

    // A pack's title with a right-to-left override: lint refuses it at its place, so `iolab
    // list` names the problem and never prints the override raw.
    std::string meta = slurp(pack + "/pack.json");
    size_t at = meta.find("\"A new iolab pack\"");
    REQUIRE(at != std::string::npos);
    meta.replace(at, 18,
                 "\"A new \xe2\x80\xae"
                 "kcap\"");
    spit(teacher.root + "/data/iolab/packs/course/pack.json", meta);
    auto [lcode, list] = teacher.iolab({"list"});
    INFO(list);
    CHECK(list.find("pack.json:5:19: \"title\" contains a bidirectional control (U+202E)") !=
          std::string::npos);
    CHECK(list.find("\xe2\x80\xae") == std::string::npos);
}

TEST_CASE("gradebook: a pass from the build made on opening the step is an attempt, with the "
          "whole score")
{
    // The workspace already holds a solution when the step opens: the TUI's first build (not a
    // save) passes, and that pass is the learner's first attempt.
    TempDir t;
    std::string pack = t / "course";
    REQUIRE(run({bin("iolab"), "new", pack}).first == 0);
    std::string ws = t / "data/iolab/work/course/first/your-echo";
    REQUIRE(run({"/bin/mkdir", "-p", ws}).first == 0);
    spit(ws + "/echo.c", slurp(pack + "/exercises/first/echo/echo.c"));
    IolabTerm term;
    REQUIRE(term.start(t.path, "--pack '" + pack + "' --open first/your-echo", "", 120, 40));
    std::string progress = t / "state/iolab/progress.json";
    auto record = [&]() {
        cJSON *j = cJSON_Parse(slurp(progress).c_str());
        const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "packs"), "course");
        const cJSON *ex = cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetObjectItem(c, "steps"), "first/your-echo"), "fields"),
            "exercise");
        char *text = ex ? cJSON_PrintUnformatted(ex) : nullptr;
        std::string out = text ? text : "";
        free(text);
        cJSON_Delete(j);
        return out;
    };
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (record().find("first_pass") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string rec = record();
    INFO(rec);
    INFO(term.last());
    CHECK(rec.find("\"attempts\":1,") != std::string::npos);
    CHECK(rec.find("\"first_pass\":") != std::string::npos);
    CHECK(rec.find("\"score\":{\"points\":2,\"of\":2,") != std::string::npos);
    // The pack's version is noted for exports.
    CHECK(slurp(progress).find("\"version\":\t\"1\"") != std::string::npos);
    term.keys("q");
    if (term.wait_for("quit?", 5))
        term.keys("y");
    CHECK(term.wait_for("IOLAB-EXITED", 30));
}

TEST_CASE("gradebook: a TUI run that fails one check keeps the points of the checks that held, "
          "the same as check --json's score")
{
    // The course's exercise, its read() check decided at 2 s (`within`), so that a run in the
    // TUI, where the load never ends, decides it.
    TempDir t;
    std::string pack = t / "course";
    REQUIRE(run({bin("iolab"), "new", pack}).first == 0);
    std::string lesson = slurp(pack + "/first.json");
    size_t at = lesson.find("\"metric\": \"calls:read\"");
    REQUIRE(at != std::string::npos);
    lesson.insert(at, "\"within\": 2, ");
    spit(pack + "/first.json", lesson);
    // An echo server that answers with recv() and send(): its clients get their echo, and it
    // never calls read().
    std::string solution = slurp(pack + "/exercises/first/echo/echo.c");
    std::string mine = solution;
    for (auto [from, to] : {std::pair<std::string, std::string>{"read(c, buf, sizeof buf)",
                                                                "recv(c, buf, sizeof buf, 0)"},
                            {"write(c, buf, (size_t)n)", "send(c, buf, (size_t)n, 0)"}}) {
        size_t k = mine.find(from);
        REQUIRE(k != std::string::npos);
        mine.replace(k, from.size(), to);
    }

    // The learner opens the step on the starter (not an attempt), then saves the program.
    IolabTerm term;
    REQUIRE(term.start(t.path, "--pack '" + pack + "' --open first/your-echo", "", 80, 24));
    REQUIRE(term.wait_status("Build 1: ok", 120));
    std::string ws = t / "data/iolab/work/course/first/your-echo";
    spit(ws + "/echo.c", mine);
    REQUIRE(term.wait_status("Build 2: ok", 120));
    std::string progress = t / "state/iolab/progress.json";
    auto record = [&]() {
        cJSON *j = cJSON_Parse(slurp(progress).c_str());
        const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "packs"), "course");
        const cJSON *ex = cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetObjectItem(c, "steps"), "first/your-echo"), "fields"),
            "exercise");
        char *text = ex ? cJSON_PrintUnformatted(ex) : nullptr;
        std::string out = text ? text : "";
        free(text);
        cJSON_Delete(j);
        return out;
    };
    // The run is judged once the read() check fails at 2 s; the screen says so.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (record().find("\"score\"") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string rec = record();
    INFO(rec);
    CHECK(term.wait_for("not within 2 s", 30));
    INFO(term.last());
    cJSON *r = cJSON_Parse(rec.c_str());
    REQUIRE(r);
    const cJSON *score = cJSON_GetObjectItem(r, "score");
    double tui_points = num(score, "points");
    CHECK(tui_points == 1);
    CHECK(num(score, "of") == 2);
    const cJSON *checks = cJSON_GetObjectItem(score, "checks");
    REQUIRE(cJSON_GetArraySize(checks) == 2);
    CHECK(num(cJSON_GetArrayItem(checks, 0), "points") == 1); // the echo: it held
    CHECK(num(cJSON_GetArrayItem(checks, 1), "points") == 0); // read(): it failed
    CHECK(num(r, "attempts") == 1);                           // the save
    CHECK(!cJSON_GetObjectItem(r, "first_pass"));
    cJSON_Delete(r);
    CHECK(term.quit());

    // `iolab check --json` on the same program (with a store of its own) scores the same.
    Person checker(t, "checker");
    auto [ccode, cout] =
        checker.iolab({"check", "first/your-echo", "--pack", pack, "--dir", ws, "--json"});
    INFO(cout);
    CHECK(ccode == 1);
    cJSON *verdict = json_line(cout);
    REQUIRE(verdict);
    CHECK(num(cJSON_GetObjectItem(verdict, "score"), "points") == tui_points);
    cJSON_Delete(verdict);

    // The learner's export, summed up by the teacher with the course installed: the same points.
    std::string file = t / "learner.json";
    std::vector<std::string> learner_env = {"HOME=" + t.path,
                                            "XDG_STATE_HOME=" + (t / "state"),
                                            "XDG_DATA_HOME=" + (t / "data"),
                                            "XDG_CACHE_HOME=" + (t / "cache"),
                                            "USER=lee",
                                            "LOGNAME=lee"};
    auto [ecode, eout] = run({bin("iolab"), "progress", "--export", file}, learner_env);
    INFO(eout);
    REQUIRE(ecode == 0);
    Person teacher(t, "teacher");
    teacher.install(pack, "course");
    auto [scode, sout] = teacher.iolab({"progress", "--summary", file});
    INFO(sout);
    CHECK(scode == 0);
    CHECK(sout.find("1x 1/2pt") != std::string::npos);
    auto [vcode, csv] = teacher.iolab({"progress", "--summary", "--csv", file});
    INFO(csv);
    CHECK(vcode == 0);
    std::istringstream in(csv.substr(csv.find("learner,")));
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    std::vector<std::string> titles = cells(header), values = cells(row);
    bool found = false;
    for (size_t i = 0; i < titles.size() && i < values.size(); i++)
        if (titles[i].find("first/your-echo points") == 0) {
            found = true;
            CHECK(values[i] == "1");
        }
    CHECK(found);
}

TEST_CASE("gradebook: an export whose own time is past tomorrow is refused by import and left out "
          "of the summary, in one sentence naming the file")
{
    TempDir t;
    Person teacher(t, "teacher");
    std::string pack = t / "course";
    REQUIRE(teacher.iolab({"new", pack}).first == 0);
    teacher.install(pack, "course");
    auto write = [&](const std::string &file, const std::string &learner, const std::string &when) {
        spit(file, R"({"iolab_progress": 1, "learner": ")" + learner + R"(", "exported_at": )" +
                       when + R"(, "packs": [{"id": "course",
  "version": "1", "steps": [{"step": "first/welcome", "done": true, "done_at": 1000,
  "updated": 1000, "fields": {}}]}]})");
    };
    std::string future = t / "future.json", fine = t / "fine.json", word = t / "word.json";
    write(future, "teacher", "99999999999"); // the year 5138
    write(fine, "ann", "3000");
    write(word, "teacher", "\"yesterday\"");

    auto [icode, iout] = teacher.iolab({"progress", "--import", future});
    INFO(iout);
    CHECK(icode == 1);
    CHECK(iout.find("iolab: " + future +
                    ": its \"exported_at\" time is more than a day after now; nothing was "
                    "imported.") != std::string::npos);
    CHECK(slurp(teacher.root + "/state/iolab/progress.json").find("first/welcome") ==
          std::string::npos);
    auto [wcode, wout] = teacher.iolab({"progress", "--import", word});
    INFO(wout);
    CHECK(wcode == 1);
    CHECK(wout.find("iolab: " + word +
                    ": \"exported_at\" must be a time (seconds since 1970); nothing was "
                    "imported.") != std::string::npos);

    // The summary leaves the file out and sums up the others.
    auto [scode, sout] = teacher.iolab({"progress", "--summary", future, fine});
    INFO(sout);
    CHECK(scode == 1);
    CHECK(sout.find("iolab: " + future +
                    ": its \"exported_at\" time is more than a day after now; left out of the "
                    "summary.") != std::string::npos);
    CHECK(sout.find("\nann ") != std::string::npos);
    CHECK(sout.find("\nteacher ") == std::string::npos);
}
