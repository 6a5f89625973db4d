// One lesson loaded from memory in a pack of its own (pack "t", lesson "l"): what the loader made
// of it and what it said, for the unit tests of the lesson format's keys.
#pragma once

#include <cstring>
#include <string>

extern "C" {
#include "lesson/lesson.h"
}

namespace iolab_test
{

struct MemLesson {
    lesson_pack *pack = nullptr;
    lesson_diags diags = {};
    int rc = 0;
    explicit MemLesson(const std::string &lesson)
    {
        static const char pack_json[] = R"({"format_version": 1, "id": "t", "title": "T",
          "version": "1", "lessons": ["l"]})";
        lesson_mem_file files[2] = {{"pack.json", pack_json, strlen(pack_json)},
                                    {"l.json", lesson.data(), lesson.size()}};
        lesson_load_options opts = {};
        rc = lesson_pack_load_mem("mem", files, 2, &opts, &pack, &diags);
    }
    MemLesson(const MemLesson &) = delete;
    MemLesson &operator=(const MemLesson &) = delete;
    ~MemLesson()
    {
        lesson_pack_free(pack);
        lesson_diags_free(&diags);
    }
    // Every diagnostic as lint prints it: "file:line:col: message", one a line.
    std::string messages() const
    {
        std::string s;
        for (size_t i = 0; i < diags.n; i++)
            s += std::string(diags.v[i].file) + ":" + std::to_string(diags.v[i].line) + ":" +
                 std::to_string(diags.v[i].col) + ": " + diags.v[i].message + "\n";
        return s;
    }
    const lesson_step *step() const
    {
        return &pack->lessons[0].steps[0];
    }
    const lesson_scenario *scenario() const
    {
        return lesson_step_scenario(step());
    }
};

} // namespace iolab_test
