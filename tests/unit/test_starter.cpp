// Starters generated from solutions by TODO / REPLACE / REMOVE markers, and every way a marker
// can be wrong.
#include <catch2/catch.hpp>
#include <cerrno>
#include <string>
#include <tuple>

extern "C" {
#include "lesson/starter.h"
}

namespace
{

struct Result {
    int rc;
    std::string text;
    size_t todos;
    starter_diag diag;
};

Result gen(const std::string &src)
{
    Result r{};
    char *out = nullptr;
    r.rc = starter_generate(src.data(), src.size(), &out, &r.todos, &r.diag);
    if (out)
        r.text = out;
    free(out);
    return r;
}

} // namespace

TEST_CASE("TODO keeps its comment and removes the answer, REPLACE and REMOVE do their part")
{
    std::string solution = "int main(void)\n"
                           "{\n"
                           "    /* TODO 2: send the file with sendfile() */\n"
                           "    off_t off = 0;\n"
                           "    sendfile(out, in, &off, size);\n"
                           "    /* REPLACE 1 */\n"
                           "    // (void)in; /* the starter compiles without warnings */\n"
                           "    /* REMOVE 1 */\n"
                           "    check_the_answer();\n"
                           "    return 0;\n"
                           "}\n";
    Result r = gen(solution);
    REQUIRE(r.rc == 0);
    CHECK(r.todos == 1);
    // The learner reads the TODO's ordinal in the file, not the count of lines it stands for.
    CHECK(r.text == "int main(void)\n"
                    "{\n"
                    "    /* TODO 1: send the file with sendfile() */\n"
                    "    (void)in; /* the starter compiles without warnings */\n"
                    "    return 0;\n"
                    "}\n");
}

TEST_CASE("TODOs are numbered 1, 2, 3 in file order, in the starter and in the solution shown")
{
    std::string solution = "/* TODO 3: accept */\na();\nb();\nc();\n"
                           "/* TODO 1: wait */\nd();\n"
                           "  /* TODO 5: relay */\ne();\nf();\ng();\nh();\ni();\n";
    Result r = gen(solution);
    REQUIRE(r.rc == 0);
    CHECK(r.todos == 3);
    CHECK(r.text == "/* TODO 1: accept */\n/* TODO 2: wait */\n  /* TODO 3: relay */\n");
    char *shown = nullptr;
    REQUIRE(starter_solution(solution.data(), solution.size(), &shown) == 0);
    CHECK(std::string(shown) == "/* TODO 1: accept */\na();\nb();\nc();\n/* TODO 2: wait */\nd();\n"
                                "  /* TODO 3: relay */\ne();\nf();\ng();\nh();\ni();\n");
    free(shown);
}

TEST_CASE("a file without markers is its own starter, with no TODO")
{
    Result r = gen("a\nb");
    REQUIRE(r.rc == 0);
    CHECK(r.todos == 0);
    CHECK(r.text == "a\nb");
}

TEST_CASE("bad markers are reported at their line")
{
    Result past = gen("x\n/* TODO 3: too many */\ny\n");
    CHECK(past.rc == -EINVAL);
    CHECK(past.diag.line == 2);
    CHECK(std::string(past.diag.message).find("past the end") != std::string::npos);

    Result nocount = gen("/* TODO: no count */\nx\n");
    CHECK(nocount.rc == -EINVAL);
    CHECK(nocount.diag.line == 1);

    Result notcomment = gen("a\n/* REPLACE 1 */\nint x;\n");
    CHECK(notcomment.rc == -EINVAL);
    CHECK(notcomment.diag.line == 3);

    Result wrapped = gen("/* TODO 1: a long instruction that a formatter\n * wrapped */\nx\n");
    CHECK(wrapped.rc == -EINVAL);
    CHECK(wrapped.diag.line == 1);
    CHECK(std::string(wrapped.diag.message).find("does not close on its own line") !=
          std::string::npos);

    Result nested = gen("/* REPLACE 1 */\n// /* REMOVE 1 */\nx\n");
    CHECK(nested.rc == -EINVAL);
    CHECK(std::string(nested.diag.message).find("still has a marker") != std::string::npos);
}

TEST_CASE("a marker must be alone on its line, code around a comment is not a marker")
{
    Result r = gen("int a; /* TODO 1: not a marker */\nint b;\n");
    REQUIRE(r.rc == 0);
    CHECK(r.todos == 0);
    CHECK(r.text == "int a; /* TODO 1: not a marker */\nint b;\n");
}

TEST_CASE("the solution as a learner reads it: each TODO above its answer, no other marker")
{
    std::string solution = "int main(void)\n"
                           "{\n"
                           "    /* TODO 1: send the file with sendfile() */\n"
                           "    sendfile(out, in, &off, size);\n"
                           "    /* REPLACE 1 */\n"
                           "    // (void)in;\n"
                           "    /* REMOVE 1 */\n"
                           "    check_the_answer();\n"
                           "    return 0;\n"
                           "}";
    char *out = nullptr;
    REQUIRE(starter_solution(solution.data(), solution.size(), &out) == 0);
    std::string text = out;
    free(out);
    CHECK(text == "int main(void)\n"
                  "{\n"
                  "    /* TODO 1: send the file with sendfile() */\n"
                  "    sendfile(out, in, &off, size);\n"
                  "    check_the_answer();\n"
                  "    return 0;\n"
                  "}");
}

TEST_CASE("a mistyped marker is reported with the word meant, an ordinary comment is not")
{
    // One edit from a marker word, in capitals, with a count or a colon; or a marker word in
    // other letters with a count. Each would leave the answer under it in the starter.
    for (auto [src, word, meant] :
         {std::tuple{"int a;\n/* TOD0 1: the answer */\nint b;\n", "\"TOD0\"", "\"TODO\""},
          std::tuple{"/* TOOD: the answer */\nint b;\n", "\"TOOD\"", "\"TODO\""},
          std::tuple{"/* todo 2: the answer */\nint b;\nint c;\n", "\"todo\"", "\"TODO\""},
          std::tuple{"/* REPALCE 1 */\n// int b;\n", "\"REPALCE\"", "\"REPLACE\""},
          std::tuple{"/* REMVE 1 */\nint b;\n", "\"REMVE\"", "\"REMOVE\""}}) {
        INFO(src);
        Result r = gen(src);
        REQUIRE(r.rc == -EINVAL);
        std::string msg = r.diag.message;
        CHECK(msg.find(std::string(word) + " is not a marker word") != std::string::npos);
        CHECK(msg.find(std::string("did you mean ") + meant) != std::string::npos);
        CHECK(r.diag.line == (std::string(src).rfind("int a;", 0) == 0 ? 2 : 1));
    }
    // Comments that only look alike are left alone.
    for (const char *src : {"/* Note: not a marker. */\nint a;\n", "/* DONE 2 */\nint a;\n",
                            "/* Todo: later, maybe */\nint a;\n", "/* TO 3 */\nint a;\n"}) {
        INFO(src);
        Result r = gen(src);
        CHECK(r.rc == 0);
        CHECK(r.text == src);
    }
}
