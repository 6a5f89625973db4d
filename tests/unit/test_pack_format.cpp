// pack.json's format_version: any JSON number may stand there, and each gets a sentence (the
// fuzzer found that 5555555555 was cast to int, which is undefined behaviour).
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

extern "C" {
#include "lesson/lesson.h"
}

namespace
{

std::string load_with_format(const std::string &format)
{
    std::string pack = R"({"format_version": )" + format +
                       R"(, "id": "t", "title": "T", "version": "1", "lessons": ["l"]})";
    std::string lesson = R"({"id": "l", "title": "L", "summary": "s", "steps": [{"id": "s",
      "title": "S", "kind": "text", "text": "x"}]})";
    lesson_mem_file files[2] = {{"pack.json", pack.data(), pack.size()},
                                {"l.json", lesson.data(), lesson.size()}};
    lesson_load_options opts = {};
    lesson_pack *p = nullptr;
    lesson_diags diags = {};
    lesson_pack_load_mem("mem", files, 2, &opts, &p, &diags);
    std::string out;
    for (size_t i = 0; i < diags.n; i++)
        out += std::string(diags.v[i].message) + "\n";
    lesson_pack_free(p);
    lesson_diags_free(&diags);
    return out;
}

} // namespace

TEST_CASE("a format_version of any size or sign is judged, never cast out of range")
{
    CHECK(load_with_format("1").find("format") == std::string::npos);
    CHECK(load_with_format("5555555555")
              .find("this pack is written for format 5555555555 but "
                    "this iolab reads format") != std::string::npos);
    CHECK(load_with_format("1e300").find("format_version") != std::string::npos);
    CHECK(load_with_format("-5555555555").find("\"format_version\" must be") != std::string::npos);
    CHECK(load_with_format("0.5").find("\"format_version\" must be") != std::string::npos);
}
