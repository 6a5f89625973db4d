// An instructor's course tools: an import merges only records that fit the packs installed
// here (a removed step, another pack, a quiz answer out of range or a prediction for a step that
// asks none is named and left out) and refuses another learner's export unless --as-mine; a pack
// installed under the data directory is found by its id (--pack ID) and by its lesson, and two
// packs with one id are named rather than guessed between; the lesson list labels each step by
// its kind; the schema names a quiz question with no correct answer in words.
#include "helpers.hpp"

extern "C" {
#include "lesson/lesson.h"
}

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace iolab_test;

namespace
{

// One person's iolab: a state directory (the progress store), a data directory (installed
// packs) and a login name.
struct Home {
    TempDir t;
    std::string state = t / "state", packs = t / "data/iolab/packs";
    std::vector<std::string> env;
    explicit Home(const std::string &login)
        : env({"XDG_STATE_HOME=" + (t / "state"), "XDG_DATA_HOME=" + (t / "data"),
               "XDG_CACHE_HOME=" + (t / "cache"), "HOME=" + t.path, "USER=" + login,
               "LOGNAME=" + login})
    {
        REQUIRE(system(("mkdir -p '" + state + "/iolab' '" + packs + "'").c_str()) == 0);
    }
    std::pair<int, std::string> iolab(std::vector<std::string> args, double timeout = 120) const
    {
        args.insert(args.begin(), bin("iolab"));
        return run(args, env, timeout);
    }
    // Installs a copy of a test pack as packs/NAME, with its id changed when id is given.
    std::string install(const std::string &pack, const std::string &name,
                        const std::string &id = "") const
    {
        std::string dir = packs + "/" + name;
        REQUIRE(system(("cp -r '" + data("packs/" + pack) + "' '" + dir + "'").c_str()) == 0);
        if (!id.empty()) {
            std::string meta = slurp(dir + "/pack.json");
            size_t at = meta.find("\"quiz-test\"");
            REQUIRE(at != std::string::npos);
            meta.replace(at, 11, "\"" + id + "\"");
            spit(dir + "/pack.json", meta);
        }
        return dir;
    }
    std::string store() const
    {
        return slurp(state + "/iolab/progress.json");
    }
};

size_t count(const std::string &s, const std::string &what)
{
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        n++;
    return n;
}

// An export of learner's progress in the built-in pack (as version `version` of it) and in a
// pack that is not installed, with one record of each kind of misfit and one that fits.
std::string course_export(const std::string &learner, const std::string &version)
{
    return R"({"iolab_progress": 1, "learner": ")" + learner +
           R"(", "exported_at": 5000, "packs": [
  {"id": "linux-io", "version": ")" +
           version + R"(", "steps": [
    {"step": "concurrency/problem", "done": true, "done_at": 1000, "updated": 1000},
    {"step": "zerocopy/yours", "done": true, "done_at": 1100, "updated": 1100},
    {"step": "stdio/check", "done": true, "done_at": 1200, "updated": 1200,
     "fields": {"quiz": {"questions": [{"chosen": [6], "tries": 1, "right": true},
                                       {"chosen": [0], "tries": 1, "right": true}]}}},
    {"step": "stdio/small", "done": false, "done_at": 0, "updated": 1300,
     "fields": {"predict": {"predictions": [{"number": 3}]}}},
    {"step": "stdio/large", "done": false, "done_at": 0, "updated": 1400,
     "fields": {"predict": {"predictions": [{"number": 3}]}}}]},
  {"id": "course", "version": "1", "steps": [
    {"step": "a/b", "done": true, "done_at": 1500, "updated": 1500}]}]})";
}

bool store_has(const std::string &store, const std::string &step)
{
    return store.find("\"" + step + "\"") != std::string::npos;
}

} // namespace

TEST_CASE("instructor packs: records that do not fit the installed pack are named, one line "
          "each, and left out of the counts")
{
    Home alice("alice");
    std::string file = alice.t / "alice.json";
    spit(file, course_export("alice", "0.9"));
    auto [code, out] = alice.iolab({"progress", "--import", file});
    INFO(out);
    REQUIRE(code == 0);
    // Each record left out: the file, the step, why.
    CHECK(out.find("iolab: " + file +
                   ": linux-io/zerocopy/yours: pack linux-io version 1.0 has no such step (the "
                   "export is of version 0.9); left out.\n") != std::string::npos);
    CHECK(out.find("iolab: " + file +
                   ": linux-io/stdio/check: question 1 chose answer 7, and the question has 3; "
                   "left out.\n") != std::string::npos);
    CHECK(out.find("iolab: " + file +
                   ": linux-io/stdio/small: it holds predictions, and the step asks for none; "
                   "left out.\n") != std::string::npos);
    CHECK(out.find("iolab: " + file +
                   ": course/a/b: pack course is not installed here (`iolab list` shows the "
                   "packs); left out.\n") != std::string::npos);
    // The rest is imported, and the counts are of what was.
    CHECK(out.find("Imported alice's progress from " + file +
                   ": 2 steps: 2 new, 0 newer than yours (taken), 0 older (yours kept, with what "
                   "it added), 0 unchanged; 1 step now done.\n") != std::string::npos);
    CHECK(out.find("4 records left out: they do not fit the packs installed here (named "
                   "above).") != std::string::npos);

    std::string store = alice.store();
    INFO(store);
    CHECK(store_has(store, "concurrency/problem"));
    CHECK(store_has(store, "stdio/large")); // its prediction fits: the step asks one
    for (const char *gone : {"zerocopy/yours", "stdio/check", "stdio/small", "course"})
        CHECK_FALSE(store_has(store, gone));
    auto [pcode, pout] = alice.iolab({"progress"});
    CHECK(pcode == 0);
    CHECK(pout.find("pack linux-io: 1 step done") != std::string::npos);
    CHECK(pout.find("zerocopy/yours") == std::string::npos);
}

TEST_CASE("instructor packs: another learner's export is refused in one sentence unless "
          "--as-mine")
{
    Home bob("bob");
    spit(bob.state + "/iolab/progress.json",
         R"({"format": 1, "packs": {"linux-io": {"done": ["chat/problem"]}}})");
    std::string before = bob.store();
    std::string file = bob.t / "alice.json";
    spit(file, course_export("alice", "1.0"));
    auto [code, out] = bob.iolab({"progress", "--import", file});
    CHECK(code == 1);
    CHECK(out == "iolab: " + file +
                     " is alice's progress, not yours (bob): nothing was imported; --as-mine "
                     "imports it when it is yours under another name.\n");
    CHECK(bob.store() == before);

    // The same person under another login says so; the misfits are still left out.
    auto [mcode, mout] = bob.iolab({"progress", "--import", file, "--as-mine"});
    INFO(mout);
    CHECK(mcode == 0);
    CHECK(mout.find("Imported alice's progress from " + file + ": 2 steps: 2 new") !=
          std::string::npos);
    CHECK(count(mout, "; left out.\n") == 4);
    CHECK(store_has(bob.store(), "concurrency/problem"));

    // --as-mine belongs to --import, and the help says what it is for.
    auto [ucode, uout] = bob.iolab({"progress", "--as-mine"});
    CHECK(ucode == 2);
    CHECK(uout.find("--as-mine is for --import FILE.") != std::string::npos);
    auto [hcode, hout] = bob.iolab({"progress", "--help"});
    CHECK(hcode == 0);
    CHECK(hout.find("--import FILE [--as-mine]") != std::string::npos);
    CHECK(hout.find("refused unless --as-mine") != std::string::npos);

    // A malformed export is still refused whole, before its learner is looked at.
    spit(file, R"({"iolab_progress": 1, "learner": 7, "packs": []})");
    auto [bcode, bout] = bob.iolab({"progress", "--import", file});
    CHECK(bcode == 1);
    CHECK(bout.find("\"learner\" must be a string; nothing was imported.") != std::string::npos);
}

TEST_CASE("instructor packs: a pack installed under the data directory is found by its id and "
          "by its lesson")
{
    Home h("ann");
    h.install("quiz", "course");
    // --pack ID: the installed pack's id, for run and for check.
    auto [rcode, rout] =
        h.iolab({"run", "q/watch", "--pack", "quiz-test", "--seconds", "1", "--json"});
    INFO(rout);
    CHECK(rcode == 0);
    CHECK(rout.find("\"lesson\":\"q\",\"step\":\"watch\"") != std::string::npos);
    auto [ccode, cout] = h.iolab({"check", "--pack", "quiz-test"});
    INFO(cout);
    CHECK(ccode == 0);
    CHECK(cout.find("q/watch") != std::string::npos);
    // No --pack: the lesson is not in the built-in pack, and only this installed one has it.
    auto [lcode, lout] = h.iolab({"run", "q/watch", "--seconds", "1", "--json"});
    INFO(lout);
    CHECK(lcode == 0);
    CHECK(lout.find("\"lesson\":\"q\",\"step\":\"watch\"") != std::string::npos);
    // The built-in pack by its id, and a name that is neither a directory nor an id.
    auto [bcode, bout] =
        h.iolab({"run", "stdio/small", "--pack", "linux-io", "--seconds", "1", "--json"});
    INFO(bout);
    CHECK(bcode == 0);
    auto [ncode, nout] = h.iolab({"run", "q/watch", "--pack", "no-such-pack"});
    CHECK(ncode != 0);
    CHECK(nout == "iolab: 'no-such-pack' is neither a directory nor the id of a pack iolab sees "
                  "(the built-in one, or one installed under " +
                      h.packs + "); `iolab list` shows them.\n");
}

TEST_CASE("instructor packs: two installed packs with one id, or one lesson, are named and not "
          "guessed between")
{
    Home h("ann");
    std::string one = h.install("quiz", "one"), two = h.install("quiz", "two");
    auto [code, out] = h.iolab({"run", "q/watch", "--pack", "quiz-test", "--seconds", "1"});
    CHECK(code != 0);
    CHECK(out == "iolab: 2 packs have the id 'quiz-test', " + one + " and " + two +
                     "; name one with --pack DIR.\n");
    auto [ccode, cout] = h.iolab({"check", "--pack", "quiz-test"});
    CHECK(ccode != 0);
    CHECK(cout.find("2 packs have the id 'quiz-test'") != std::string::npos);
    auto [lcode, lout] = h.iolab({"run", "q/watch", "--seconds", "1"});
    CHECK(lcode != 0);
    CHECK(lout == "iolab: 2 packs have a lesson 'q', " + one + " and " + two +
                      "; name one with --pack DIR.\n");
    // iolab list still lists both, and warns once.
    auto [tcode, tout] = h.iolab({"list"});
    CHECK(tcode == 0);
    CHECK(count(tout, "quiz-test: Quiz test pack") == 2);
    CHECK(count(tout, "iolab: warning: the packs in " + one + " and " + two +
                          " both have the id 'quiz-test'") == 1);

    // Given their own ids, each is found by its id; the lesson is still in both.
    std::string three = h.install("quiz", "three", "quiz-three");
    REQUIRE(system(("rm -rf '" + two + "'").c_str()) == 0);
    auto [icode, iout] = h.iolab({"run", "q/watch", "--pack", "quiz-three", "--seconds", "1"});
    INFO(iout);
    CHECK(icode == 0);
    auto [wcode, wout] = h.iolab({"list"});
    CHECK(wcode == 0);
    CHECK(wout.find("warning") == std::string::npos);
    auto [qcode, qout] = h.iolab({"run", "q/watch", "--seconds", "1"});
    CHECK(qcode != 0);
    CHECK(qout == "iolab: 2 packs have a lesson 'q', " + one + " and " + three +
                      "; name one with --pack DIR.\n");
}

TEST_CASE("instructor packs: the lesson list labels each step by its kind")
{
    std::string libexec = build_dir() + "/libexec/iolab", dir = source_dir() + "/lessons";
    lesson_load_options opts = {};
    opts.libexec_dir = libexec.c_str();
    lesson_pack *pack = nullptr;
    lesson_diags diags = {};
    REQUIRE(lesson_pack_load(dir.c_str(), &opts, &pack, &diags) == 0);
    const lesson *l = lesson_find(pack, "concurrency");
    REQUIRE(l);
    std::map<std::string, std::string> want = {{"problem", "text"},
                                               {"compare", "run"},
                                               {"write-fib-server", "exercise"},
                                               {"check", "quiz"},
                                               {"sweep", "sweep"}};
    for (size_t i = 0; i < l->nsteps; i++) {
        auto w = want.find(l->steps[i].id);
        if (w == want.end())
            continue;
        INFO(w->first);
        CHECK(lesson_step_label(&l->steps[i]) == w->second);
        want.erase(w);
    }
    CHECK(want.empty()); // every step named above is in the lesson
    lesson_pack_free(pack);
    lesson_diags_free(&diags);
}

TEST_CASE("instructor packs: the schema names a quiz question with no correct answer")
{
    auto [jcode, jout] = run({"/usr/bin/python3", "-c", "import jsonschema"});
    INFO("python3-jsonschema is missing: ./setup.sh --test installs it (" << jout << ")");
    REQUIRE(jcode == 0);
    auto [code, out] = run({"/usr/bin/python3", source_dir() + "/tests/schema/schema_check.py",
                            build_dir() + "/share/iolab/schema", "rejects", data("packs/bad/quiz")},
                           {}, 120);
    INFO(out);
    CHECK(code == 0);
    std::string file = data("packs/bad/quiz") + "/a.json";
    CHECK(out.find(file + ": steps/0/questions/0/answers: no correct answer: mark at least one "
                          "answer \"correct\": true, or the question can never be answered "
                          "right\n") != std::string::npos);
    CHECK(out.find("None of [") == std::string::npos); // jsonschema's own words quote the array
}
