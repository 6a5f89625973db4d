// The JSON Schemas of pack files (assets/schema/): every built-in file and every good test pack
// follows them, the structurally damaged packs of the lint tests break them, the damage only a
// cross-reference shows does not (that stays lint's), and each step kind's keys in the schema are
// exactly the keys iolab's loader takes. Validation is python3-jsonschema's (setup.sh --test).
#include "helpers.hpp"

extern "C" {
#include "lesson/check.h"
#include "lesson/kind.h"
#include "lesson/load.h"
}

#include <catch2/catch.hpp>
#include <fstream>

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
    for (size_t i = 0; check_metric_name(i, buf, sizeof buf); i++)
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
    std::ofstream(list) << names;
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
    std::ofstream(pack + "/a.json", std::ios::trunc) << lesson;
    auto [lcode, lout] = run({bin("iolab"), "lint", pack}, {}, 120);
    INFO(lout);
    CHECK(lcode != 0);
    for (size_t i = 0; check_metric_name(i, buf, sizeof buf); i++)
        if (std::string(buf).find(':') == std::string::npos) // calls:NAME, calls_per_request:NAME
            CHECK(lout.find(std::string(buf) + ",") != std::string::npos);
}
