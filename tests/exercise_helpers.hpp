// What the exercise tests share: an exercise named by its step and its solution's directory,
// `iolab check --json` on the learner's workspace or on a directory, the solution with edits as
// a known-wrong variant, and each check's verdict read out of the JSON.
#ifndef IOLAB_TEST_EXERCISE_HELPERS_HPP
#define IOLAB_TEST_EXERCISE_HELPERS_HPP

#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace iolab_test
{

using JsonPtr = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

struct Exercise {
    const char *step;                      // LESSON/STEP
    const char *dir;                       // under lessons/exercises
    const char *file;                      // the file the variants change
    std::vector<const char *> others;      // support files copied as they are
    std::vector<std::string> options = {}; // more for every `iolab check` ("--seconds", "2")
};

inline std::string solution_dir(const Exercise &e)
{
    return source_dir() + "/lessons/exercises/" + e.dir;
}

struct Result {
    int code = -1;
    JsonPtr json{nullptr, cJSON_Delete};
    std::string out;
};

// `iolab check STEP --json` with the learner's state under home; extra: "--dir", DIR, ...
inline Result check(const TempDir &home, const Exercise &e, const std::vector<std::string> &extra)
{
    std::vector<std::string> argv = {bin("iolab"), "check", e.step, "--json"};
    argv.insert(argv.end(), e.options.begin(), e.options.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto [code, out] = run(argv,
                           {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                            "XDG_CACHE_HOME=" + (home / "cache")},
                           120);
    Result r;
    r.code = code;
    r.out = out;
    r.json.reset(cJSON_Parse(out.c_str()));
    return r;
}

// The solution with `from` replaced by `to` (each must occur), as the learner's files.
inline Result variant(const TempDir &home, const Exercise &e,
                      const std::vector<std::pair<std::string, std::string>> &edits)
{
    TempDir dir;
    std::string s = slurp(solution_dir(e) + "/" + e.file);
    for (const auto &[from, to] : edits) {
        size_t at = s.find(from);
        INFO("variant edit not found: " << from);
        REQUIRE(at != std::string::npos);
        s.replace(at, from.size(), to);
    }
    spit(dir / e.file, s);
    for (const char *o : e.others)
        spit(dir / o, slurp(solution_dir(e) + "/" + o));
    return check(home, e, {"--dir", dir.path});
}

// "ok: MESSAGE" or "no: MESSAGE" of the check whose text contains part.
inline std::string verdict(const Result &r, const std::string &part)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.json.get(), "checks"))
    {
        if (std::string(cJSON_GetObjectItem(c, "text")->valuestring).find(part) !=
            std::string::npos) {
            // A check not judged has ok null and a message that says so ("not judged: ...").
            const cJSON *ok = cJSON_GetObjectItem(c, "ok");
            std::string mark = cJSON_IsTrue(ok) ? "ok: " : cJSON_IsFalse(ok) ? "no: " : "";
            return mark + cJSON_GetObjectItem(c, "message")->valuestring;
        }
    }
    return "(no such check: " + part + ")";
}

inline bool has(const std::string &s, const std::string &part)
{
    return s.find(part) != std::string::npos;
}

inline void expect_fail(const Result &r)
{
    INFO(r.out);
    CHECK(r.code == 1);
    REQUIRE(r.json);
    CHECK(std::string(cJSON_GetObjectItem(r.json.get(), "status")->valuestring) == "fail");
}

// The starter, from the workspace: it builds, runs, fails, and names a TODO.
inline void expect_starter_fails(const Exercise &e, const std::string &check_part)
{
    TempDir home;
    Result r = check(home, e, {});
    expect_fail(r);
    std::string v = verdict(r, check_part);
    INFO(r.out);
    CHECK(v.rfind("no: ", 0) == 0);
    CHECK(has(v, "TODO"));
}

} // namespace iolab_test

#endif
