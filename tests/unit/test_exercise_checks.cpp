// Exercise checks without processes: when a check is decided (a minimum reached, a maximum
// passed, an exit seen, a time limit over), what its failing message says, the ratio
// bytes_per_syscr, peak_procs as a maximum, and the progress record an exercise keeps.
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <csignal>
#include <string>

extern "C" {
#include "exercise/buildmsg.h"
#include "exercise/exercise.h"
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

TEST_CASE("a check is decided as soon as its figure settles it")
{
    mode_span m{};
    m.mode = -1;
    m.span.seconds = 1.0;
    m.span.roles[LESSON_ROLE_CLIENT].requests = 5;
    m.span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] = 2;
    lesson_check c[5] = {make(FIGURE_REQUESTS), make(FIGURE_REQUESTS), make(FIGURE_CALLS),
                         make(FIGURE_CALLS), make(FIGURE_REQUESTS)};
    c[0].has_min = true, c[0].min = 4;  // reached: decided, holds
    c[1].has_min = true, c[1].min = 10; // not yet: open
    c[2].call = IOLAB_CALL_FORK, c[2].role = LESSON_ROLE_SERVER, c[2].has_max = true;
    c[2].max = 0; // passed: decided, fails
    c[3].call = IOLAB_CALL_FORK, c[3].role = LESSON_ROLE_SERVER, c[3].has_max = true;
    c[3].max = 5;                                          // holds so far: open until the end
    c[4].has_min = true, c[4].min = 10, c[4].within = 0.5; // time is up: decided, fails
    lesson_scenario sc = scenario(c, 5);
    check_facts f{&m, 1, nullptr, false};
    check_result r[5];
    CHECK(check_eval_all(&sc, &f, r) == 2);
    CHECK((r[0].holds && r[0].decided));
    CHECK((!r[1].holds && !r[1].decided));
    CHECK((!r[2].holds && r[2].decided));
    CHECK((r[3].holds && !r[3].decided));
    CHECK((!r[4].holds && r[4].decided));
    f.over = true;
    check_eval_all(&sc, &f, r);
    for (auto &x : r)
        CHECK(x.decided);
}

TEST_CASE("a failing message says what was expected, what was seen, the time limit and where "
          "to look")
{
    lesson_check c = make(FIGURE_REQUESTS);
    c.has_min = true, c.min = 4, c.within = 3;
    char fail[] = "converse() must answer every line (its TODO)";
    c.fail = fail;
    lesson_scenario sc = scenario(&c, 1);
    check_result r{false, 1, 3.2, true, false};
    char buf[512];
    check_explain(&c, &sc, &r, buf, sizeof buf);
    CHECK(std::string(buf) ==
          "1 of 4 requests in 3.2 s; not within 3 s: converse() must answer every line (its TODO)");
}

TEST_CASE("exit and output checks read what the grader observed, ratios and maxima")
{
    mode_span m{};
    m.mode = -1;
    m.span.seconds = 2;
    m.span.roles[LESSON_ROLE_CLIENT].rchar = 4096 * 100;
    m.span.roles[LESSON_ROLE_CLIENT].syscr = 101;
    m.span.roles[LESSON_ROLE_SERVER].nprocs = 5;
    lesson_check c[4] = {make(FIGURE_EXIT), make(FIGURE_OUTPUT), make(FIGURE_RCHAR_PER_SYSCR),
                         make(FIGURE_PEAK_PROCS)};
    c[0].program = 0, c[0].has_status = true, c[0].status = 0;
    c[1].program = 0, c[1].has_min = true, c[1].min = 2;
    c[2].has_min = true, c[2].min = 4000;
    c[3].role = LESSON_ROLE_SERVER, c[3].has_min = true, c[3].min = 3;
    lesson_scenario sc = scenario(c, 4);
    check_observed obs[4] = {};
    obs[0].value = 1, obs[0].seen = true;
    obs[1].value = 2;
    check_facts f{&m, 1, obs, false};
    check_result r[4];
    check_eval_all(&sc, &f, r);
    CHECK((!r[0].holds && r[0].decided && r[0].value == 1)); // exited with 1, wanted 0
    CHECK((r[1].holds && r[1].decided));
    CHECK(r[2].value == Approx(4096.0 * 100 / 101));
    CHECK((r[2].holds && !r[2].decided)); // a ratio can still move
    CHECK((r[3].holds && r[3].value == 5));
}

TEST_CASE("a process or a thread per request: threads at once, fork and pthread_create "
          "together, children left unreaped, each a maximum over the modes")
{
    mode_span m[2]{};
    m[0].mode = 0, m[0].span.seconds = 2;
    m[1].mode = 1, m[1].span.seconds = 2;
    m[0].span.roles[LESSON_ROLE_SERVER].nthreads = 9; // eight threads (or children) and main
    m[1].span.roles[LESSON_ROLE_SERVER].nthreads = 2;
    m[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] = 3;
    m[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_PTHREAD_CREATE] = 5;
    m[1].span.roles[LESSON_ROLE_SERVER].zombies = 4;
    lesson_check c[3] = {make(FIGURE_PEAK_THREADS), make(FIGURE_SPAWNS), make(FIGURE_ZOMBIES)};
    for (auto &x : c)
        x.role = LESSON_ROLE_SERVER;
    c[0].has_min = true, c[0].min = 5;
    c[1].has_min = true, c[1].min = 8;
    c[2].has_max = true, c[2].max = 0;
    lesson_scenario sc = scenario(c, 3);
    check_facts f{m, 2, nullptr, false};
    check_result r[3];
    check_eval_all(&sc, &f, r);
    CHECK((r[0].holds && r[0].value == 9)); // the larger of the two modes, not their sum
    CHECK((r[1].holds && r[1].value == 8)); // three forks and five threads
    CHECK((!r[2].holds && r[2].decided && r[2].value == 4));
    enum figure_id metric;
    unsigned call;
    for (const char *name : {"peak_threads", "zombies", "spawns"})
        CHECK(check_figure_parse(name, &metric, &call) == 0);
}

TEST_CASE("a server that aborts after the verdicts still has its signal and its report told")
{
    // The client that lost its server often exits first, deciding every check; the server is
    // still writing its sanitizer's report, and iolab may have asked it to stop meanwhile.
    lesson_check c = make(FIGURE_REQUESTS);
    c.has_min = true, c.min = 4;
    lesson_program progs[2]{};
    char server[] = "server", client[] = "client";
    progs[0].name = server;
    progs[1].name = client;
    lesson_scenario sc = scenario(&c, 1);
    sc.programs = progs;
    sc.nprograms = 2;
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_line(&g, 0, "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602");
    CHECK(grade_sanitizer_reporting(&g));
    grade_exit(&g, 1, 1, false); // the client gives up
    grade_finish(&g);
    CHECK(grade_sanitizer_reporting(&g)); // the server has not exited: a headless run waits for it
    grade_line(&g, 0, "    #0 0x401234 in converse ordered-server.c:42");
    grade_exit(&g, 0, 128 + SIGABRT, true); // it dies of its own abort(), though asked to stop
    CHECK_FALSE(grade_sanitizer_reporting(&g));
    char msg[768];
    grade_message(&g, 0, msg, sizeof msg);
    std::string m = msg;
    CHECK(m.find("server was killed by signal 6, SIGABRT") != std::string::npos);
    CHECK(m.find("the sanitizer's report is below") != std::string::npos);
    CHECK(std::string(grade_sanitizer_report(&g)).find("ordered-server.c:42") != std::string::npos);
    grade_free(&g);

    // Stopped by iolab (SIGTERM, or SIGKILL when it would not stop) is not a crash.
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_finish(&g);
    grade_exit(&g, 0, 128 + SIGKILL, true);
    grade_exit(&g, 1, 128 + SIGTERM, true);
    grade_message(&g, 0, msg, sizeof msg);
    CHECK(std::string(msg).find("killed") == std::string::npos);
    grade_free(&g);
}

TEST_CASE("the exercise's progress record: attempts, first pass, solution viewed")
{
    char a[256], b[256], c[256], d[256];
    REQUIRE(exercise_progress(nullptr, EXERCISE_ATTEMPT, 100, a, sizeof a) == 0);
    REQUIRE(exercise_progress(a, EXERCISE_SOLUTION, 150, b, sizeof b) == 0);
    REQUIRE(exercise_progress(b, EXERCISE_PASS, 200, c, sizeof c) == 0);
    REQUIRE(exercise_progress(c, EXERCISE_PASS, 300, d, sizeof d) == 0); // the first pass stays
    cJSON *j = cJSON_Parse(d);
    REQUIRE(j);
    CHECK(cJSON_GetObjectItem(j, "attempts")->valuedouble == 1);
    CHECK(cJSON_GetObjectItem(j, "first_pass")->valuedouble == 200);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "solution_viewed")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "solution_before_pass")));
    cJSON_Delete(j);
    REQUIRE(exercise_progress("not json", EXERCISE_ATTEMPT, 1, a, sizeof a) == 0);
    CHECK(std::string(a).find("\"attempts\":1") != std::string::npos);
}

TEST_CASE("bytes per uncut read: reads fault injection cut short leave the count")
{
    // A buffered reader under short reads: 800 reads filled the 4 KiB buffer, 350 were cut
    // short on purpose (about 2 KiB each), one found the end of the file.
    mode_span m{};
    m.mode = -1;
    m.span.seconds = 1;
    m.span.roles[LESSON_ROLE_CLIENT].rchar = 4096 * 800 + 2048 * 350;
    m.span.roles[LESSON_ROLE_CLIENT].syscr = 800 + 350 + 1;
    m.span.roles[LESSON_ROLE_CLIENT].fd.faults[IOLAB_FAULT_SHORT_READ] = 350;
    lesson_check c[2] = {make(FIGURE_READ_FILL), make(FIGURE_RCHAR_PER_SYSCR)};
    c[0].has_min = c[1].has_min = true;
    c[0].min = c[1].min = 4000;
    lesson_scenario sc = scenario(c, 2);
    check_facts f{&m, 1, nullptr, false};
    check_result r[2];
    check_eval_all(&sc, &f, r);
    CHECK(r[0].value == Approx((4096.0 * 800 + 2048 * 350) / 801));
    CHECK(r[0].holds);         // every read it was let fill brought 4 KiB
    CHECK_FALSE(r[1].holds);   // plain bytes per read blames the reader for the cuts
    CHECK_FALSE(r[0].decided); // a ratio can still move
    char buf[256];
    check_describe(&c[0], &sc, &r[0], buf, sizeof buf);
    CHECK(std::string(buf).find("bytes per read system call not cut short on purpose") !=
          std::string::npos);
}

TEST_CASE("a program that says what must not be said decides the run, the rest is not judged")
{
    // A client rejected a download: the step cannot pass, and the check still waiting for its
    // requests must not be failed with a sentence about another fix.
    lesson_check c[2] = {make(FIGURE_REQUESTS), make(FIGURE_OUTPUT)};
    c[0].has_min = true, c[0].min = 20, c[0].within = 5;
    c[0].fail = (char *)"send_file() must send all size bytes (its TODO)";
    c[1].program = 0, c[1].has_max = true, c[1].max = 0;
    c[1].match = (char *)"bytes differ from the file";
    c[1].fail = (char *)"each sendfile() must go on from the offset the last one reached";
    lesson_program progs[1]{};
    char load[] = "load";
    progs[0].name = load;
    lesson_scenario sc = scenario(c, 2);
    sc.programs = progs;
    sc.nprograms = 1;
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    CHECK_FALSE(grade_decided(&g));
    grade_line(&g, 0,
               "file-client: a download's bytes differ from the file at offset 4096 of 1048576");
    CHECK(grade_decided(&g));
    grade_finish(&g);
    CHECK_FALSE(grade_done(&g));
    char msg[768];
    grade_message(&g, 1, msg, sizeof msg);
    CHECK(std::string(msg).find("1 matching lines, at most 0") != std::string::npos);
    CHECK(std::string(msg).find("go on from the offset") != std::string::npos);
    CHECK(std::string(msg).find("at offset 4096") != std::string::npos);
    grade_message(&g, 0, msg, sizeof msg);
    CHECK(std::string(msg).find("not judged") != std::string::npos);
    CHECK(std::string(msg).find("must send all size bytes") == std::string::npos);
    grade_free(&g);
}

TEST_CASE("bytes per byte served: open while the run goes, failing sentences say the figure and "
          "where to look, a step of one program divides by its files")
{
    mode_span m{};
    m.mode = -1;
    m.span.seconds = 3.0;
    const uint64_t mib = 1 << 20;
    m.span.roles[LESSON_ROLE_CLIENT].bytes = 40 * mib;
    span_role &srv = m.span.roles[LESSON_ROLE_SERVER];
    srv.calls[IOLAB_CALL_SENDFILE] = 640;
    srv.call_bytes[IOLAB_CALL_SENDFILE] = 0; // zero-length sendfile() calls beside a copy
    srv.rchar = 80 * mib;                    // and one more copy of each file
    srv.wchar = 40 * mib;
    lesson_check c[3] = {make(FIGURE_CALL_BYTES_PER_BYTE), make(FIGURE_RCHAR_PER_BYTE),
                         make(FIGURE_WCHAR_PER_BYTE)};
    for (auto &x : c) {
        x.role = LESSON_ROLE_SERVER;
        x.has_min = x.has_max = true;
        x.min = 0.9;
        x.max = 1.5;
    }
    c[0].call = IOLAB_CALL_SENDFILE;
    c[0].fail = const_cast<char *>("send the file's bytes with sendfile() (its TODO)");
    c[1].fail = const_cast<char *>("read the file once, by sendfile()");
    lesson_scenario sc = scenario(c, 3);
    check_facts f{&m, 1, nullptr, false};
    check_result r[3];
    CHECK(check_eval_all(&sc, &f, r) == 1); // wchar only
    CHECK_FALSE(r[0].decided);              // a ratio: decided with the rest, or at the end
    f.over = true;
    check_eval_all(&sc, &f, r);
    char buf[512];
    check_explain(&c[0], &sc, &r[0], buf, sizeof buf);
    CHECK(std::string(buf) == "0.00 bytes sendfile moved (confirmed by the kernel) per byte "
                              "served, between 0.9 and 1.5 in 3.0 s: send the file's bytes with "
                              "sendfile() (its TODO)");
    check_explain(&c[1], &sc, &r[1], buf, sizeof buf);
    CHECK(std::string(buf) == "2.00 bytes read (the kernel's rchar) per byte served, between 0.9 "
                              "and 1.5 in 3.0 s: read the file once, by sendfile()");

    // Nothing served: no figure, and the sentence says why rather than blaming the ratio.
    m.span.roles[LESSON_ROLE_CLIENT].bytes = 0;
    check_eval_all(&sc, &f, r);
    CHECK_FALSE(r[2].holds);
    check_explain(&c[2], &sc, &r[2], buf, sizeof buf);
    CHECK(std::string(buf).find("no byte served, so no bytes written") == 0);

    // One program and a file of 40 MiB: the file, copied once, is what was served.
    lesson_file file{const_cast<char *>("data.bin"), 40 * mib};
    sc.files = &file;
    sc.nfiles = 1;
    srv.call_bytes[IOLAB_CALL_SENDFILE] = 40 * mib;
    srv.rchar = 40 * mib;
    CHECK(check_eval_all(&sc, &f, r) == 3);
    CHECK(r[0].value == Approx(1.0));
}

TEST_CASE("the grader and the learner's brief take the same lines for a sanitizer's error")
{
    CHECK(grade_sanitizer_error("==7==ERROR: AddressSanitizer: heap-buffer-overflow on address"));
    CHECK(grade_sanitizer_error("==7==ERROR: LeakSanitizer: detected memory leaks"));
    CHECK(grade_sanitizer_error("server.c:12:5: runtime error: signed integer overflow"));
    CHECK_FALSE(grade_sanitizer_error("ERROR: no such file: config.txt"));
    CHECK_FALSE(grade_sanitizer_error("SUMMARY: AddressSanitizer: heap-buffer-overflow"));

    // A program's own "ERROR: " line opens no report for the grader...
    lesson_check c = make(FIGURE_REQUESTS);
    lesson_program prog{};
    char server[] = "server";
    prog.name = server;
    lesson_scenario sc = scenario(&c, 1);
    sc.programs = &prog;
    sc.nprograms = 1;
    grader g;
    REQUIRE(grade_init(&g, &sc) == 0);
    grade_line(&g, 0, "ERROR: no such file: config.txt");
    CHECK_FALSE(grade_sanitizer_reporting(&g));
    CHECK(grade_sanitizer_report(&g) == nullptr);
    grade_free(&g);

    // ...and is not taken for the error in the brief of a report.
    char file[] = "server.c";
    char *files[] = {file};
    lesson_exercise ex{};
    ex.files = files;
    ex.nfiles = 1;
    const char *report =
        "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x5\n"
        "ERROR: no such file: config.txt\n"
        "    #0 0x401234 in converse /tmp/iolab-build-x/server.c:42\n"
        "SUMMARY: AddressSanitizer: heap-buffer-overflow\n";
    char brief[1024];
    exercise_sanitizer_brief(&ex, report, brief, sizeof brief);
    std::string b = brief;
    CHECK(b.find("ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6") !=
          std::string::npos);
    CHECK(b.find("at pc") == std::string::npos);
    CHECK(b.find("#0 converse server.c:42") != std::string::npos);
    CHECK(b.find("config.txt") == std::string::npos);
    CHECK(b.find("SUMMARY:") != std::string::npos);
}
