// The grader against a counter page it cannot believe: counted calls the kernel did not see, a
// tampered page, and output checks that count a line only with iolab's own digest of a file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
#include "grade.h"
#include "lesson/check.h"
}

namespace
{

lesson_check make(figure_id m)
{
    lesson_check c{};
    c.mode = -1;
    c.role = -1;
    c.program = -1;
    c.metric = m;
    return c;
}

lesson_scenario scenario(lesson_check *checks, size_t n)
{
    lesson_scenario sc{};
    sc.checks = checks;
    sc.nchecks = n;
    return sc;
}

} // namespace

// Issue 26: counts a program wrote into its own slot are not believed past what the kernel saw.
TEST_CASE("counted calls the kernel did not see fail every check that reads the counter page")
{
    lesson_check c[3] = {make(FIGURE_CALLS), make(FIGURE_SYSCR), make(FIGURE_OUTPUT)};
    c[0].call = IOLAB_CALL_READ, c[0].has_min = true, c[0].min = 1;
    c[1].has_min = true, c[1].min = 1;
    c[2].program = 0, c[2].has_max = true, c[2].max = 0;
    char match[] = "differs";
    c[2].match = match;
    lesson_program prog{};
    char name[] = "reader";
    prog.name = name;
    prog.role = LESSON_ROLE_CLIENT;
    lesson_scenario sc = scenario(c, 3);
    sc.programs = &prog;
    sc.nprograms = 1;
    sc.has_learner = true; // the comparison is the learner's program's
    sc.learner = 0;
    static snapshot s; // large: keep it off the stack
    auto feed = [&](grader &g, double t, uint64_t counted, uint64_t kernel) {
        memset(&s, 0, sizeof s);
        s.elapsed_s = t;
        s.dt_s = 0.1;
        s.mode = -1;
        s.mode_running = true;
        s.nprogs = 1;
        s.progs[0].role = LESSON_ROLE_CLIENT;
        s.progs[0].counted = 1;
        snprintf(s.progs[0].name, sizeof s.progs[0].name, "reader");
        s.progs[0].f.calls[IOLAB_CALL_READ].count = counted;
        s.progs[0].f.syscr = kernel;
        s.roles[LESSON_ROLE_CLIENT] = s.progs[0].f;
        grade_update(&g, &s);
    };
    grader g;

    // The kernel saw more: libc's own reads, or syscall(SYS_read), which no wrapper sees.
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    feed(g, 1, 100, 5000);
    CHECK(grade_untrusted(&g) == nullptr);
    CHECK(grade_done(&g));
    grade_free(&g);

    // A kernel figure read late on a loaded machine lags the page at one look, and has caught
    // up at the next: a suspicion, then believed.
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    feed(g, 1, 181, 20);
    CHECK(grade_untrusted(&g) == nullptr);
    CHECK_FALSE(grade_decided(&g)); // the run goes on until a later look settles it
    feed(g, 2, 200, 230);
    CHECK(grade_untrusted(&g) == nullptr);
    CHECK(grade_done(&g));
    grade_finish(&g);
    CHECK(grade_untrusted(&g) == nullptr);
    grade_free(&g);

    // 5,000 counted read() calls, 9 read system calls: written into the slot, not made. One
    // look is a suspicion; a later one, with the kernel's figure read since, is the verdict.
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    feed(g, 1, 5000, 9);
    CHECK(grade_untrusted(&g) == nullptr);
    feed(g, 2, 5000, 9);
    REQUIRE(grade_untrusted(&g) != nullptr);
    CHECK_FALSE(g.results[0].holds);
    CHECK(g.results[0].decided);
    CHECK(g.results[1].holds); // the kernel's own figure still judges
    char msg[768];
    grade_message(&g, 0, msg, sizeof msg);
    std::string m = msg;
    CHECK(m.find("not judged: the counts could not be trusted: reader's counter page shows 5000 "
                 "read calls, and the kernel saw it make 9 (syscr)") != std::string::npos);
    CHECK_FALSE(grade_done(&g));
    grade_free(&g);

    // Values no counting makes, or a scribbled header: the page was tampered with.
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    s.progs[0].counts_forged = true;
    s.elapsed_s = 1;
    grade_update(&g, &s);
    REQUIRE(grade_untrusted(&g) != nullptr);
    CHECK(std::string(grade_untrusted(&g)) ==
          "the counter page was tampered with; counts from this run cannot be trusted");
    grade_free(&g);
}

TEST_CASE("an output check with a digest counts only lines that carry the file's own digest")
{
    lesson_check c = make(FIGURE_OUTPUT);
    c.program = 0, c.has_min = true, c.min = 1;
    char match[] = "^pass [0-9]+: fnv ([0-9a-f]{16})", digest[] = "data.bin", fail[] = "look";
    c.match = match;
    c.digest = digest;
    c.fail = fail;
    lesson_file file{};
    file.name = digest;
    file.size = 1000;
    lesson_program prog{};
    char name[] = "reader";
    prog.name = name;
    lesson_scenario sc = scenario(&c, 1);
    sc.files = &file;
    sc.nfiles = 1;
    sc.programs = &prog;
    sc.nprograms = 1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < file.size; i++)
        h = (h ^ lesson_file_byte(i)) * 0x100000001b3ull;
    char right[64], wrong[64];
    snprintf(right, sizeof right, "pass 2: fnv %016llx", (unsigned long long)h);
    snprintf(wrong, sizeof wrong, "pass 1: fnv %016llx", (unsigned long long)(h ^ 1));
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_line(&g, 0, wrong);
    grade_line(&g, 0, "pass 1: checksum ok"); // the program's own word counts for nothing
    grade_finish(&g);
    CHECK_FALSE(g.results[0].holds);
    char msg[768];
    grade_message(&g, 0, msg, sizeof msg);
    std::string m = msg;
    CHECK(m.find("1 line of reader carried a digest that is not data.bin's, so the bytes differ "
                 "from the file; the first: \"pass 1: fnv") != std::string::npos);
    grade_free(&g); // a grader of its own for the right digest
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_line(&g, 0, right);
    grade_finish(&g);
    CHECK(g.results[0].holds);
    grade_free(&g);
}
