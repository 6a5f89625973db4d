/*
 * The author's check of a pack's exercises (solutions.h): two attempts per exercise, the
 * solution and the starter, each judged as `iolab check` judges a learner's files.
 */
#include "solutions.h"
#include "attempt.h"
#include "attempt_report.h"
#include "cmd.h"
#include "junit.h"
#include "termsafe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The checks of an attempt that hold (holding) or do not, as "\"TEXT\" (MESSAGE)" joined by
   "; " into buf; how many there are. */
static size_t solutions_list(const struct attempt *a, bool holding, char *buf, size_t len)
{
    size_t n = 0, at = 0;
    buf[0] = '\0';
    if (!a->judge_ready)
        return 0;
    for (size_t i = 0; i < a->run.sc.nchecks; i++) {
        if ((grade_state(&a->grader, i) == GRADE_PASS) != holding)
            continue;
        char msg[768];
        grade_message(&a->grader, i, msg, sizeof msg);
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s\"%s\" (%s)", n ? "; " : "",
                                   a->run.sc.checks[i].text, msg);
        n++;
    }
    return n;
}

/* An author's sentence on why an attempt is not what it must be (solution: pass; starter:
   build and fail), naming the checks. */
static void solutions_why(const struct attempt *a, bool solution, char *buf, size_t len)
{
    char list[2048];
    if (a->error[0]) {
        snprintf(buf, len, "%s", a->error);
    } else if (solution) {
        size_t n = solutions_list(a, false, list, sizeof list);
        snprintf(buf, len, "%zu check%s fail%s: %s", n, n == 1 ? "" : "s", n == 1 ? "s" : "", list);
    } else {
        solutions_list(a, true, list, sizeof list);
        snprintf(buf, len, "every check holds, so a learner passes without a change: %s", list);
    }
}

/* The compiler's messages of an attempt, indented under a heading (a starter that does not
   build, a build with warnings). */
static void solutions_print_log(const struct attempt *a, const char *heading)
{
    const char *log = a->mine_log ? a->mine_log : "";
    if (!log[0])
        return;
    termsafe_fprintf(stdout, "  %s\n", heading);
    size_t shown = 0;
    for (const char *p = log; *p && shown < ATTEMPT_REPORT_LOG_SHOWN;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        termsafe_fprintf(stdout, "  | %.*s\n", (int)n, p);
        shown += n + 1;
        p += n + (nl != NULL);
    }
    if (shown < strlen(log) || a->mine.log_cut)
        termsafe_fprintf(stdout, "  [the compiler said more]\n");
}

/* An attempt of --solutions in JSON: its status, the sentence, the build and every check. */
static void solutions_json(struct json_out *j, const char *key, const struct attempt *a,
                           bool solution, bool ok)
{
    char why[2200];
    solutions_why(a, solution, why, sizeof why);
    json_object(j, key);
    json_string(j, "status", attempt_status(a));
    json_string(j, "problem", ok ? NULL : why);
    json_object(j, "build");
    json_bool(j, "ok", a->mine_ok);
    json_u64(j, "warnings", a->mine.warnings);
    json_string(j, "log", a->mine_log ? a->mine_log : "");
    json_end(j);
    attempt_report_checks_json(j, a);
    double got, max;
    attempt_score(a, &got, &max);
    json_object(j, "score");
    json_double(j, "points", got, 0);
    json_double(j, "max", max, 0);
    json_end(j);
    json_end(j);
}

/* Takes dir's path off the file names in a compiler's log (in place): the starter is built in a
   temporary directory that is gone when its warnings are read, so they name the starter's files
   as the learner's workspace does ("chat-server.c:36:12"). */
static void solutions_log_unprefix(char *log, const char *dir)
{
    size_t dl = strlen(dir);
    if (!log || !dl)
        return;
    char *w = log;
    for (const char *r = log; *r;) {
        if (!strncmp(r, dir, dl) && r[dl] == '/')
            r += dl + 1;
        else
            *w++ = *r++;
    }
    *w = '\0';
}

/* The checks a starter passes that earn points, as "\"TEXT\" (N points)" joined by ", " into
   buf: a learner who changes nothing scores them. The points in all. */
static double solutions_starter_points(const struct attempt *a, char *buf, size_t len)
{
    double got = 0;
    size_t at = 0;
    buf[0] = '\0';
    if (!a->judge_ready || a->error[0])
        return 0;
    for (size_t i = 0; i < a->run.sc.nchecks; i++) {
        double p = a->run.sc.checks[i].points;
        if (grade_state(&a->grader, i) != GRADE_PASS || p <= 0)
            continue;
        got += p;
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s\"%s\" (%g point%s)", at ? ", " : "",
                                   a->run.sc.checks[i].text, p, p == 1 ? "" : "s");
    }
    return got;
}

/* --solutions stopped by a signal: the exercises so far are printed, the JUnit report is not
   written (its buffer goes), and the status is 128+signal. */
static int solutions_stopped(FILE *sf, char **suites, int stopped)
{
    if (sf)
        fclose(sf); /* sets *suites */
    free(*suites);
    fflush(stdout);
    return stopped;
}

/* The suite of one exercise in --solutions' JUnit report (into sf, its counts added to total):
   the solution's cases, then one case for the starter. */
static void solutions_junit(FILE *sf, struct junit_counts *total, const struct attempt *sol,
                            const struct attempt *start, bool start_ok, const char *start_why)
{
    char *cases = NULL;
    size_t clen = 0;
    FILE *cf = open_memstream(&cases, &clen);
    struct junit_counts n = {0};
    junit_props_begin(&n);
    if (cf) {
        junit_attempt(cf, &n, sol, " solution");
        char cls[512];
        snprintf(cls, sizeof cls, "%s.%s starter", sol->lesson->id, sol->step->id);
        /* The suite's time covers the starter's case as well as the solution's. */
        double start_s = start->error[0] && !start->mine_built ? 0 : junit_attempt_seconds(start);
        n.seconds += start_s;
        junit_case(cf, &n, cls, "the starter builds and fails a check", start_s,
                   start_ok                             ? NULL
                   : start->mine_ok && !start->error[0] ? "failure"
                                                        : "error",
                   start_why,
                   !start->mine_ok && start->mine_log && start->mine_log[0] ? start->mine_log
                                                                            : NULL);
        fclose(cf);
        char name[512];
        snprintf(name, sizeof name, "%s/%s", sol->lesson->id, sol->step->id);
        junit_suite(sf, name, &n, cases ? cases : "", sol->started);
        total->tests += n.tests;
        total->failures += n.failures;
        total->errors += n.errors;
        total->skipped += n.skipped;
        total->seconds += n.seconds;
    }
    junit_props_end(&n);
    free(cases);
}

/* The author's check of every exercise: solutions pass, starters build and fail. */
int solutions_run(const struct lesson_pack *pack, bool json, double seconds, const char *junit)
{
    int status = 0;
    size_t nex = 0;
    struct json_out j;
    json_init(&j, stdout);
    if (json) {
        json_object(&j, NULL);
        json_u64(&j, "format", ATTEMPT_REPORT_JSON_FORMAT);
        json_array(&j, "exercises");
    }
    char *suites = NULL;
    size_t slen = 0;
    FILE *sf = junit ? open_memstream(&suites, &slen) : NULL;
    struct junit_counts total = {0};
    for (size_t li = 0; li < pack->nlessons; li++) {
        const struct lesson *l = &pack->lessons[li];
        for (size_t si = 0; si < l->nsteps; si++) {
            const struct lesson_step *st = &l->steps[si];
            const struct lesson_exercise *ex = lesson_step_exercise(st);
            if (!ex)
                continue;
            nex++;
            /* The solution, as the learner's program: it must pass. */
            /* Each exercise runs as long as it says (--seconds overrides): the checks decide
               early when they can, so only a starter waits out its time limits. */
            double secs = seconds > 0 ? seconds : ex->sc->seconds > 0 ? ex->sc->seconds : 3;
            struct attempt sol = {
                .lesson = l, .step = st, .ex = ex, .seconds = secs, .for_author = true};
            attempt_paths(&sol);
            snprintf(sol.dir, sizeof sol.dir, "%s", ex->dir);
            attempt_run(&sol);
            if (sol.stopped) {
                attempt_free(&sol);
                return solutions_stopped(sf, &suites, sol.stopped);
            }
            /* The starter, generated into a fresh directory: it must build and fail. */
            struct attempt start = {
                .lesson = l, .step = st, .ex = ex, .seconds = secs, .for_author = true};
            attempt_paths(&start);
            char tmpl[PATH_MAX];
            const char *tmp = getenv("TMPDIR");
            snprintf(tmpl, sizeof tmpl, "%s/iolab-starter-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            char why[256] = "";
            if (!mkdtemp(tmpl) || exercise_prepare(ex, tmpl, why, sizeof why) < 0)
                snprintf(start.error, sizeof start.error, "cannot write the starter: %s", why);
            snprintf(start.dir, sizeof start.dir, "%s", tmpl);
            if (!start.error[0])
                attempt_run(&start);
            if (start.stopped) {
                exercise_rmtree(tmpl);
                attempt_free(&sol);
                attempt_free(&start);
                return solutions_stopped(sf, &suites, start.stopped);
            }
            solutions_log_unprefix(start.mine_log, tmpl);
            bool sol_ok = attempt_verdict(&sol) == ATTEMPT_PASS;
            bool start_ok = attempt_verdict(&start) == ATTEMPT_FAIL;
            /* A starter may fail and still earn points (a check that only asks it to run): the
               author is told, since a learner scores them without writing a line. */
            char earns[1024];
            double start_got = solutions_starter_points(&start, earns, sizeof earns), start_max, sg;
            attempt_score(&start, &sg, &start_max);
            if (!sol_ok || !start_ok)
                status = 1;
            char sol_why[2200], start_why[2200];
            solutions_why(&sol, true, sol_why, sizeof sol_why);
            solutions_why(&start, false, start_why, sizeof start_why);
            if (json) {
                json_object(&j, NULL);
                json_string(&j, "step", st->id);
                json_string(&j, "lesson", l->id);
                json_string(&j, "solution", attempt_status(&sol));
                json_string(&j, "starter", attempt_status(&start));
                json_bool(&j, "ok", sol_ok && start_ok);
                solutions_json(&j, "solution_report", &sol, true, sol_ok);
                solutions_json(&j, "starter_report", &start, false, start_ok);
                json_double(&j, "starter_points", start_got, 0);
                json_string(&j, "starter_points_from", start_got > 0 ? earns : NULL);
                json_end(&j);
            } else {
                termsafe_fprintf(
                    stdout, "%s/%s: solution %s%s%s%s; starter %s%s%s%s\n", l->id, st->id,
                    attempt_status(&sol), sol_ok ? "" : " (must pass: ", sol_ok ? "" : sol_why,
                    sol_ok ? "" : ")", attempt_status(&start),
                    start_ok ? "" : " (must build and fail: ", start_ok ? "" : start_why,
                    start_ok ? "" : ")");
                if (start_got > 0)
                    termsafe_fprintf(stdout,
                                     "  the starter earns %g of %g point%s without a change: %s\n",
                                     start_got, start_max, start_max == 1 ? "" : "s", earns);
                /* The compiler's words: why a build failed, and warnings even when it built. */
                if (!sol.mine_ok || sol.mine.warnings)
                    solutions_print_log(&sol, sol.mine_ok ? "the solution builds with warnings:"
                                                          : "the solution's compiler messages:");
                if (!start.mine_ok || start.mine.warnings)
                    solutions_print_log(&start, start.mine_ok ? "the starter builds with warnings:"
                                                              : "the starter's compiler messages:");
            }
            if (sf)
                solutions_junit(sf, &total, &sol, &start, start_ok, start_why);
            char cmd[PATH_MAX + 16];
            snprintf(cmd, sizeof cmd, "%s", tmpl);
            exercise_rmtree(cmd);
            attempt_free(&sol);
            attempt_free(&start);
        }
    }
    if (json) {
        json_end(&j);
        json_u64(&j, "count", nex);
        json_bool(&j, "ok", status == 0);
        json_end(&j);
        fputc('\n', stdout);
    } else {
        printf("%zu exercise%s: %s\n", nex, nex == 1 ? "" : "s", status ? "problems above" : "ok");
    }
    if (sf) {
        fclose(sf);
        if (junit_write(junit, suites ? suites : "", &total) < 0)
            status = 2;
        free(suites);
    } else if (junit) {
        cmd_error("cannot write the JUnit report %s: out of memory.", junit);
        status = 2;
    }
    return status;
}
