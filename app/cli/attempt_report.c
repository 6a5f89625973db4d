/*
 * The text and JSON reports of an attempt (attempt_report.h). Everything a pack or a program
 * wrote is printed through termsafe.h in the text, and through json.h's escaping in the JSON.
 */
#include "attempt_report.h"
#include "termsafe.h"

#include <stdio.h>
#include <string.h>

/*
 * The checks of an attempt as JSON, one object each, the same in check --json and --solutions
 * --json: its text, state, whether it holds (null while not decided), whether it was decided,
 * the grader's sentence, its weight ("points") and what it earned ("earned": its points when
 * decided to hold, 0 when decided not to, null when not decided: a check not judged earns
 * nothing and is no zero either).
 */
void attempt_report_checks_json(struct json_out *j, const struct attempt *a)
{
    json_array(j, "checks");
    bool judged = a->judge_ready && !a->error[0];
    for (size_t i = 0; a->judge_ready && i < a->run.sc.nchecks; i++) {
        char msg[768];
        grade_message(&a->grader, i, msg, sizeof msg);
        enum grade_state st = grade_state(&a->grader, i);
        bool decided = st == GRADE_PASS || st == GRADE_FAIL;
        double points = a->run.sc.checks[i].points;
        json_object(j, NULL);
        json_string(j, "text", a->run.sc.checks[i].text);
        json_string(j, "state", grade_state_name(st));
        if (decided)
            json_bool(j, "ok", st == GRADE_PASS);
        else
            json_null(j, "ok");
        json_bool(j, "decided", decided);
        json_string(j, "message", msg);
        grade_sites_json(&a->grader, i, j);
        json_double(j, "points", points, 0);
        if (judged && decided)
            json_double(j, "earned", st == GRADE_PASS ? points : 0, 0);
        else
            json_null(j, "earned");
        json_end(j);
    }
    json_end(j);
}

/* The build log, the checks, the program's last lines and its ids are text iolab did not write:
   every line is printed escaped (termsafe.h). */
void attempt_report_text(const struct attempt *a)
{
    termsafe_fprintf(stdout, "%s/%s: building %s\n", a->lesson->id, a->step->id, a->dir);
    if (a->mine_log && a->mine_log[0]) {
        size_t n = strlen(a->mine_log);
        termsafe_fprintf(
            stdout, "%.*s%s", (int)(n > ATTEMPT_REPORT_LOG_SHOWN ? ATTEMPT_REPORT_LOG_SHOWN : n),
            a->mine_log,
            n && a->mine_log[(n > ATTEMPT_REPORT_LOG_SHOWN ? ATTEMPT_REPORT_LOG_SHOWN : n) - 1] ==
                        '\n'
                ? ""
                : "\n");
        if (n > ATTEMPT_REPORT_LOG_SHOWN || a->mine.log_cut)
            termsafe_fprintf(stdout, "[the compiler said more: %zu bytes shown of %zu%s]\n",
                             (size_t)ATTEMPT_REPORT_LOG_SHOWN < n ? (size_t)ATTEMPT_REPORT_LOG_SHOWN
                                                                  : n,
                             n, a->mine.log_cut ? " and more that was not kept" : "");
    }
    if (a->mine_ok)
        termsafe_fprintf(stdout, "build: ok%s (%.2f s)\n",
                         a->mine.cached ? ", unchanged since the last build" : "", a->mine.seconds);
    if (a->judge_ready) {
        const struct lesson_scenario *sc = &a->run.sc;
        size_t unjudged = grade_count(&a->grader, GRADE_UNJUDGED);
        termsafe_fprintf(stdout, "checks (%zu of %zu hold", grade_count(&a->grader, GRADE_PASS),
                         sc->nchecks);
        if (unjudged)
            termsafe_fprintf(stdout, ", %zu not judged", unjudged);
        termsafe_fprintf(stdout, "):\n");
        for (size_t i = 0; i < sc->nchecks; i++) {
            char msg[768];
            grade_message(&a->grader, i, msg, sizeof msg);
            termsafe_fprintf(stdout, "  [%s] %s: %s\n", grade_state_tag(grade_state(&a->grader, i)),
                             sc->checks[i].text, msg);
        }
    }
    if (a->ntail) {
        termsafe_fprintf(stdout, "your %s's last lines:\n",
                         a->ex->sc->programs[a->ex->learner].name);
        for (size_t i = 0; i < a->ntail; i++)
            termsafe_fprintf(stdout, "  | %s\n", attempt_tail_line(a, i));
    }
    if (a->judge_ready && grade_sanitizer_report(&a->grader))
        termsafe_fprintf(stdout, "the sanitizer's report:\n%s", grade_sanitizer_report(&a->grader));
    if (a->audit && a->judge_ready && !a->error[0]) {
        const struct judge_audit *au = &a->au;
        if (!au->audited)
            termsafe_fprintf(stdout, "not audited: %s; the call counts are your program's own.\n",
                             au->why[0] ? au->why : "the audit run was not made");
        else if (au->failed)
            termsafe_fprintf(stdout, "audit: failed (%.2f s): %s\n", au->run_s, au->failure);
        else
            termsafe_fprintf(stdout, "audit: the kernel's counts agree (%.2f s): %s\n", au->run_s,
                             au->counts);
    }
    if (a->judge.tier[0] && !a->judge.pages_own)
        termsafe_fprintf(stdout,
                         "counts not protected: in the %s sandbox tier a program of the run can "
                         "write another's counter page through /proc, so the exercise's own "
                         "programs' figures could be your program's writing (Landlock, in the "
                         "full and reduced tiers, keeps each program's page its own).\n",
                         a->judge.tier);
    /* One closing sentence: the verdict, why, and the score. The verdict word leads it (a
       script reads it there); a word alone on its own line read as a stray message. */
    double got, max;
    attempt_score(a, &got, &max);
    const char *status = attempt_status(a);
    if (attempt_verdict(a) == ATTEMPT_ERROR)
        termsafe_fprintf(stdout, "%s: %s; nothing was judged (score: %g of %g point%s).\n", status,
                         a->error[0] ? a->error : "the checks could not be run", got, max,
                         max == 1 ? "" : "s");
    else
        termsafe_fprintf(
            stdout, "%s: %zu of %zu checks hold%s (score: %g of %g point%s).\n", status,
            grade_count(&a->grader, GRADE_PASS), a->run.sc.nchecks,
            a->audit_started && a->au.failed ? ", but not on the kernel's counts (the audit)" : "",
            got, max, max == 1 ? "" : "s");
}

void attempt_report_json(const struct attempt *a, struct json_out *j)
{
    json_object(j, NULL);
    json_u64(j, "format", ATTEMPT_REPORT_JSON_FORMAT);
    json_string(j, "lesson", a->lesson->id);
    json_string(j, "step", a->step->id);
    json_string(j, "status", attempt_status(a));
    json_string(j, "dir", a->dir);
    json_string(j, "tier", a->judge.tier[0] ? a->judge.tier : NULL);
    json_bool(j, "counts_protected", a->judge.tier[0] && a->judge.pages_own);
    json_object(j, "build");
    json_bool(j, "ok", a->mine_ok);
    /* A limit of the build's jail ("pids", "memory") that stopped it: not the learner's code. */
    json_string(j, "limit", a->mine.status == BUILD_LIMIT ? a->mine.limit : NULL);
    json_bool(j, "cached", a->mine.cached);
    json_double(j, "seconds", a->mine.seconds, 3);
    json_string(j, "log", a->mine_log ? a->mine_log : "");
    json_bool(j, "log_cut", a->mine.log_cut);
    json_u64(j, "log_max", BUILD_LOG_MAX);
    json_end(j);
    if (a->judge_ready) {
        attempt_report_checks_json(j, a);
        grade_expect_json(&a->grader, j, "expected");
        json_string(j, "report", grade_sanitizer_report(&a->grader));
        json_array(j, "output"); /* the learner's program's last lines */
        for (size_t i = 0; i < a->ntail; i++)
            json_string(j, NULL, attempt_tail_line(a, i));
        json_end(j);
    } else {
        json_array(j, "checks");
        json_end(j);
    }
    /* The text prints the compiler's messages above its sentence; here they are build.log. */
    const char *error = a->error[0] ? a->error : NULL;
    if (a->mine_built && a->mine.status == BUILD_FAILED)
        error = "your program does not build (the compiler's messages are in build.log)";
    json_string(j, "error", error);
    if (a->audit) {
        const struct judge_audit *au = &a->au;
        json_bool(j, "audited", au->audited);
        json_object(j, "audit"); /* the second run, on the kernel's counts */
        json_string(j, "calls", au->calls[0] ? au->calls : NULL);
        json_bool(j, "ok", au->audited ? !au->failed : false);
        json_string(j, "why", au->audited ? NULL : au->why[0] ? au->why : "not run");
        json_string(j, "counts", au->counts[0] ? au->counts : NULL);
        json_string(j, "failure", au->failed ? au->failure : NULL);
        json_double(j, "seconds", au->run_s, 3);
        json_end(j);
    }
    double got, max;
    attempt_score(a, &got, &max);
    json_object(j, "score"); /* the points of the checks that hold, of every check's */
    json_double(j, "points", got, 0);
    json_double(j, "max", max, 0);
    json_end(j);
    /* Seconds from the start of the check: to the build's verdict, to every check decided. */
    json_object(j, "timing");
    json_double(j, "build_verdict_s", a->build_verdict_s, 3);
    json_double(j, "checks_decided_s", a->decided_s, 3);
    json_end(j);
    json_end(j);
}
