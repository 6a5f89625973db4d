// The JSON Schemas of pack files (assets/schema/): every built-in file and every good test pack
// follows them, the structurally damaged packs of the lint tests break them, the damage only a
// cross-reference shows does not (that stays lint's), and each step kind's keys in the schema are
// exactly the keys iolab's loader takes. Validation is python3-jsonschema's (setup.sh --test).
#include "helpers.hpp"

extern "C" {
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
                                     data("packs/own-program")});
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("0 problem(s)") != std::string::npos);
}

TEST_CASE("schema: structurally damaged packs break it, cross-reference damage stays with lint")
{
    require_jsonschema();
    // Wrong types, unknown keys, missing keys, bad values of a known shape.
    for (const char *bad : {"wrong-type", "unknown-key", "missing-field", "bad-size", "bad-metric",
                            "several", "nul-in-id"}) {
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
