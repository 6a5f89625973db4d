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
    c.figure = m;
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
    // The counts that decided the read check were read in this very look: a pass on the page
    // waits for a look at the kernel's figures taken after it (issue 40).
    CHECK(g.results[0].decided);
    CHECK_FALSE(grade_decided(&g));
    CHECK_FALSE(grade_done(&g));
    feed(g, 2, 120, 5100);
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

// One pass rule (issue 40): a step is done only once every check is decided. A check that
// watches over a time ("no zombie") holds from the first look, but is decided only at the end of
// its window: until then nothing is done, whatever holds at that instant.
TEST_CASE("a step is not done while a watching check holds but is undecided, and is once it is "
          "decided")
{
    lesson_check c[2] = {make(FIGURE_REQUESTS), make(FIGURE_ZOMBIES)};
    c[0].has_min = true, c[0].min = 4;
    c[1].role = LESSON_ROLE_SERVER, c[1].has_max = true, c[1].max = 0;
    lesson_scenario sc = scenario(c, 2);
    static snapshot s;
    auto feed = [&](grader &g, double t, uint64_t requests, uint32_t zombies) {
        memset(&s, 0, sizeof s);
        s.elapsed_s = t;
        s.dt_s = 0.1;
        s.mode = -1;
        s.mode_running = true;
        s.roles[LESSON_ROLE_CLIENT].requests = requests;
        s.roles[LESSON_ROLE_SERVER].zombies = zombies;
        grade_update(&g, &s);
    };
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    feed(g, 0.7, 10, 0); // every check holds at this instant: the old rule's pass
    CHECK(g.nholding == 2);
    CHECK(grade_state(&g, 0) == GRADE_PASS);
    CHECK(grade_state(&g, 1) == GRADE_OPEN);
    CHECK_FALSE(grade_done(&g));
    // A zombie a second old, seen inside the window: the failure is certain at once.
    feed(g, 1.5, 20, 1);
    CHECK(grade_state(&g, 1) == GRADE_FAIL);
    CHECK_FALSE(grade_done(&g));
    grade_free(&g);

    // The same run without the zombie is done at the end of the window, and stays done.
    REQUIRE(grade_init(&g, &sc) == 0);
    feed(g, 0, 0, 0);
    feed(g, 0.7, 10, 0);
    CHECK_FALSE(grade_done(&g));
    feed(g, CHECK_ZOMBIE_WATCH_S + 0.1, 30, 0);
    CHECK(grade_state(&g, 1) == GRADE_PASS);
    CHECK(grade_done(&g));
    feed(g, CHECK_ZOMBIE_WATCH_S + 1, 40, 3); // verdicts are final once every check is decided
    CHECK(grade_done(&g));
    grade_free(&g);
}

// A check the run never judged (it stopped at an earlier failure) is neither a pass nor a
// failure: no figure in its sentence, and it is not counted as holding.
TEST_CASE("checks left open by a failure that decides the run are not judged and carry no figure")
{
    lesson_check c[3] = {make(FIGURE_OUTPUT), make(FIGURE_REQUESTS), make(FIGURE_CALLS)};
    char match[] = "bytes differ";
    c[0].program = 0, c[0].has_max = true, c[0].max = 0, c[0].match = match;
    c[1].has_min = true, c[1].min = 300;
    c[2].call = IOLAB_CALL_READ, c[2].has_max = true, c[2].max = 0;
    lesson_program prog{};
    char name[] = "load";
    prog.name = name;
    prog.role = LESSON_ROLE_CLIENT;
    lesson_scenario sc = scenario(c, 3);
    sc.programs = &prog;
    sc.nprograms = 1;
    static snapshot s;
    memset(&s, 0, sizeof s);
    s.mode = -1;
    s.mode_running = true;
    s.elapsed_s = 0.5;
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_update(&g, &s);
    grade_line(&g, 0, "file 3: the bytes differ from the file at offset 17");
    // The output check's maximum was passed: the run is decided, the rest were never judged.
    CHECK(grade_decided(&g));
    CHECK(grade_state(&g, 0) == GRADE_FAIL);
    CHECK(grade_state(&g, 1) == GRADE_UNJUDGED);
    CHECK(grade_state(&g, 2) == GRADE_UNJUDGED);
    CHECK(grade_count(&g, GRADE_PASS) == 0);
    CHECK_FALSE(grade_done(&g));
    for (size_t i = 1; i < 3; i++) {
        char msg[768];
        grade_message(&g, i, msg, sizeof msg);
        std::string m = msg;
        INFO(m);
        CHECK(m.rfind("not judged", 0) == 0);
        CHECK(m.find_first_of("0123456789") == std::string::npos);
    }
    CHECK(std::string(grade_state_name(GRADE_UNJUDGED)) == "not judged");
    grade_free(&g);
}
