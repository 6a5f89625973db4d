// Progress that travels (iolab progress --export / --import / --summary): an export read back
// into an empty store is the same progress; an import into a store with newer records keeps
// them, takes the older ones' place only where the file is newer, never undoes a done step and
// never drops a field; an instructor's summary of three exports; a file that is not an export
// changes nothing. The exports here are the learner's own from another machine and login, so
// they are imported --as-mine; another learner's export and records that do not fit the pack are
// test_instructor_packs.cpp's.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace iolab_test;

namespace
{

// A learner's own state directory, with a progress file written as the store writes it.
struct Learner {
    std::string state;
    std::vector<std::string> env;
    Learner(const TempDir &t, const std::string &name, const std::string &progress = "")
        : state(t / name), env({"XDG_STATE_HOME=" + state, "XDG_DATA_HOME=" + (t / "data"),
                                "USER=" + name, "LOGNAME=" + name})
    {
        REQUIRE(system(("mkdir -p '" + state + "/iolab'").c_str()) == 0);
        if (!progress.empty())
            spit(state + "/iolab/progress.json", progress);
    }
    std::pair<int, std::string> iolab(std::vector<std::string> args) const
    {
        args.insert(args.begin(), bin("iolab"));
        return run(args, env);
    }
    // The store as `iolab progress --json` prints it.
    cJSON *store() const
    {
        auto [code, out] = iolab({"progress", "--json"});
        REQUIRE(code == 0);
        cJSON *j = cJSON_Parse(out.c_str());
        REQUIRE(j);
        return j;
    }
};

const cJSON *step_of(const cJSON *store, const char *pack, const char *step)
{
    const cJSON *pk = cJSON_GetObjectItem(cJSON_GetObjectItem(store, "packs"), pack);
    return cJSON_GetObjectItem(cJSON_GetObjectItem(pk, "steps"), step);
}

bool is_done(const cJSON *store, const char *pack, const char *step)
{
    const cJSON *pk = cJSON_GetObjectItem(cJSON_GetObjectItem(store, "packs"), pack);
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(pk, "done"))
    {
        if (!strcmp(d->valuestring, step))
            return true;
    }
    return false;
}

double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

// Steps of the built-in pack, with records that fit them (an import leaves out those that do not:
// test_instructor_packs.cpp). "notes" is a field this iolab does not know: it travels as it is.
const char *alice_progress = R"({"format": 1, "packs": {"linux-io": {
  "done": ["concurrency/problem", "zerocopy/write-sendfile"],
  "last": {"lesson": "zerocopy", "step": "write-sendfile"},
  "steps": {
    "concurrency/problem": {"updated": 1000, "done_at": 1000},
    "zerocopy/write-sendfile": {"updated": 3000, "done_at": 2500,
                       "fields": {"exercise": {"attempts": 4, "first_pass": 3, "solution_viewed": true}}},
    "stdio/check": {"updated": 2000,
                    "fields": {"quiz": {"questions": [{"chosen": [1], "tries": 2, "right": false}]},
                               "notes": {"text": "ask about O_DIRECT"}}}}}}})";

} // namespace

TEST_CASE("exchange: an export imported into an empty store is the same progress")
{
    TempDir t;
    Learner alice(t, "alice", alice_progress), empty(t, "elsewhere");
    std::string file = t / "alice.json";
    auto [ecode, eout] = alice.iolab({"progress", "--export", file});
    INFO(eout);
    REQUIRE(ecode == 0);
    std::string text = slurp(file);
    CHECK(text.find("\"learner\": \"alice\"") != std::string::npos); // the login name by default
    CHECK(text.find("\"id\": \"linux-io\", \"version\": \"1.0\"") != std::string::npos);

    // The same learner under another login on the other machine: --as-mine.
    auto [icode, iout] = empty.iolab({"progress", "--import", file, "--as-mine"});
    INFO(iout);
    REQUIRE(icode == 0);
    CHECK(iout.find("Imported alice's progress from " + file +
                    ": 3 steps: 3 new, 0 newer than yours (taken), 0 older (yours kept, with "
                    "what it added), 0 unchanged; 2 steps now done.") != std::string::npos);
    CHECK(iout.find("  new     linux-io/zerocopy/write-sendfile (now done)") != std::string::npos);
    CHECK(iout.find("left out") == std::string::npos);

    cJSON *a = alice.store(), *b = empty.store();
    for (const char *s : {"concurrency/problem", "zerocopy/write-sendfile", "stdio/check"}) {
        INFO(s);
        CHECK(is_done(a, "linux-io", s) == is_done(b, "linux-io", s));
        CHECK(cJSON_Compare(step_of(a, "linux-io", s), step_of(b, "linux-io", s), 1));
    }
    CHECK(num(step_of(b, "linux-io", "zerocopy/write-sendfile"), "done_at") ==
          2500); // times travel
    cJSON_Delete(a);
    cJSON_Delete(b);

    // Again: nothing changes.
    auto [again, aout] = empty.iolab({"progress", "--import", file, "--as-mine"});
    CHECK(again == 0);
    CHECK(aout.find("0 new, 0 newer than yours (taken), 0 older (yours kept, with what it "
                    "added), 3 unchanged; 0 steps now done.") != std::string::npos);
}

TEST_CASE("exchange: an import keeps newer records, takes older ones' place, loses nothing")
{
    TempDir t;
    Learner alice(t, "alice", alice_progress);
    // This machine: the quiz answered later (newer: stays), the problem step touched earlier and
    // not done (older: the file's done record wins), the exercise done earlier with a field the
    // file does not have (older, but done and its field stay).
    Learner home(t, "home", R"({"format": 1, "packs": {"linux-io": {
      "done": ["zerocopy/write-sendfile"],
      "steps": {
        "stdio/check": {"updated": 9000, "done_at": 0,
                        "fields": {"quiz": {"questions": [{"chosen": [0], "tries": 7, "right": true}]}}},
        "concurrency/problem": {"updated": 500, "done_at": 0,
                                "fields": {"notes": {"text": "reread"}}},
        "zerocopy/write-sendfile": {"updated": 1500, "done_at": 1200,
                           "fields": {"hints": {"shown": 2}}}}}}})");
    std::string file = t / "alice.json";
    REQUIRE(alice.iolab({"progress", "--export", file, "--learner", "alice"}).first == 0);
    auto [code, out] = home.iolab({"progress", "--import", file, "--as-mine"});
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find("3 steps: 0 new, 2 newer than yours (taken), 1 older (yours kept, with what "
                   "it added), 0 unchanged; 1 step now done.") != std::string::npos);
    CHECK(out.find("  newer   linux-io/concurrency/problem (now done)") != std::string::npos);
    CHECK(out.find("  merged  linux-io/stdio/check") != std::string::npos);

    cJSON *h = home.store();
    const cJSON *quiz = cJSON_GetObjectItem(
        cJSON_GetObjectItem(step_of(h, "linux-io", "stdio/check"), "fields"), "quiz");
    char *qtext = cJSON_PrintUnformatted(quiz);
    CHECK(std::string(qtext).find("\"tries\":7") != std::string::npos); // the newer one stayed
    free(qtext);
    CHECK(cJSON_GetObjectItem( // and got the field only the file had
        cJSON_GetObjectItem(step_of(h, "linux-io", "stdio/check"), "fields"), "notes"));
    CHECK(num(step_of(h, "linux-io", "stdio/check"), "updated") == 9000);

    const cJSON *prob = step_of(h, "linux-io", "concurrency/problem");
    CHECK(is_done(h, "linux-io", "concurrency/problem"));
    CHECK(num(prob, "updated") == 1000);
    CHECK(num(prob, "done_at") == 1000);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(prob, "fields"), "notes")); // kept

    const cJSON *ex = step_of(h, "linux-io", "zerocopy/write-sendfile");
    CHECK(is_done(h, "linux-io", "zerocopy/write-sendfile"));
    CHECK(num(ex, "done_at") == 1200); // the earlier done time
    CHECK(num(ex, "updated") == 3000);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(ex, "fields"), "hints"));
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(ex, "fields"), "exercise"));
    cJSON_Delete(h);

    // Importing the other way never undoes what the other machine had done.
    std::string back = t / "home.json";
    REQUIRE(home.iolab({"progress", "--export", back}).first == 0);
    REQUIRE(alice.iolab({"progress", "--import", back, "--as-mine"}).first == 0);
    cJSON *a = alice.store();
    CHECK(is_done(a, "linux-io", "zerocopy/write-sendfile"));
    CHECK(is_done(a, "linux-io", "concurrency/problem"));
    cJSON_Delete(a);
}

TEST_CASE("exchange: an instructor's summary of three exports, as a table and as CSV")
{
    TempDir t;
    // The built-in pack: a summary counts only records that fit an installed pack (a pack iolab
    // does not know is left out, as an import leaves it out: test_gradebook.cpp), and every step
    // of an installed pack is a column.
    Learner alice(t, "alice", alice_progress);
    Learner bob(t, "bob", R"({"format": 1, "packs": {"linux-io": {
      "done": ["concurrency/problem", "stdio/check"],
      "steps": {"stdio/check": {"updated": 4000, "done_at": 4000,
                "fields": {"quiz": {"questions": [{"tries": 1, "right": true}, {"tries": 2, "right": true}]}}}}}}})");
    Learner carol(t, "carol",
                  R"({"format": 1, "packs": {"linux-io": {"done": ["concurrency/problem"]}}})");
    std::vector<std::string> files;
    for (const Learner *l : {&alice, &bob, &carol}) {
        files.push_back(l->state + ".json");
        REQUIRE(l->iolab({"progress", "--export", files.back()}).first == 0);
    }
    auto [code, out] = run({bin("iolab"), "progress", "--summary", files[0], files[1], files[2]});
    INFO(out);
    REQUIRE(code == 0);
    std::istringstream lines(out);
    std::map<std::string, std::string> rows;
    for (std::string line; std::getline(lines, line);)
        rows[line.substr(0, line.find(' '))] = line;
    CHECK(rows["alice"].find("done 4x +solution") != std::string::npos);
    CHECK(rows["alice"].find("started 2x") != std::string::npos);
    CHECK(rows["bob"].find("done 3x") != std::string::npos);
    CHECK(rows["carol"].find("done") != std::string::npos);
    CHECK(out.find("3 learners, ") != std::string::npos);

    auto [ccode, csv] =
        run({bin("iolab"), "progress", "--summary", "--csv", files[0], files[1], files[2]});
    INFO(csv);
    REQUIRE(ccode == 0);
    // The cells of a step, found by the header's titles.
    std::istringstream in(csv);
    std::string header;
    std::getline(in, header);
    std::vector<std::string> titles;
    for (size_t at = 0, next; at <= header.size(); at = next + 1) {
        next = header.find(',', at);
        if (next == std::string::npos)
            next = header.size();
        titles.push_back(header.substr(at, next - at));
    }
    std::map<std::string, std::vector<std::string>> cells;
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> c;
        for (size_t at = 0, next; at <= line.size(); at = next + 1) {
            next = line.find(',', at);
            if (next == std::string::npos)
                next = line.size();
            c.push_back(line.substr(at, next - at));
        }
        cells[c[0]] = c;
    }
    auto cell = [&](const std::string &who, const std::string &title) {
        for (size_t i = 0; i < titles.size(); i++)
            if (titles[i] == title)
                return i < cells[who].size() ? cells[who][i] : std::string("?");
        return std::string("no column ") + title;
    };
    CHECK(titles[0] == "learner");
    CHECK(cell("alice", "concurrency/problem done") == "1");
    CHECK(cell("alice", "zerocopy/write-sendfile tries") == "4");
    CHECK(cell("alice", "zerocopy/write-sendfile solution viewed") == "1");
    CHECK(cell("alice", "stdio/check done") == "0");
    CHECK(cell("alice", "stdio/check tries") == "2");
    CHECK(cell("bob", "stdio/check done") == "1");
    CHECK(cell("bob", "stdio/check tries") == "3");
    CHECK(cell("carol", "zerocopy/write-sendfile done") == "0");
}

TEST_CASE("exchange: a file that is not an export changes nothing, in one sentence")
{
    TempDir t;
    Learner home(t, "home", alice_progress);
    std::string before = slurp(home.state + "/iolab/progress.json");
    std::string bad = t / "bad.json";
    spit(
        bad,
        R"({"iolab_progress": 1, "learner": "x", "packs": [{"id": "p", "steps": [{"step": "a/b", "done": "yes", "done_at": 0, "updated": 0}]}]})");
    auto [code, out] = home.iolab({"progress", "--import", bad});
    CHECK(code == 1);
    CHECK(out ==
          "iolab: " + bad +
              ": packs[0].steps[0]: \"done\" must be true or false; nothing was imported.\n");
    spit(bad, "{\"iolab_progress\": 1,\n  oops}");
    auto [code2, out2] = home.iolab({"progress", "--import", bad});
    CHECK(code2 == 1);
    CHECK(out2.find("iolab: " + bad + ": 2:") == 0); // the line cJSON stopped on
    CHECK(out2.find(": this is not valid JSON; nothing was imported.\n") != std::string::npos);
    CHECK(slurp(home.state + "/iolab/progress.json") == before);

    auto [scode, sout] = run({bin("iolab"), "progress", "--summary"});
    CHECK(scode == 2);
    CHECK(sout.find("--summary needs the exports") != std::string::npos);
}

TEST_CASE("exchange: an export holding bytes that are not UTF-8 or a NUL is refused whole, with "
          "its member and position")
{
    TempDir t;
    Learner home(t, "home", alice_progress);
    std::string before = slurp(home.state + "/iolab/progress.json");
    std::string bad = t / "bad.json";
    // A step id with a byte that is not UTF-8, after one good step: nothing at all is merged.
    spit(bad, "{\"iolab_progress\": 1, \"learner\": \"x\", \"packs\": [{\"id\": "
              "\"linux-io\", \"steps\": [\n"
              "{\"step\": \"a/good\", \"done\": true, \"done_at\": 1, \"updated\": 1},\n"
              "{\"step\": \"a/b\xff\", \"done\": true, \"done_at\": 1, \"updated\": 1}]}]}");
    auto [code, out] = home.iolab({"progress", "--import", bad});
    CHECK(code == 1);
    CHECK(out == "iolab: " + bad +
                     ": 3:14: \"packs[0].steps[1].step\" holds bytes that are not UTF-8; nothing "
                     "was imported.\n");
    CHECK(slurp(home.state + "/iolab/progress.json") == before);

    // The same for a pack id with \u0000 (which would cut the id short) and for a field's text.
    spit(
        bad,
        R"({"iolab_progress": 1, "learner": "x", "packs": [{"id": "linux-io\u0000x", "steps": []}]})");
    auto [code2, out2] = home.iolab({"progress", "--import", bad});
    CHECK(code2 == 1);
    CHECK(out2.find("\"packs[0].id\" holds a NUL character") != std::string::npos);
    spit(bad, "{\"iolab_progress\": 1, \"learner\": \"x\", \"packs\": [{\"id\": \"linux-io\", "
              "\"steps\": [{\"step\": \"a/b\", \"done\": false, \"done_at\": 0, \"updated\": 1, "
              "\"fields\": {\"quiz\": {\"answer\": \"\xc3\x28\"}}}]}]}");
    auto [code3, out3] = home.iolab({"progress", "--import", bad});
    CHECK(code3 == 1);
    CHECK(out3.find("\"packs[0].steps[0].fields.quiz.answer\" holds bytes that are not UTF-8") !=
          std::string::npos);
    CHECK(slurp(home.state + "/iolab/progress.json") == before);

    // The store stays readable: the next start finds nothing damaged.
    auto [pcode, pout] = home.iolab({"progress"});
    CHECK(pcode == 0);
    CHECK(pout.find("damaged") == std::string::npos);
}

TEST_CASE("exchange: a temporary file left by a writer killed before its rename is removed at "
          "the next import")
{
    TempDir t;
    Learner home(t, "home", alice_progress);
    std::string left = home.state + "/iolab/progress.json.tmp-Ab12Cd";
    spit(left, "");
    Learner other(t, "other", alice_progress);
    std::string exp = t / "alice.json";
    REQUIRE(other.iolab({"progress", "--export", exp}).first == 0);
    auto [code, out] = home.iolab({"progress", "--import", exp, "--as-mine"});
    CHECK(code == 0);
    CHECK(access(left.c_str(), F_OK) != 0);
    CHECK(access((home.state + "/iolab/progress.json").c_str(), F_OK) == 0);
}

TEST_CASE("exchange: an import while the TUI runs survives the TUI's next save, and a killed "
          "writer's temporary file is gone when the TUI starts")
{
    TempDir t;
    REQUIRE(system(("mkdir -p '" + (t / "state/iolab") + "'").c_str()) == 0);
    std::string left = t / "state/iolab/progress.json.tmp-Zz9Yy8";
    spit(left, "");
    IolabTerm term(t, "");
    REQUIRE(term.started());
    REQUIRE(term.wait_for("Start:", 30));
    CHECK(access(left.c_str(), F_OK) != 0);

    // The learner's export from another machine (another login: --as-mine), imported from
    // another window while the TUI is open.
    TempDir o;
    Learner other(o, "other", R"({"format": 1, "packs": {"linux-io": {"done": ["chat/check"],
        "steps": {"chat/check": {"updated": 1764000000, "done_at": 1764000000,
                                 "fields": {"quiz": {"tries": 4}}}}}}})");
    std::string exp = o / "other.json";
    REQUIRE(other.iolab({"progress", "--export", exp}).first == 0);
    std::vector<std::string> env = {"HOME=" + t.path, "XDG_STATE_HOME=" + (t / "state")};
    auto [code, out] = run({bin("iolab"), "progress", "--import", exp, "--as-mine"}, env);
    REQUIRE(code == 0);

    // The TUI then saves (opening a step records the place, moving on marks it done).
    term.keys("Enter");
    REQUIRE(term.wait_for("Step 1/", 30));
    term.keys("n");
    REQUIRE(term.wait_for("Step 2/", 30));
    REQUIRE(term.quit());
    auto [pcode, pout] = run({bin("iolab"), "progress", "--json"}, env);
    REQUIRE(pcode == 0);
    cJSON *store = cJSON_Parse(pout.c_str());
    REQUIRE(store);
    INFO(pout);
    CHECK(is_done(store, "linux-io", "chat/check")); // imported
    CHECK(num(cJSON_GetObjectItem(
                  cJSON_GetObjectItem(step_of(store, "linux-io", "chat/check"), "fields"), "quiz"),
              "tries") == 4);
    CHECK(is_done(store, "linux-io", "ordered/protocol")); // the TUI's own
    cJSON_Delete(store);
}
