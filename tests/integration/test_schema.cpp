// The JSON Schemas of pack files (assets/schema/): every built-in file and every good test pack
// follows them, the structurally damaged packs of the lint tests break them, the damage only a
// cross-reference shows does not (that stays lint's), and each step kind's keys in the schema are
// exactly the keys iolab's loader takes. Validation is python3-jsonschema's (setup.sh --test).
#include "helpers.hpp"

extern "C" {
#include "lesson/check.h"
#include "lesson/kind.h"
#include "lesson/load.h"
#include "metrics/figure.h"
}

#include <catch2/catch.hpp>
#include <fstream>
#include <sys/stat.h>

using namespace iolab_test;

namespace
{

std::pair<int, std::string> schema_check(const std::vector<std::string> &args)
{
    std::vector<std::string> argv = {"/usr/bin/python3",
                                     source_dir() + "/tests/schema/schema_check.py",
                                     build_dir() + "/share/iolab/schema"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {}, 120);
}

void require_jsonschema()
{
    auto [code, out] = run({"/usr/bin/python3", "-c", "import jsonschema"});
    INFO("python3-jsonschema is missing: ./setup.sh --test installs it (" << out << ")");
    REQUIRE(code == 0);
}

} // namespace

TEST_CASE("schema: every built-in pack file and every good test pack follows the schema")
{
    require_jsonschema();
    auto [code, out] = schema_check({"valid", source_dir() + "/lessons", data("packs/good"),
                                     data("packs/own-program"), data("packs/quiz")});
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("0 problem(s)") != std::string::npos);
}

TEST_CASE("schema: structurally damaged packs break it, cross-reference damage stays with lint")
{
    require_jsonschema();
    // Wrong types, unknown keys, missing keys, bad values of a known shape.
    for (const char *bad : {"wrong-type", "unknown-key", "missing-field", "bad-size", "bad-metric",
                            "several", "nul-in-id", "quiz", "predict", "pack-build"}) {
        auto [code, out] = schema_check({"rejects", data(std::string("packs/bad/") + bad)});
        INFO(bad << ":\n" << out);
        CHECK(code == 0);
    }
    auto [wt, wtout] = schema_check({"rejects", data("packs/bad/wrong-type")});
    CHECK(wtout.find("'no' is not of type 'boolean'") != std::string::npos);
    auto [uk, ukout] = schema_check({"rejects", data("packs/bad/unknown-key")});
    CHECK(ukout.find("'titel' is not one of") != std::string::npos);
    // Names that only another part of the pack resolves: the schema cannot know them.
    for (const char *lints : {"mode-no-program", "duplicate-step", "duplicate-lesson",
                              "missing-program", "unknown-placeholder"}) {
        auto [code, out] = schema_check({"rejects", data(std::string("packs/bad/") + lints)});
        INFO(lints << ":\n" << out);
        CHECK(code == 1);
    }
}

TEST_CASE("schema: each step kind's keys are the ones iolab's loader takes")
{
    require_jsonschema();
    TempDir tmp;
    std::string path = tmp / "kinds.json";
    std::ofstream f(path);
    f << "{";
    const struct lesson_kind *k;
    for (size_t i = 0; (k = lesson_kind_at(i)); i++) {
        f << (i ? "," : "") << "\"" << k->name << "\":[\"id\",\"title\",\"kind\",\"text\"";
        for (const struct lesson_kind *row : {k->base, k})
            for (size_t j = 0; row && j < row->nfields; j++)
                f << ",\"" << row->fields[j].name << "\"";
        f << "]";
    }
    f << "}";
    f.close();
    auto [code, out] = schema_check({"keys", path});
    INFO(out);
    CHECK(code == 0);
}

TEST_CASE("schema: lint and the schema refuse the same damaged lessons")
{
    require_jsonschema();
    // Each pack has one problem that lint and the schema used to disagree on; expected.txt holds
    // lint's sentences about it (unit_lesson_load compares them whole).
    for (const char *bad : {"agree-empty-text", "agree-quiz-feedback", "agree-unknown-call",
                            "agree-sweep-zero", "agree-tolerance", "agree-points"}) {
        std::string dir = data(std::string("packs/bad/") + bad);
        auto [scode, sout] = schema_check({"rejects", dir});
        INFO(bad << ": the schema says:\n" << sout);
        CHECK(scode == 0);
        auto [lcode, lout] = run({bin("iolab"), "lint", dir}, {}, 120);
        INFO(bad << ": lint says:\n" << lout);
        CHECK(lcode != 0);
        std::ifstream f(dir + "/expected.txt");
        for (std::string line; std::getline(f, line);)
            CHECK(lout.find(dir + "/" + line) != std::string::npos);
    }
}

TEST_CASE("schema: the check metrics it accepts are iolab's own, and lint's hint names them all")
{
    require_jsonschema();
    // Every metric the loader knows, calls included, matches the schema's pattern; a call iolab
    // does not count does not.
    std::string names;
    char buf[64];
    for (size_t i = 0; check_figure_name(i, buf, sizeof buf); i++)
        names += std::string(buf) + "\n";
    names += "calls:reed\n";
    const char *script = R"PY(
import json, re, sys
schema = json.load(open(sys.argv[1]))
pattern = schema["definitions"]["check"]["properties"]["metric"]["pattern"]
for name in sys.stdin.read().split():
    print("%s %s" % (name, "accepted" if re.search(pattern, name) else "refused"))
)PY";
    TempDir tmp;
    std::string list = tmp / "names.txt";
    spit(list, names);
    auto [code, out] = run({"/bin/sh", "-c", "/usr/bin/python3 -c \"$0\" \"$1\" < \"$2\"", script,
                            build_dir() + "/share/iolab/schema/lesson.schema.json", list});
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find(" refused") == out.rfind(" refused")); // calls:reed alone
    CHECK(out.find("calls:reed refused") != std::string::npos);

    // Lint's hint for an unknown metric lists every metric that is not a call.
    std::string pack = tmp / "pack";
    run({"/bin/cp", "-r", data("packs/bad/agree-unknown-call"), pack});
    std::ifstream in(pack + "/a.json");
    std::string lesson((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    lesson.replace(lesson.find("calls:reed"), 10, "nonsense");
    spit(pack + "/a.json", lesson);
    auto [lcode, lout] = run({bin("iolab"), "lint", pack}, {}, 120);
    INFO(lout);
    CHECK(lcode != 0);
    for (size_t i = 0; check_figure_name(i, buf, sizeof buf); i++)
        if (std::string(buf).find(':') == std::string::npos) // calls:NAME, calls_per_request:NAME
            CHECK(lout.find(std::string(buf) + ",") != std::string::npos);
}

namespace
{

// One step of a lesson with the given checks, expected outcomes and sweep (JSON text, or "").
std::string run_lesson(const std::string &checks, const std::string &expect,
                       const std::string &sweep = "")
{
    std::string step = R"({"id": "r", "title": "R", "kind": "run", "text": "x", "programs": [)"
                       R"({"name": "p", "role": "server", "program": "sh", "ready": "listening"},)"
                       R"({"name": "c", "role": "client", "program": "sh"}])";
    if (!checks.empty())
        step += ", \"checks\": [" + checks + "]";
    if (!expect.empty())
        step += ", \"expect\": [" + expect + "]";
    if (!sweep.empty())
        step += ", \"sweep\": " + sweep;
    return R"({"id": "a", "title": "A", "summary": "s", "steps": [)" + step + "}]}";
}

// What the schema says of one lesson file ("" when it follows the schema).
std::string schema_says(const TempDir &tmp, const std::string &lesson)
{
    std::string pack = tmp / "pack";
    mkdir(pack.c_str(), 0755);
    spit(pack + "/pack.json", R"({"format_version": 1, "id": "t", "title": "T", "version": "1",)"
                              R"( "lessons": ["a"]})");
    spit(pack + "/a.json", lesson);
    auto [code, out] = schema_check({"rejects", pack});
    return code == 0 ? out : "";
}

} // namespace

TEST_CASE("schema: names and keys only one metric takes are refused, in words that name them")
{
    require_jsonschema();
    TempDir tmp;
    struct Row {
        const char *what, *checks, *expect, *sweep, *said; // said: nullptr when it must pass
    } rows[] = {
        {"an exit check with min",
         R"({"text": "t", "metric": "exit", "program": "p", "status": 0, "min": 1})", "", "",
         "has no \"min\""},
        {"an exit check with max",
         R"({"text": "t", "metric": "exit", "program": "p", "status": 0, "max": 1})", "", "",
         "has no \"max\""},
        {"an exit check", R"({"text": "t", "metric": "exit", "program": "p", "status": 0})", "", "",
         nullptr},
        {"a check without bounds", R"({"text": "t", "metric": "seconds"})", "", "",
         "needs \"min\" (at least), \"max\" (at most) or both"},
        {"fd on fork", R"({"text": "t", "metric": "calls:fork", "fd": "file", "max": 1})", "", "",
         "\"fd\" works with calls:NAME"},
        {"fd on seconds", R"({"text": "t", "metric": "seconds", "fd": "file", "min": 1})", "", "",
         "\"fd\" works with calls:NAME"},
        {"a pair on read",
         R"({"text": "t", "metric": "calls:read", "fd": "file>socket", "max": 1})", "", "",
         "name its kind alone"},
        {"fd on read",
         R"({"text": "t", "metric": "calls_per_request:recvfrom", "fd": "socket", "max": 1})", "",
         "", nullptr},
        {"a pair on sendfile",
         R"({"text": "t", "metric": "calls:sendfile", "fd": "file>socket", "min": 1})", "", "",
         nullptr},
        {"a misspelt figure", "",
         R"({"text": "t", "left": {"figure": "calls_per_requst"}, "op": ">", "value": 1})", "",
         "an expected outcome's or a prediction's figure is"},
        {"a call not counted", "",
         R"({"text": "t", "left": {"figure": "calls:recvfom/request"}, "op": ">", "value": 1})", "",
         "an expected outcome's or a prediction's figure is"},
        {"a counted call", "",
         R"({"text": "t", "left": {"figure": "calls:recvfrom/request"}, "op": ">", "value": 1})",
         "", nullptr},
        {"both right and value", "",
         R"({"text": "t", "left": {"figure": "cpu_pct"}, "op": ">", "value": 1, "right": {"figure": "cpu_pct"}})",
         "", "not both"},
        {"neither right nor value", "",
         R"({"text": "t", "left": {"figure": "cpu_pct"}, "op": ">"})", "",
         "either \"right\" (a figure) or \"value\""},
        {"a sweep of a call not counted", "", "",
         R"({"param": "size", "values": ["1", "2"], "figure": "calls:recvfom/request"})",
         "a sweep's or a headline's figure is"},
        {"a sweep of a counted call", "", "",
         R"({"param": "size", "values": ["1", "2"], "figure": "calls:recvfrom/request"})", nullptr},
        {"a metric not known", R"({"text": "t", "metric": "calls:reed", "max": 1})", "", "",
         "a check's metric is seconds"},
    };
    for (const Row &r : rows) {
        std::string said = schema_says(tmp, run_lesson(r.checks, r.expect, r.sweep));
        INFO(r.what << ": the schema says:\n" << said);
        if (!r.said) {
            CHECK(said.empty());
            continue;
        }
        CHECK(said.find(r.said) != std::string::npos);
        // The validator's own words for a failed oneOf, anyOf or not name no field.
        CHECK(said.find("None of") == std::string::npos);
        CHECK(said.find("is not valid under any of the given schemas") == std::string::npos);
        CHECK(said.find("should not be valid under") == std::string::npos);
    }
}

TEST_CASE("schema: control and bidirectional characters in prose are refused, as lint does")
{
    require_jsonschema();
    for (const char *bad : {"prose-control", "exit-bounds"}) {
        std::string dir = data(std::string("packs/bad/") + bad);
        auto [code, out] = schema_check({"rejects", dir});
        INFO(bad << ": the schema says:\n" << out);
        CHECK(code == 0);
        auto [lcode, lout] = run({bin("iolab"), "lint", dir}, {}, 120);
        INFO(bad << ": lint says:\n" << lout);
        CHECK(lcode != 0);
    }
    TempDir tmp;
    // A text may have tabs and line breaks; a title may not.
    CHECK(schema_says(tmp, run_lesson("", "")).empty());
    std::string lesson = run_lesson("", "");
    std::string tabbed = lesson;
    tabbed.replace(tabbed.find(R"("text": "x")"), 11, R"("text": ["a\tb", "c"])");
    CHECK(schema_says(tmp, tabbed).empty());
    std::string titled = lesson;
    titled.replace(titled.find(R"("title": "R")"), 12, R"("title": "R\u202e")");
    CHECK(schema_says(tmp, titled).find("bidirectional control") != std::string::npos);
}

TEST_CASE("schema: the figures an expected outcome and a sweep accept are iolab's own")
{
    require_jsonschema();
    // Every figure of the table for each format, a per-call one with every counted call, must
    // match that format's pattern in the schema, and a name the table refuses must not.
    std::string names;
    char buf[64];
    for (size_t i = 0; i < figure_count(); i++) {
        const figure_def *d = figure_at((figure_id)i);
        for (unsigned where : {FIGURE_IN_EXPECT, FIGURE_IN_SWEEP}) {
            if (!(d->where & where))
                continue;
            std::string fmt = where == FIGURE_IN_EXPECT ? "expect" : "sweep";
            std::string name = d->name;
            if (!d->per_call) {
                names += fmt + " " + name + " accepted\n";
                continue;
            }
            for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
                std::string call = iolab_call_info[c].label;
                std::string n = name;
                n.replace(n.find("NAME"), 4, call);
                unsigned got = 0;
                REQUIRE(figure_find_in(n.c_str(), where, &got) == d);
                names += fmt + " " + n + " accepted\n";
            }
        }
    }
    (void)buf;
    for (const char *bad : {"calls_per_requst", "calls:recvfom/request", "calls:read", "p98_ms"}) {
        for (unsigned where : {FIGURE_IN_EXPECT, FIGURE_IN_SWEEP}) {
            unsigned got = 0;
            REQUIRE(figure_find_in(bad, where, &got) == nullptr);
            names +=
                std::string(where == FIGURE_IN_EXPECT ? "expect " : "sweep ") + bad + " refused\n";
        }
    }
    const char *script = R"PY(
import json, re, sys
defs = json.load(open(sys.argv[1]))["definitions"]
pats = {"expect": defs["side"]["properties"]["figure"]["pattern"], "sweep": defs["sweepFigure"]["pattern"]}
for line in sys.stdin.read().splitlines():
    fmt, name, want = line.split()
    got = "accepted" if re.search(pats[fmt], name) else "refused"
    if got != want:
        print("%s %s: the schema %s it, iolab's table does not" % (fmt, name, got))
print("compared")
)PY";
    TempDir tmp;
    std::string list = tmp / "names.txt";
    spit(list, names);
    auto [code, out] = run({"/bin/sh", "-c", "/usr/bin/python3 -c \"$0\" \"$1\" < \"$2\"", script,
                            build_dir() + "/share/iolab/schema/lesson.schema.json", list});
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out == "compared\n");
}

TEST_CASE("schema: the counted calls lessons/README.md lists are the ones iolab list --json lists")
{
    // The list is written from iolab's table by tests/structure/readme_calls.py (--write).
    auto [code, out] = run({"/usr/bin/python3", source_dir() + "/tests/structure/readme_calls.py",
                            bin("iolab"), source_dir() + "/lessons/README.md"},
                           {}, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find(std::to_string(IOLAB_NCALLS) + " counted calls") != std::string::npos);
}
