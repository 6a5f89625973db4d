// Every exercise of the built-in pack is where a learner or a maintainer looks for it: in
// README.md's list of exercises (as `lesson/step`) and in `iolab list --json` (kind
// "exercise"). The exercises are read from lessons/*.json, so a new one that either place
// forgets fails here.
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "helpers.hpp"

using namespace iolab_test;

namespace
{

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

// "lesson/step" of every step of kind exercise in one lesson file.
void exercise_steps(const cJSON *lesson, std::set<std::string> &out)
{
    const cJSON *id = cJSON_GetObjectItem(lesson, "id"), *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(lesson, "steps"))
    {
        const cJSON *kind = cJSON_GetObjectItem(s, "kind"), *sid = cJSON_GetObjectItem(s, "id");
        if (cJSON_IsString(id) && cJSON_IsString(kind) && cJSON_IsString(sid) &&
            std::string(kind->valuestring) == "exercise")
            out.insert(std::string(id->valuestring) + "/" + sid->valuestring);
    }
}

} // namespace

TEST_CASE("every exercise is in README.md's list and in iolab list --json", "[exercises]")
{
    std::set<std::string> exercises;
    for (const auto &e : std::filesystem::directory_iterator(source_dir() + "/lessons")) {
        if (e.path().extension() != ".json" || e.path().filename() == "pack.json")
            continue;
        Json j(cJSON_Parse(slurp(e.path()).c_str()), cJSON_Delete);
        INFO(e.path());
        REQUIRE(j != nullptr);
        exercise_steps(j.get(), exercises);
    }
    // Thirteen at least: ordered x2, chat, upload x2, zerocopy, copying, stdio, concurrency,
    // pagecache, ipc, tinyfile x2.
    REQUIRE(exercises.size() >= 13);

    std::string readme = slurp(source_dir() + "/README.md");
    auto [code, out] = run({bin("iolab"), "list", "--json"});
    REQUIRE(code == 0);
    Json list(cJSON_Parse(out.c_str()), cJSON_Delete);
    REQUIRE(list != nullptr);
    std::set<std::string> listed;
    const cJSON *pack, *lesson, *step;
    cJSON_ArrayForEach(pack, cJSON_GetObjectItem(list.get(), "packs"))
    {
        cJSON_ArrayForEach(lesson, cJSON_GetObjectItem(pack, "lessons"))
        {
            cJSON_ArrayForEach(step, cJSON_GetObjectItem(lesson, "steps"))
            {
                const cJSON *kind = cJSON_GetObjectItem(step, "kind"),
                            *id = cJSON_GetObjectItem(step, "id");
                if (cJSON_IsString(kind) && cJSON_IsString(id) &&
                    std::string(kind->valuestring) == "exercise")
                    listed.insert(id->valuestring);
            }
        }
    }
    for (const auto &x : exercises) {
        INFO(x);
        CHECK(readme.find("`" + x + "`") != std::string::npos);
        CHECK(listed.count(x) == 1);
    }
}
