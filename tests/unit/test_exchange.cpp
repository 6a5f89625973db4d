// exchange: the one rule of which records fit the installed packs (exchange_fit, used by an
// import and a summary alike), the CSV's text cells a spreadsheet must not take for formulas,
// and names kept on one line in the text table.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

extern "C" {
#include "lesson/lesson.h"
#include "progress/exchange.h"
#include "progress/progress.h"
}

using namespace iolab_test;

namespace
{

// The quiz test pack (lesson q: a run step "watch", a quiz "check" of two
// questions of three answers each), as an installed pack's info.
struct Installed {
    struct lesson_pack *pack = nullptr;
    std::vector<std::string> keys;
    std::vector<const char *> steps;
    std::vector<const struct lesson_step *> defs;
    struct exchange_pack_info info = {};
    Installed()
    {
        struct lesson_diags d = {};
        struct lesson_load_options o = {};
        std::string libexec = build_dir() + "/libexec/iolab";
        o.libexec_dir = libexec.c_str();
        REQUIRE(lesson_pack_load(data("packs/quiz").c_str(), &o, &pack, &d) == 0);
        lesson_diags_free(&d);
        for (size_t l = 0; l < pack->nlessons; l++)
            for (size_t s = 0; s < pack->lessons[l].nsteps; s++) {
                keys.push_back(std::string(pack->lessons[l].id) + "/" +
                               pack->lessons[l].steps[s].id);
                defs.push_back(&pack->lessons[l].steps[s]);
            }
        for (const std::string &k : keys)
            steps.push_back(k.c_str());
        info = {pack->id, pack->version, pack->title, steps.data(), steps.size(), defs.data()};
    }
    ~Installed()
    {
        lesson_pack_free(pack);
    }
    // Why the step record (JSON) of pack id does not fit, or "" when it does.
    std::string fit(const std::string &record, const char *id = "quiz-test", long long now = 5000)
    {
        cJSON *s = cJSON_Parse(record.c_str());
        REQUIRE(s);
        char why[300];
        const char *r = exchange_fit(&info, 1, id, "1", s, now, why, sizeof why);
        std::string out = r ? r : "";
        cJSON_Delete(s);
        return out;
    }
};

std::string step(const std::string &key, const std::string &fields, long long updated = 1000)
{
    return R"({"step": ")" + key + R"(", "done": true, "done_at": 0, "updated": )" +
           std::to_string(updated) + R"(, "fields": )" + fields + "}";
}

std::string csv(const char *s)
{
    char *mem = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    REQUIRE(f);
    exchange_csv_text(f, s);
    fclose(f);
    std::string out(mem, len);
    free(mem);
    return out;
}

} // namespace

TEST_CASE("exchange_fit: records of installed steps with what their kind keeps fit")
{
    Installed in;
    CHECK(in.fit(step("q/watch", "{}")) == "");
    CHECK(in.fit(step("q/check", R"({"quiz": {"questions": [{"chosen": [2], "tries": 1}]}})")) ==
          "");
    CHECK(in.fit(step("q/check", R"({"quiz": {"questions": [], "score": {"points": 2,
                                     "of": 2}}})")) == "");
    // A time up to a day after now is a clock a little fast.
    CHECK(in.fit(step("q/watch", "{}", 5000 + 86400)) == "");
}

TEST_CASE("exchange_fit: each kind of record that does not fit is named in a sentence")
{
    Installed in;
    CHECK(in.fit(step("q/gone", "{}")) == "pack quiz-test version 1 has no such step");
    CHECK(in.fit(step("other/step", "{}")) == "pack quiz-test version 1 has no such step");
    CHECK(in.fit(step("q/watch", "{}"), "another") ==
          "pack another is not installed here (`iolab list` shows the packs)");
    CHECK(in.fit(step("q/check", R"({"quiz": {"questions": [{"chosen": [7]}]}})")) ==
          "question 1 chose answer 8, and the question has 3");
    CHECK(in.fit(step("q/check", R"({"predict": {"predictions": [{"number": 1}]}})")) ==
          "it holds predictions, and the step asks for none");
    CHECK(in.fit(step("q/watch", R"({"exercise": {"attempts": 1}})")) ==
          "it holds exercise attempts, and the step is a run step");
    CHECK(in.fit(step("q/watch", R"({"quiz": {"questions": []}})")).find("it holds quiz answers") ==
          0);
    CHECK(in.fit(step("q/check", R"({"quiz": {"questions": [], "score": {"points": 3,
                                     "of": 2}}})")) == "its score is 3 of 2 points");
    CHECK(in.fit(step("q/check", R"({"quiz": {"questions": [], "score": {"points": 1, "of": 3,
              "checks": [{"points": 1, "of": 1}, {"points": 0, "of": 1},
                         {"points": 0, "of": 1}]}}})")) ==
          "its score counts 3 checks, and the step has 2");
    CHECK(in.fit(step("q/watch", "{}", 5000 + 86401)) ==
          "its \"updated\" time is more than a day after now");
}

TEST_CASE("exchange_csv_text: a cell a spreadsheet would evaluate is text, others are unchanged")
{
    CHECK(csv("alice") == "alice");
    CHECK(csv("1.2") == "1.2");
    CHECK(csv("=1+2") == "\"'=1+2\"");
    CHECK(csv("+1") == "\"'+1\"");
    CHECK(csv("-1") == "\"'-1\"");
    CHECK(csv("@SUM(A1)") == "\"'@SUM(A1)\"");
    CHECK(csv("\tx") == "\"'\tx\"");
    CHECK(csv("\rx") == "\"'^Mx\"");
    CHECK(csv("=HYPERLINK(\"u\",\"c\")") == "\"'=HYPERLINK(\"\"u\"\",\"\"c\"\")\"");
    CHECK(csv("a,b") == "\"a,b\"");
    CHECK(csv("a=b") == "a=b");
}

TEST_CASE("exchange_oneline: a newline in a name is shown as \\n")
{
    char buf[64];
    CHECK(std::string(exchange_oneline("eve\nmallory", buf, sizeof buf)) == "eve\\nmallory");
    CHECK(std::string(exchange_oneline("plain", buf, sizeof buf)) == "plain");
    char small[5];
    CHECK(std::string(exchange_oneline("ab\ncd", small, sizeof small)) == "ab\\n");
}

TEST_CASE("exchange_export: each pack names its version, the noted one before the installed one")
{
    // Pack a's records were made with version 1.0 (noted in the store, however the pack was
    // found); pack b has no note and is installed as 2.0; pack c is neither.
    std::string text = R"({"format": 1, "packs": {"a": {"done": ["l/s"], "version": "1.0"},
                           "b": {"done": ["l/s"]}, "c": {"done": ["l/s"]}}})";
    struct progress *p = (struct progress *)calloc(1, sizeof *p);
    REQUIRE(p);
    REQUIRE(progress_parse(p, text.c_str(), text.size()) == 0);
    const char *steps[] = {"l/s"};
    struct exchange_pack_info info[] = {{"a", "9.9", "A", steps, 1, nullptr},
                                        {"b", "2.0", "B", steps, 1, nullptr}};
    char *out = exchange_export(p, "ann", 5000, info, 2);
    REQUIRE(out);
    std::string e = out;
    free(out);
    progress_free(p);
    CHECK(e.find(R"({"id": "a", "version": "1.0",)") != std::string::npos);
    CHECK(e.find(R"({"id": "b", "version": "2.0",)") != std::string::npos);
    CHECK(e.find(R"({"id": "c", "version": null,)") != std::string::npos);
}
