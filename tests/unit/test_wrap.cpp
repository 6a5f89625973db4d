// Text wrapping and the light Markdown of lesson text: widths never exceeded, words kept whole,
// styles where the markup put them, and an ASCII rendering for non-UTF-8 terminals.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "ui/wrap.h"
}

static std::vector<std::string> lines_of(const wrap_doc &d)
{
    std::vector<std::string> v;
    for (size_t i = 0; i < d.nlines; i++)
        v.push_back(d.lines[i].text);
    return v;
}

static unsigned style_at(const wrap_line &l, const std::string &needle)
{
    size_t at = std::string(l.text).find(needle);
    REQUIRE(at != std::string::npos);
    for (size_t i = 0; i < l.nspans; i++)
        if (at >= l.spans[i].off && at < l.spans[i].off + l.spans[i].len)
            return l.spans[i].style;
    FAIL("no span covers " << needle);
    return 0;
}

static void check_invariants(const wrap_doc &d, int width, bool utf8)
{
    for (size_t i = 0; i < d.nlines; i++) {
        const wrap_line &l = d.lines[i];
        INFO("line " << i << ": '" << l.text << "'");
        CHECK(l.width <= width);
        CHECK(l.width == wrap_width(l.text, strlen(l.text), utf8));
        size_t covered = 0;
        for (size_t s = 0; s < l.nspans; s++) {
            CHECK(l.spans[s].off == covered);
            covered += l.spans[s].len;
        }
        CHECK(covered == strlen(l.text));
        if (!utf8)
            for (const char *c = l.text; *c; c++)
                CHECK((unsigned char)*c < 0x80);
    }
}

TEST_CASE("wrap: paragraphs re-flow at spaces and never exceed the width")
{
    const char *md = "The server calls epoll_wait once per loop\nand then serves every ready "
                     "socket.\n\n\n\nA second paragraph.";
    for (int width = 8; width <= 60; width++) {
        wrap_doc d = {};
        REQUIRE(wrap_markdown(md, width, true, &d) == 0);
        INFO("width " << width);
        check_invariants(d, width, true);
        // Words are whole: joining the lines gives back the words in order.
        std::string joined;
        for (auto &s : lines_of(d))
            joined += s.empty() ? "|" : s + " ";
        if (width >= 10) // no word is longer than 10 columns
            CHECK(joined.find("epoll_wait") != std::string::npos);
        // Runs of blank lines collapse to one.
        CHECK(joined.find("||") == std::string::npos);
        wrap_doc_free(&d);
    }
    wrap_doc d = {};
    REQUIRE(wrap_markdown(md, 40, true, &d) == 0);
    CHECK(lines_of(d) == std::vector<std::string>{"The server calls epoll_wait once per",
                                                  "loop and then serves every ready socket.", "",
                                                  "A second paragraph."});
    wrap_doc_free(&d);
}

TEST_CASE("wrap: headings, emphasis, inline code, lists and code blocks")
{
    const char *md = "# Watching epoll\n"
                     "Use **strong** words, *emphasis*, and `epoll_wait(2)`; keep snake_case.\n"
                     "\n"
                     "- first item that is long enough to wrap onto a second line\n"
                     "- second\n"
                     "2. numbered\n"
                     "\n"
                     "```\n"
                     "for (;;) { n = epoll_wait(ep, evs, 64, -1); }\n"
                     "```\n";
    wrap_doc d = {};
    REQUIRE(wrap_markdown(md, 30, true, &d) == 0);
    check_invariants(d, 30, true);
    auto v = lines_of(d);
    REQUIRE(v.size() >= 9);
    CHECK(v[0] == "Watching epoll");
    CHECK((style_at(d.lines[0], "Watching") & WRAP_HEADING));
    CHECK((style_at(d.lines[1], "strong") & WRAP_STRONG));
    CHECK_FALSE((style_at(d.lines[1], "words") & WRAP_STRONG));
    CHECK(std::string(d.lines[1].text).find("**") == std::string::npos);
    size_t li = 0;
    while (li < v.size() && v[li].find("\u2022 first") != 0)
        li++;
    REQUIRE(li < v.size());
    CHECK((style_at(d.lines[li], "\u2022") & WRAP_BULLET));
    // A hanging indent: the item's second line starts under its text, not under the bullet.
    CHECK(v[li + 1].rfind("  ", 0) == 0);
    CHECK(v[li + 1][2] != ' ');
    bool found_emph = false, found_code = false, snake = false, numbered = false;
    for (size_t i = 0; i < d.nlines; i++) {
        std::string s = v[i];
        if (s.find("emphasis") != std::string::npos)
            found_emph = style_at(d.lines[i], "emphasis") & WRAP_EMPH;
        if (s.find("epoll_wait(2)") != std::string::npos)
            found_code = style_at(d.lines[i], "epoll_wait(2)") & WRAP_CODE;
        if (s.find("snake_case") != std::string::npos)
            snake = !(style_at(d.lines[i], "snake_case") & WRAP_EMPH);
        if (s.find("2. numbered") == 0)
            numbered = true;
    }
    CHECK(found_emph);
    CHECK(found_code);
    CHECK(snake);
    CHECK(numbered);
    // The code block keeps its spaces, is indented and cut (not re-flowed) at the width, at a
    // space, and its continuations are marked.
    CHECK(v[v.size() - 3] == "  for (;;) { n =");
    CHECK(v[v.size() - 2] == "\u21aa epoll_wait(ep, evs, 64,");
    CHECK(v[v.size() - 1] == "\u21aa -1); }");
    CHECK((d.lines[d.nlines - 1].spans[0].style & WRAP_CODE));
    wrap_doc_free(&d);
}

TEST_CASE("wrap: wide characters count two columns and ASCII rendering has no UTF-8 left")
{
    const char *md = "- caf\u00e9 \u65e5\u672c\u8a9e\u65e5\u672c\u8a9e text \u2192 more";
    wrap_doc d = {};
    REQUIRE(wrap_markdown(md, 12, true, &d) == 0);
    check_invariants(d, 12, true);
    CHECK(wrap_width("\u65e5\u672c", strlen("\u65e5\u672c"), true) == 4);
    wrap_doc_free(&d);
    REQUIRE(wrap_markdown(md, 12, false, &d) == 0);
    check_invariants(d, 12, false);
    CHECK(std::string(d.lines[0].text).rfind("- caf?", 0) == 0);
    wrap_doc_free(&d);
}

TEST_CASE("wrap: a word wider than the line is broken, plain text too")
{
    wrap_doc d = {};
    REQUIRE(wrap_plain("aaaaaaaaaaaaaaaaaaaaaaaaa b", 10, true, &d) == 0);
    check_invariants(d, 10, true);
    CHECK(lines_of(d) == std::vector<std::string>{"aaaaaaaaaa", "aaaaaaaaaa", "aaaaa b"});
    wrap_doc_free(&d);
}

TEST_CASE("wrap: a code line is cut at a space, its continuations marked and indented like it")
{
    const char *md = "```\n"
                     "    n = read(fd, buffer_for_the_lines, sizeof buffer_for_the_lines);\n"
                     "    a_name_far_too_long_to_fit_on_any_line_of_this_width();\n"
                     "```\n";
    wrap_doc d = {};
    REQUIRE(wrap_markdown(md, 32, false, &d) == 0);
    check_invariants(d, 32, false);
    auto v = lines_of(d);
    REQUIRE(v.size() == 7);
    CHECK(v[0] == "      n = read(fd,");
    CHECK(v[1] == ">     buffer_for_the_lines,");
    CHECK(v[2] == ">     sizeof");
    CHECK(v[3] == ">     buffer_for_the_lines);");
    // No space to cut at: the word itself is cut, and the cut is marked too.
    CHECK(v[4] == "      a_name_far_too_long_to_fit");
    CHECK(v[5] == ">     _on_any_line_of_this_width");
    CHECK(v[6] == ">     ();");
    wrap_doc_free(&d);
}
