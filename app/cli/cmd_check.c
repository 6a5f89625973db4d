/*
 * iolab check LESSON/STEP [--pack DIR|ID] [--dir DIR] [--seconds N] [--json]
 * iolab check --pack DIR --solutions [--json]
 * iolab check --pack DIR [--json]
 *
 * An exercise, headless: the learner's files (their workspace, or DIR) are built in the sandbox
 * and run in the exercise's scenario against the reference programs, and every check is judged
 * by the same grader as the TUI's. Exit 0 when every check holds, 1 when one does not, 2 when
 * nothing could be judged (a build error, a bad command line).
 *
 * --solutions is for authors (as rustlings' dev check): every exercise's solution must pass, and
 * its generated starter must build and fail at least one check.
 *
 * --pack DIR alone is for authors too: every mode of every run step is started for a moment
 * (check_starts), and a program that does not start, never prints its ready text or dies at
 * once is reported in one sentence.
 *
 * Model: one loop, and per exercise an attempt: build the reference, build the learner's, run
 * the scenario in mode "yours" for N seconds while the grader watches, stop, report.
 */
#include "cmd.h"
#include "engine/engine.h"
#include "engine/jail.h"
#include "exercise.h"
#include "exercise/build.h"
#include "exercise/audit.h"
#include "exercise/judge.h"
#include "grade.h"
#include "headless.h"
#include "human.h"
#include "json.h"
#include "lesson/lesson.h"
#include "lesson/record.h"
#include "lesson/sweep.h"
#include "paths.h"
#include "progress.h"
#include "termsafe.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_LOG_SHOWN 4000 /* bytes of compiler output printed in the text output */
/* The version of check --json's and --solutions --json's objects ("format"): raised when a key
   changes meaning or goes away, not when one is added. */
#define CHECK_JSON_FORMAT 1
#define CHECK_TAIL        8 /* last lines of the learner's program kept for the report */

/* One exercise, built and run once. */
struct attempt {
    uv_loop_t *loop;
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_exercise *ex;
    char dir[PATH_MAX]; /* the files built as the learner's */
    char cache[PATH_MAX];
    char sandbox[PATH_MAX];
    double seconds;
    struct judge_builder builder; /* the reference, then the learner's files (judge.h) */
    struct build_result mine;     /* the learner's build; its log copied out below */
    char *mine_log;
    bool mine_ok;
    struct exercise_run run;
    bool run_ready;
    struct grader grader;
    struct judge judge; /* its grader, the tier, and why nothing could be judged (judge.h) */
    bool judge_ready;
    struct engine *engine;
    uv_timer_t timer;
    bool timer_on;
    char error[1024]; /* nothing could be judged: why */
    bool done;
    uint64_t t0;            /* uv_hrtime() when the attempt started */
    double build_verdict_s; /* from t0 to the learner's build verdict */
    double decided_s;       /* from t0 to every check decided; 0: not (yet) */
    bool dying;             /* decided, waiting for a program that is writing a sanitizer report */
    /* The learner's program's last lines of output, oldest first from tail_next: its own words
       often say what a check cannot ("copy differs at byte 4096"). */
    char tail[CHECK_TAIL][256];
    size_t ntail, tail_next;
    /* Per check: seconds from the run's start to its verdict (JUnit's time); 0 undecided. */
    double *check_s;
    time_t started;  /* the wall-clock start, for JUnit's timestamp */
    bool for_author; /* --solutions: sentences for the pack's author, not for a learner */
    bool mine_built; /* the learner's build ran to a result (a->mine is it) */
    int stopped;     /* 128+signal: a signal stopped the attempt (nothing is reported) */
    /* --audit (implied by --junit): the second run, on the kernel's counts (exercise/audit.h) */
    bool audit;
    bool audit_started;
    struct judge_audit au;
};

static double check_since(const struct attempt *a)
{
    return (double)(uv_hrtime() - a->t0) / 1e9;
}

static void check_finish(struct attempt *a)
{
    if (a->timer_on) {
        uv_timer_stop(&a->timer);
    }
    a->done = true;
}

static void check_stop(struct attempt *a)
{
    if (a->engine &&
        (engine_state(a->engine) == ENGINE_RUNNING || engine_state(a->engine) == ENGINE_STARTING))
        engine_stop(a->engine);
}

/* Why the judge could judge nothing (a limit, a scenario that did not start), as the attempt's
   error, unless it has one already. */
static void check_take_why(struct attempt *a)
{
    if (a->judge_ready && a->judge.why[0] && !a->error[0])
        snprintf(a->error, sizeof a->error, "%s", a->judge.why);
}

#define CHECK_DYING_GRACE_S 5 /* for a program that is writing a sanitizer's report to exit */

static void check_dying_late(uv_timer_t *t)
{
    check_stop(t->data);
}

/* Notes when each check got its verdict, for the JUnit report's per-check time. */
static void check_note_decided(struct attempt *a, bool all)
{
    if (!a->judge_ready || !a->check_s)
        return;
    double t = check_since(a) - a->build_verdict_s;
    for (size_t i = 0; i < a->run.sc.nchecks; i++)
        if (a->check_s[i] == 0 && (all || a->grader.results[i].decided))
            a->check_s[i] = t > 0 ? t : 1e-6;
}

/* Every check is decided: the run has shown what it had to; stop it now rather than at the end
   of its time. A program that is in the middle of a sanitizer's report is dying already (the
   report ends in abort()): it is let finish, so its signal and its whole report are told, which
   the verdict of the client that lost its server usually precedes. */
static void check_maybe_decided(struct attempt *a)
{
    check_take_why(a);
    check_note_decided(a, false);
    struct grader *g = &a->grader;
    if (a->decided_s > 0) {
        if (a->dying && !grade_sanitizer_reporting(g)) {
            a->dying = false;
            check_stop(a);
        }
        return;
    }
    if (!grade_decided(g))
        return;
    a->decided_s = check_since(a);
    grade_finish(g);
    if (grade_sanitizer_reporting(g) && a->engine) {
        a->dying = true;
        uv_timer_start(&a->timer, check_dying_late, CHECK_DYING_GRACE_S * 1000, 0);
        return;
    }
    check_stop(a);
}

static void check_on_snapshot(void *data, const struct snapshot *snap)
{
    struct attempt *a = data;
    judge_snapshot(&a->judge, a->engine, snap);
    check_maybe_decided(a);
}

static void check_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                          size_t len)
{
    struct attempt *a = data;
    (void)stream;
    judge_line(&a->judge, prog, line);
    if (prog == a->ex->learner) {
        snprintf(a->tail[a->tail_next], sizeof a->tail[0], "%.*s", (int)len, line);
        a->tail_next = (a->tail_next + 1) % CHECK_TAIL;
        a->ntail += a->ntail < CHECK_TAIL;
    }
    check_maybe_decided(a);
}

static void check_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct attempt *a = data;
    judge_exit(&a->judge, a->engine, prog, status, expected);
    check_maybe_decided(a);
}

static void check_audit_done(void *data)
{
    check_finish(data);
}

/* The ordinary run is over: with --audit, the second run follows (exercise/audit.h) when the
   first said something about the learner's code; the attempt ends after it. */
static void check_run_over(struct attempt *a)
{
    if (a->audit && !a->stopped && !a->error[0] && a->judge_ready && !a->judge.why[0]) {
        uv_timer_stop(&a->timer);
        if (judge_audit_start(&a->au, a->loop, &a->run.sc, a->seconds, check_audit_done, a) == 0) {
            a->audit_started = true;
            return;
        }
    }
    check_finish(a);
}

static void check_on_state(void *data, enum engine_state state)
{
    struct attempt *a = data;
    bool over = a->grader.over;
    judge_state(&a->judge, a->engine, state);
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED) {
        if (!over)
            a->decided_s = check_since(a); /* the time is up: decided as it stands */
        check_note_decided(a, true);
        check_take_why(a);
        engine_free(a->engine);
        a->engine = NULL;
        check_run_over(a);
    }
}

/* Seconds the learner's program has run in its mode (its start-up excluded). */
static double check_mode_seconds(const struct attempt *a)
{
    struct check_facts f;
    session_facts(&a->grader.session, &f);
    for (size_t i = 0; i < f.nmodes; i++)
        if (f.modes[i].mode == EXERCISE_MODE_YOURS)
            return f.modes[i].span.seconds;
    return 0;
}

#define CHECK_STARTUP_GRACE_S 10 /* a loaded machine's start-up, beyond the run's own time */

static void check_time_up(uv_timer_t *t)
{
    struct attempt *a = t->data;
    /* The run's time counts from the program's start, not from the sandbox's: on a loaded
       machine start-up may take a while, and the checks' time limits must get their time. */
    double ran = check_mode_seconds(a), left = a->seconds - ran;
    if (a->engine && a->judge_ready && a->grader.measured && left > 0.05 &&
        check_since(a) < a->seconds + CHECK_STARTUP_GRACE_S) {
        uv_timer_start(&a->timer, check_time_up, (uint64_t)(left * 1000) + 200, 0);
        return;
    }
    check_stop(a);
}

static void check_start_run(struct attempt *a)
{
    if (exercise_run_init(&a->run, a->ex, a->step, a->mine.exe, a->builder.ref_exe) < 0) {
        snprintf(a->error, sizeof a->error, "out of memory");
        check_finish(a);
        return;
    }
    a->run_ready = true;
    if (judge_init(&a->judge, &a->grader, &a->run.sc, a->seconds) < 0) {
        snprintf(a->error, sizeof a->error, "out of memory");
        check_finish(a);
        return;
    }
    a->judge_ready = true;
    a->check_s = calloc(a->run.sc.nchecks + 1, sizeof *a->check_s);
    /* IOLAB_TIER_AUTO: the sandbox then honours IOLAB_SANDBOX_TIER, as for `iolab run`. */
    struct engine_options eo = {
        .mode = "yours", .seconds = a->seconds, .tick_hz = 10, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {.data = a,
                                  .on_snapshot = check_on_snapshot,
                                  .on_state = check_on_state,
                                  .on_line = check_on_line,
                                  .on_exit = check_on_exit};
    int rc = engine_create(&a->engine, a->loop, &a->run.sc, &eo, &cb);
    if (rc == 0)
        rc = engine_start(a->engine);
    if (rc < 0) {
        snprintf(a->error, sizeof a->error, "the scenario could not start: %s",
                 a->engine ? engine_error(a->engine) : strerror(-rc));
        if (a->engine)
            engine_free(a->engine);
        a->engine = NULL;
        check_finish(a);
        return;
    }
    /* The time counts from now; the scenario's start-up is part of what the learner waits. */
    uv_timer_start(&a->timer, check_time_up, (uint64_t)(a->seconds * 1000) + 500, 0);
}

/* The reference did not build (the attempt ends), or the learner's files were built. */
static void check_built(void *data, enum judge_built which, const struct build_result *r)
{
    struct attempt *a = data;
    if (which == JUDGE_REFERENCE) {
        snprintf(a->error, sizeof a->error,
                 "the exercise's reference solution in %s does not build (%s); tell the pack's "
                 "author",
                 a->ex->dir, r->status == BUILD_FAILED ? r->log : r->message);
        check_finish(a);
        return;
    }
    a->mine = *r;
    a->mine_log = strdup(r->log ? r->log : "");
    a->mine.log = NULL;
    a->mine_ok = r->status == BUILD_OK;
    a->mine_built = true;
    a->build_verdict_s = check_since(a);
    if (!a->mine_ok) {
        /* The text output prints the compiler's messages above this sentence; --solutions
           prints them below it, and speaks to the pack's author. */
        snprintf(a->error, sizeof a->error, "%s",
                 r->status != BUILD_FAILED ? r->message
                 : a->for_author           ? "it does not build (the compiler's messages follow)"
                                           : "your program does not build (the compiler's "
                                             "messages are above)");
        check_finish(a);
        return;
    }
    if (a->stopped) { /* a signal came as the learner's build ended */
        check_finish(a);
        return;
    }
    check_start_run(a);
}

/* SIGINT, SIGTERM or SIGHUP: the build is cancelled (the sandbox removes its directory) or the
   scenario stopped; the attempt ends with nothing judged. */
static void check_on_signal(void *data, int sig)
{
    struct attempt *a = data;
    if (!a->stopped)
        a->stopped = 128 + sig;
    if (a->builder.build) {
        judge_build_cancel(&a->builder); /* its callback never runs */
        check_finish(a);
    }
    check_stop(a);
    if (a->audit_started)
        judge_audit_stop(&a->au);
}

static void check_attempt_end(void *data)
{
    struct attempt *a = data;
    uv_close((uv_handle_t *)&a->timer, NULL);
}

/* Builds and runs one exercise on the headless driver, to the end; a->stopped says whether a
   signal stopped it. */
static void check_attempt(struct attempt *a)
{
    struct headless h;
    struct headless_options ho = {.data = a,
                                  .on_signal = check_on_signal,
                                  .on_end = check_attempt_end,
                                  .what = "after the check"};
    if (headless_init(&h, &ho) < 0) {
        snprintf(a->error, sizeof a->error, "cannot set up the event loop");
        a->done = true;
        return;
    }
    a->loop = &h.loop;
    a->t0 = uv_hrtime();
    a->started = time(NULL);
    uv_timer_init(&h.loop, &a->timer);
    a->timer.data = a;
    a->timer_on = true;
    judge_builder_init(&a->builder, &h.loop, a->ex, a->cache, a->sandbox, check_built, a);
    int rc = judge_build(&a->builder, a->dir);
    if (rc == -ESTALE) /* a workspace of an older starter: told so, never judged */
        snprintf(a->error, sizeof a->error, "%s", a->builder.why);
    else if (rc < 0)
        snprintf(a->error, sizeof a->error, "cannot start the build: %s", strerror(-rc));
    a->done = rc < 0;
    headless_run(&h);
    a->loop = NULL;
}

static void check_attempt_free(struct attempt *a)
{
    if (a->judge_ready)
        judge_free(&a->judge);
    if (a->run_ready)
        exercise_run_free(&a->run);
    free(a->mine_log);
    free(a->check_s);
    judge_audit_free(&a->au);
}

/* An attempt's verdict; its value is the exit status of `iolab check` for that attempt. */
enum check_verdict { CHECK_PASS = 0, CHECK_FAIL = 1, CHECK_ERROR = 2 };

static enum check_verdict check_verdict(const struct attempt *a)
{
    if (a->error[0] || !a->judge_ready)
        return CHECK_ERROR;
    /* A pass needs both runs: the ordinary one and, with --audit, the kernel's counts. */
    return grade_done(&a->grader) && !(a->audit_started && a->au.failed) ? CHECK_PASS : CHECK_FAIL;
}

/* "pass", "fail" or "error", as the text and the JSON name a verdict. */
static const char *check_verdict_name(enum check_verdict v)
{
    return v == CHECK_PASS ? "pass" : v == CHECK_FAIL ? "fail" : "error";
}

/* The name of an attempt's verdict. */
static const char *check_status(const struct attempt *a)
{
    return check_verdict_name(check_verdict(a));
}

/* The score: the points of the checks decided to hold, of the points of every check (a check
   weighs 1 unless its "points" say otherwise). Nothing holds when nothing could be judged. */
static void check_score(const struct attempt *a, double *got, double *max)
{
    const struct lesson_scenario *sc = a->ex->sc;
    *got = *max = 0;
    bool judged = a->judge_ready && !a->error[0];
    for (size_t i = 0; i < sc->nchecks; i++) {
        *max += sc->checks[i].points;
        /* Only a decided check that holds earns: one not judged was never measured in full. */
        if (judged && grade_state(&a->grader, i) == GRADE_PASS &&
            (!a->audit_started || judge_audit_holds(&a->au, i)))
            *got += sc->checks[i].points;
    }
}

/*
 * The checks of an attempt as JSON, one object each, the same in check --json and --solutions
 * --json: its text, state, whether it holds (null while not decided), whether it was decided,
 * the grader's sentence, its weight ("points") and what it earned ("earned": its points when
 * decided to hold, 0 when decided not to, null when not decided: a check not judged earns
 * nothing and is no zero either).
 */
static void check_checks_json(struct json_out *j, const struct attempt *a)
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

/* ---- JUnit XML (--junit FILE): what GitLab CI, Jenkins and GitHub's test reporters read ---- */

/* Writes s[0..n) as XML character data or an attribute value: the five special characters as
   entities, a control character that XML 1.0 cannot carry (ESC of a coloured compiler message)
   as a visible \xNN, and a byte that is not part of UTF-8 as U+FFFD, so that no learner's
   output can make the report unreadable to the CI's parser. */
static void junit_escape(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if (c == '&')
                fputs("&amp;", f);
            else if (c == '<')
                fputs("&lt;", f);
            else if (c == '>')
                fputs("&gt;", f);
            else if (c == '"')
                fputs("&quot;", f);
            else if (c == '\'')
                fputs("&apos;", f);
            else if (c == '\n' || c == '\t')
                fputc(c, f);
            else if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\x%02x", c);
            else
                fputc(c, f);
            i++;
            continue;
        }
        /* A UTF-8 sequence: its length from the lead byte, then its continuation bytes, with
           the overlong forms, the surrogates, code points past U+10FFFF and the non-characters
           U+FFFE and U+FFFF refused (XML forbids the last ones too). */
        size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (s[i + k] & 0xc0) == 0x80;
        if (ok && len == 3) {
            ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0) &&
                 !(c == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe);
        } else if (ok && len == 4) {
            ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
        }
        if (!ok) {
            fputs("\xef\xbf\xbd", f);
            i++;
            continue;
        }
        fwrite(s + i, 1, len, f);
        i += len;
    }
}

static void junit_text(FILE *f, const char *s)
{
    junit_escape(f, s ? s : "", s ? strlen(s) : 0);
}

/* Counts of one test suite, for its attributes and the whole report's. */
struct junit_counts {
    size_t tests, failures, errors, skipped; /* skipped: checks the run never judged */
    double seconds, score, max_score;
    /* The suite's <property> elements beyond the score, written as the cases are (each check's
       points: a property, not a part of the test's name, so that re-weighting a check keeps
       its test's history in the CI); a memory stream, NULL when it could not be opened. */
    FILE *props;
    char *props_text;
    size_t props_len;
    const char *audited; /* --audit: "true", or "false: WHY"; NULL: no audit asked */
};

/* Opens n's stream of properties (junit_props_end closes it and frees the text). */
static void junit_props_begin(struct junit_counts *n)
{
    n->props = open_memstream(&n->props_text, &n->props_len);
}

static void junit_props_end(struct junit_counts *n)
{
    if (n->props)
        fclose(n->props);
    n->props = NULL;
    free(n->props_text);
    n->props_text = NULL;
}

/* The seconds an attempt took as its suite reports it: from its start to its last verdict,
   never less than what one of its test cases reports (the build; a check, timed from the
   build's verdict), so that the suite's time covers its cases. */
static double junit_attempt_seconds(const struct attempt *a)
{
    double t = a->decided_s > 0 ? a->decided_s : check_since(a);
    if (a->mine.seconds > t)
        t = a->mine.seconds;
    for (size_t i = 0; a->check_s && a->judge_ready && i < a->run.sc.nchecks; i++)
        if (a->build_verdict_s + a->check_s[i] > t)
            t = a->build_verdict_s + a->check_s[i];
    return t;
}

/* One test case; kind is NULL (passed), "failure", "error" or "skipped" (a check the run never
   judged: no figure, no points, and its reason as the message); body may be NULL. */
static void junit_case(FILE *f, struct junit_counts *n, const char *classname, const char *name,
                       double seconds, const char *kind, const char *message, const char *body)
{
    n->tests++;
    fputs("    <testcase classname=\"", f);
    junit_text(f, classname);
    fputs("\" name=\"", f);
    junit_text(f, name);
    fprintf(f, "\" time=\"%.3f\"", seconds > 0 ? seconds : 0);
    if (!kind) {
        fputs("/>\n", f);
        return;
    }
    if (!strcmp(kind, "skipped")) {
        n->skipped++;
        fputs(">\n      <skipped message=\"", f);
        junit_text(f, message);
        fputs("\"/>\n    </testcase>\n", f);
        return;
    }
    if (!strcmp(kind, "failure"))
        n->failures++;
    else
        n->errors++;
    fprintf(f, ">\n      <%s message=\"", kind);
    junit_text(f, message);
    fprintf(f, "\" type=\"%s\">", !strcmp(kind, "failure") ? "check" : "build");
    junit_text(f, body ? body : message);
    fprintf(f, "</%s>\n    </testcase>\n", kind);
}

/* The suite of one attempt: a test case for the build (an error with the compiler's messages
   when it does not build, its warnings as output when it does), then one per check, named by
   its text (its points are a property of the suite, "points:TEXT"): a failure with the
   grader's sentence when it does not hold, an error when it could not be judged. suffix names
   the attempt ("", " solution", " starter"). */
static void junit_attempt(FILE *f, struct junit_counts *n, const struct attempt *a,
                          const char *suffix)
{
    char cls[512], name[640];
    snprintf(cls, sizeof cls, "%s.%s%s", a->lesson->id, a->step->id, suffix);
    const char *log = a->mine_log ? a->mine_log : "";
    if (a->mine_ok) {
        n->tests++;
        fprintf(f, "    <testcase classname=\"");
        junit_text(f, cls);
        fprintf(f, "\" name=\"build\" time=\"%.3f\"", a->mine.seconds);
        if (log[0]) {
            fputs(">\n      <system-out>", f);
            junit_text(f, log);
            fputs("</system-out>\n    </testcase>\n", f);
        } else {
            fputs("/>\n", f);
        }
    } else {
        /* The compiler's messages are this element's body, not above it as in the text. */
        const char *why = a->error[0] ? a->error : "the program does not build";
        if (a->mine_built && a->mine.status == BUILD_FAILED)
            why = a->for_author ? "it does not build (the compiler's messages are in this "
                                  "element)"
                                : "your program does not build (the compiler's messages are "
                                  "in this element)";
        junit_case(f, n, cls, "build", a->mine.seconds, "error", why,
                   log[0] ? log : (a->error[0] ? a->error : NULL));
    }
    const struct lesson_scenario *sc = a->ex->sc;
    for (size_t i = 0; i < sc->nchecks; i++) {
        const struct lesson_check *c = &sc->checks[i];
        snprintf(name, sizeof name, "%s", c->text);
        if (n->props) {
            fputs("      <property name=\"points:", n->props);
            junit_text(n->props, c->text);
            fprintf(n->props, "\" value=\"%g\"/>\n", c->points);
        }
        if (!a->mine_ok) {
            junit_case(f, n, cls, name, 0, "error", "not judged: the program does not build", NULL);
            continue;
        }
        if (!a->judge_ready || a->error[0]) {
            char why[1100];
            snprintf(why, sizeof why, "not judged: %s", a->error[0] ? a->error : "no run");
            junit_case(f, n, cls, name, 0, "error", why, NULL);
            continue;
        }
        char msg[768], body[1400];
        grade_message(&a->grader, i, msg, sizeof msg);
        double t = a->check_s ? a->check_s[i] : 0;
        enum grade_state st = grade_state(&a->grader, i);
        if (st == GRADE_PASS) {
            junit_case(f, n, cls, name, t, NULL, NULL, NULL);
        } else if (st != GRADE_FAIL) {
            junit_case(f, n, cls, name, t, "skipped", msg, NULL);
        } else {
            /* The grader's sentence carries the check's "fail" hint when it explains a failure
               (grade_message): the body adds it only when the sentence does not. */
            bool hinted = !c->fail || strstr(msg, c->fail);
            snprintf(body, sizeof body, "%s%s%s", msg, hinted ? "" : "\n", hinted ? "" : c->fail);
            junit_case(f, n, cls, name, t, "failure", msg, body);
        }
    }
    if (a->audit && a->mine_ok && a->judge_ready && !a->error[0]) {
        const struct judge_audit *au = &a->au;
        static char audited[640];
        if (au->audited)
            snprintf(audited, sizeof audited, "true");
        else
            snprintf(audited, sizeof audited, "false: %s",
                     au->why[0] ? au->why : "the audit run was not made");
        n->audited = audited;
        /* A step without call-count checks has nothing to audit: no test case for it. */
        if (au->calls[0] && !au->audited)
            junit_case(f, n, cls, "audit", au->run_s, "skipped", audited + 7, NULL);
        else if (au->calls[0] && au->failed)
            junit_case(f, n, cls, "audit", au->run_s, "failure", au->failure, au->counts);
        else if (au->calls[0])
            junit_case(f, n, cls, "audit", au->run_s, NULL, NULL, NULL);
    }
    double got, max;
    check_score(a, &got, &max);
    n->score += got;
    n->max_score += max;
    n->seconds += junit_attempt_seconds(a);
}

/* Wraps suites (already written into body) in <testsuites> and writes the report to path
   through a temporary file renamed over it, so a CI never reads half a report. 0 or -1 (said). */
static int junit_write(const char *path, const char *suites, const struct junit_counts *n)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cmd_error("cannot write the JUnit report %s: %s.", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"iolab check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\" time=\"%.3f\">\n%s</testsuites>\n",
            n->tests, n->failures, n->errors, n->skipped, n->seconds, suites);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        cmd_error("cannot write the JUnit report %s: %s.", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Opens one <testsuite> into out (a memory stream) after its cases were written to cases. */
static void junit_suite(FILE *out, const char *name, const struct junit_counts *n,
                        const char *cases, time_t started)
{
    char stamp[32] = "";
    struct tm tm;
    if (gmtime_r(&started, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    fputs("  <testsuite name=\"", out);
    junit_text(out, name);
    fprintf(out,
            "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" "
            "timestamp=\"%s\">\n"
            "    <properties>\n"
            "      <property name=\"score\" value=\"%g\"/>\n"
            "      <property name=\"max_score\" value=\"%g\"/>\n",
            n->tests, n->failures, n->errors, n->skipped, n->seconds, stamp, n->score,
            n->max_score);
    if (n->props && fflush(n->props) == 0 && n->props_text)
        fputs(n->props_text, out);
    if (n->audited) {
        fputs("      <property name=\"audited\" value=\"", out);
        junit_text(out, n->audited);
        fputs("\"/>\n", out);
    }
    fprintf(out, "    </properties>\n%s  </testsuite>\n", cases);
}

/* The report of one `iolab check LESSON/STEP`. */
static int junit_single(const char *path, const struct attempt *a)
{
    char *cases = NULL, *suites = NULL;
    size_t clen = 0, slen = 0;
    FILE *cf = open_memstream(&cases, &clen);
    if (!cf)
        return -1;
    struct junit_counts n = {0};
    junit_props_begin(&n);
    junit_attempt(cf, &n, a, "");
    if (a->ntail) {
        fputs("    <system-out>", cf);
        for (size_t i = 0; i < a->ntail; i++) {
            junit_text(cf, a->tail[(a->tail_next + CHECK_TAIL - a->ntail + i) % CHECK_TAIL]);
            fputc('\n', cf);
        }
        fputs("</system-out>\n", cf);
    }
    fclose(cf);
    FILE *sf = open_memstream(&suites, &slen);
    if (!sf) {
        free(cases);
        junit_props_end(&n);
        return -1;
    }
    char name[512];
    snprintf(name, sizeof name, "%s/%s", a->lesson->id, a->step->id);
    junit_suite(sf, name, &n, cases, a->started);
    junit_props_end(&n);
    fclose(sf);
    int rc = junit_write(path, suites, &n);
    free(cases);
    free(suites);
    return rc;
}

/* The build log, the checks, the program's last lines and its ids are text iolab did not write:
   every line is printed escaped (termsafe.h). */
static void check_print_text(const struct attempt *a)
{
    termsafe_fprintf(stdout, "%s/%s: building %s\n", a->lesson->id, a->step->id, a->dir);
    if (a->mine_log && a->mine_log[0]) {
        size_t n = strlen(a->mine_log);
        termsafe_fprintf(
            stdout, "%.*s%s", (int)(n > CHECK_LOG_SHOWN ? CHECK_LOG_SHOWN : n), a->mine_log,
            n && a->mine_log[(n > CHECK_LOG_SHOWN ? CHECK_LOG_SHOWN : n) - 1] == '\n' ? "" : "\n");
        if (n > CHECK_LOG_SHOWN || a->mine.log_cut)
            termsafe_fprintf(stdout, "[the compiler said more: %zu bytes shown of %zu%s]\n",
                             (size_t)CHECK_LOG_SHOWN < n ? (size_t)CHECK_LOG_SHOWN : n, n,
                             a->mine.log_cut ? " and more that was not kept" : "");
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
            termsafe_fprintf(stdout, "  | %s\n",
                             a->tail[(a->tail_next + CHECK_TAIL - a->ntail + i) % CHECK_TAIL]);
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
    check_score(a, &got, &max);
    const char *status = check_status(a);
    if (check_verdict(a) == CHECK_ERROR)
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

static void check_print_json(const struct attempt *a, struct json_out *j)
{
    json_object(j, NULL);
    json_u64(j, "format", CHECK_JSON_FORMAT);
    json_string(j, "lesson", a->lesson->id);
    json_string(j, "step", a->step->id);
    json_string(j, "status", check_status(a));
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
        check_checks_json(j, a);
        grade_expect_json(&a->grader, j, "expected");
        json_string(j, "report", grade_sanitizer_report(&a->grader));
        json_array(j, "output"); /* the learner's program's last lines */
        for (size_t i = 0; i < a->ntail; i++)
            json_string(j, NULL, a->tail[(a->tail_next + CHECK_TAIL - a->ntail + i) % CHECK_TAIL]);
        json_end(j);
    } else {
        json_array(j, "checks");
        json_end(j);
    }
    json_string(j, "error", a->error[0] ? a->error : NULL);
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
    check_score(a, &got, &max);
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

static void check_usage(FILE *out)
{
    fputs("usage: iolab check LESSON/STEP [--pack DIR|ID] [--dir DIR] [--seconds N] [--json]\n"
          "                   [--junit FILE] [--audit]\n"
          "       iolab check --pack DIR|ID --solutions [--json] [--junit FILE]\n"
          "       iolab check --pack DIR|ID [--json]\n\n"
          "Builds an exercise's program from your workspace (or DIR) in the sandbox, runs it\n"
          "against the reference programs and judges every check, as the TUI does. Exit 0: every\n"
          "check holds; 1: one does not; 2: nothing could be judged (a build error).\n"
          "--solutions (for authors): every solution passes, every starter builds and fails.\n"
          "--pack DIR alone (for authors): every mode of every run step starts briefly; a\n"
          "program that does not start or never prints its ready text is one line each, exit 1.\n"
          "--junit FILE also writes the verdicts as JUnit XML for a CI (GitLab, Jenkins, GitHub):\n"
          "one test case per check, the build as one more; the score as a property.\n"
          "--audit (implied by --junit) runs your program a second time with the calls the\n"
          "checks count counted by the kernel (seccomp and ptrace), not by your program: a pass\n"
          "needs both runs.\n"
          "--pack names a pack by its directory or by its id (an installed pack's, under\n"
          "$XDG_DATA_HOME/iolab/packs/); without it, a lesson the built-in pack lacks is\n"
          "looked up in the installed packs.\n",
          out);
}

/* Common set-up of an attempt: paths of the cache and the sandbox. */
static int check_paths(struct attempt *a)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(a->cache, sizeof a->cache, "%s/iolab/build", xdg);
    else if (home && home[0] == '/')
        snprintf(a->cache, sizeof a->cache, "%s/.cache/iolab/build", home);
    else
        snprintf(a->cache, sizeof a->cache, "/tmp/iolab-cache-%d/build", (int)getuid());
    return paths_get(PATHS_SANDBOX, a->sandbox, sizeof a->sandbox);
}

/* The checks of an attempt that hold (holding) or do not, as "\"TEXT\" (MESSAGE)" joined by
   "; " into buf; how many there are. */
static size_t check_list(const struct attempt *a, bool holding, char *buf, size_t len)
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
static void check_author_why(const struct attempt *a, bool solution, char *buf, size_t len)
{
    char list[2048];
    if (a->error[0]) {
        snprintf(buf, len, "%s", a->error);
    } else if (solution) {
        size_t n = check_list(a, false, list, sizeof list);
        snprintf(buf, len, "%zu check%s fail%s: %s", n, n == 1 ? "" : "s", n == 1 ? "s" : "", list);
    } else {
        check_list(a, true, list, sizeof list);
        snprintf(buf, len, "every check holds, so a learner passes without a change: %s", list);
    }
}

/* The compiler's messages of an attempt, indented under a heading (a starter that does not
   build, a build with warnings). */
static void check_print_log(const struct attempt *a, const char *heading)
{
    const char *log = a->mine_log ? a->mine_log : "";
    if (!log[0])
        return;
    termsafe_fprintf(stdout, "  %s\n", heading);
    size_t shown = 0;
    for (const char *p = log; *p && shown < CHECK_LOG_SHOWN;) {
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
static void check_author_json(struct json_out *j, const char *key, const struct attempt *a,
                              bool solution, bool ok)
{
    char why[2200];
    check_author_why(a, solution, why, sizeof why);
    json_object(j, key);
    json_string(j, "status", check_status(a));
    json_string(j, "problem", ok ? NULL : why);
    json_object(j, "build");
    json_bool(j, "ok", a->mine_ok);
    json_u64(j, "warnings", a->mine.warnings);
    json_string(j, "log", a->mine_log ? a->mine_log : "");
    json_end(j);
    check_checks_json(j, a);
    double got, max;
    check_score(a, &got, &max);
    json_object(j, "score");
    json_double(j, "points", got, 0);
    json_double(j, "max", max, 0);
    json_end(j);
    json_end(j);
}

/* Takes dir's path off the file names in a compiler's log (in place): the starter is built in a
   temporary directory that is gone when its warnings are read, so they name the starter's files
   as the learner's workspace does ("chat-server.c:36:12"). */
static void check_log_unprefix(char *log, const char *dir)
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
static double check_starter_points(const struct attempt *a, char *buf, size_t len)
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
static int check_solutions_stopped(FILE *sf, char **suites, int stopped)
{
    if (sf)
        fclose(sf); /* sets *suites */
    free(*suites);
    fflush(stdout);
    return stopped;
}

/* The author's check of every exercise: solutions pass, starters build and fail. */
static int check_solutions(const struct lesson_pack *pack, bool json, double seconds,
                           const char *junit)
{
    int status = 0;
    size_t nex = 0;
    struct json_out j;
    json_init(&j, stdout);
    if (json) {
        json_object(&j, NULL);
        json_u64(&j, "format", CHECK_JSON_FORMAT);
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
            check_paths(&sol);
            snprintf(sol.dir, sizeof sol.dir, "%s", ex->dir);
            check_attempt(&sol);
            if (sol.stopped) {
                check_attempt_free(&sol);
                return check_solutions_stopped(sf, &suites, sol.stopped);
            }
            /* The starter, generated into a fresh directory: it must build and fail. */
            struct attempt start = {
                .lesson = l, .step = st, .ex = ex, .seconds = secs, .for_author = true};
            check_paths(&start);
            char tmpl[PATH_MAX];
            const char *tmp = getenv("TMPDIR");
            snprintf(tmpl, sizeof tmpl, "%s/iolab-starter-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            char why[256] = "";
            if (!mkdtemp(tmpl) || exercise_prepare(ex, tmpl, why, sizeof why) < 0)
                snprintf(start.error, sizeof start.error, "cannot write the starter: %s", why);
            snprintf(start.dir, sizeof start.dir, "%s", tmpl);
            if (!start.error[0])
                check_attempt(&start);
            if (start.stopped) {
                exercise_rmtree(tmpl);
                check_attempt_free(&sol);
                check_attempt_free(&start);
                return check_solutions_stopped(sf, &suites, start.stopped);
            }
            check_log_unprefix(start.mine_log, tmpl);
            bool sol_ok = check_verdict(&sol) == CHECK_PASS;
            bool start_ok = check_verdict(&start) == CHECK_FAIL;
            /* A starter may fail and still earn points (a check that only asks it to run): the
               author is told, since a learner scores them without writing a line. */
            char earns[1024];
            double start_got = check_starter_points(&start, earns, sizeof earns), start_max, sg;
            check_score(&start, &sg, &start_max);
            if (!sol_ok || !start_ok)
                status = 1;
            char sol_why[2200], start_why[2200];
            check_author_why(&sol, true, sol_why, sizeof sol_why);
            check_author_why(&start, false, start_why, sizeof start_why);
            if (json) {
                json_object(&j, NULL);
                json_string(&j, "step", st->id);
                json_string(&j, "lesson", l->id);
                json_string(&j, "solution", check_status(&sol));
                json_string(&j, "starter", check_status(&start));
                json_bool(&j, "ok", sol_ok && start_ok);
                check_author_json(&j, "solution_report", &sol, true, sol_ok);
                check_author_json(&j, "starter_report", &start, false, start_ok);
                json_double(&j, "starter_points", start_got, 0);
                json_string(&j, "starter_points_from", start_got > 0 ? earns : NULL);
                json_end(&j);
            } else {
                termsafe_fprintf(
                    stdout, "%s/%s: solution %s%s%s%s; starter %s%s%s%s\n", l->id, st->id,
                    check_status(&sol), sol_ok ? "" : " (must pass: ", sol_ok ? "" : sol_why,
                    sol_ok ? "" : ")", check_status(&start),
                    start_ok ? "" : " (must build and fail: ", start_ok ? "" : start_why,
                    start_ok ? "" : ")");
                if (start_got > 0)
                    termsafe_fprintf(stdout,
                                     "  the starter earns %g of %g point%s without a change: %s\n",
                                     start_got, start_max, start_max == 1 ? "" : "s", earns);
                /* The compiler's words: why a build failed, and warnings even when it built. */
                if (!sol.mine_ok || sol.mine.warnings)
                    check_print_log(&sol, sol.mine_ok ? "the solution builds with warnings:"
                                                      : "the solution's compiler messages:");
                if (!start.mine_ok || start.mine.warnings)
                    check_print_log(&start, start.mine_ok ? "the starter builds with warnings:"
                                                          : "the starter's compiler messages:");
            }
            if (sf) {
                char *cases = NULL;
                size_t clen = 0;
                FILE *cf = open_memstream(&cases, &clen);
                struct junit_counts n = {0};
                junit_props_begin(&n);
                if (cf) {
                    junit_attempt(cf, &n, &sol, " solution");
                    char cls[512];
                    snprintf(cls, sizeof cls, "%s.%s starter", l->id, st->id);
                    /* The suite's time covers the starter's case as well as the solution's. */
                    double start_s =
                        start.error[0] && !start.mine_built ? 0 : junit_attempt_seconds(&start);
                    n.seconds += start_s;
                    junit_case(cf, &n, cls, "the starter builds and fails a check", start_s,
                               start_ok                           ? NULL
                               : start.mine_ok && !start.error[0] ? "failure"
                                                                  : "error",
                               start_why,
                               !start.mine_ok && start.mine_log && start.mine_log[0]
                                   ? start.mine_log
                                   : NULL);
                    fclose(cf);
                    char name[512];
                    snprintf(name, sizeof name, "%s/%s", l->id, st->id);
                    junit_suite(sf, name, &n, cases ? cases : "", sol.started);
                    total.tests += n.tests;
                    total.failures += n.failures;
                    total.errors += n.errors;
                    total.skipped += n.skipped;
                    total.seconds += n.seconds;
                }
                junit_props_end(&n);
                free(cases);
            }
            char cmd[PATH_MAX + 16];
            snprintf(cmd, sizeof cmd, "%s", tmpl);
            exercise_rmtree(cmd);
            check_attempt_free(&sol);
            check_attempt_free(&start);
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

/* ---- iolab check --pack DIR: every run step's programs start ------------------------------- */

#define START_SETTLE_MS 800 /* how long a started scenario runs: a client dying at once shows */
#define START_GUARD_MS                                                                             \
    30000 /* a start that takes longer is stopped (the engine's own ready                          \
             timeout is 5 s a server) */

/* One start of one mode of one run step. */
struct start_try {
    struct engine *engine;
    uv_timer_t settle; /* the guard is the headless driver's deadline */
    const struct lesson_scenario *sc;
    char problem[768]; /* "" when it started */
    bool running;
};

static void start_stop(struct start_try *t)
{
    uv_timer_stop(&t->settle);
    if (t->engine &&
        (engine_state(t->engine) == ENGINE_RUNNING || engine_state(t->engine) == ENGINE_STARTING))
        engine_stop(t->engine);
}

static void start_settled(uv_timer_t *h)
{
    start_stop(h->data);
}

static void start_guard(void *data)
{
    struct start_try *t = data;
    if (engine_state(t->engine) == ENGINE_STOPPED || engine_state(t->engine) == ENGINE_FAILED)
        return; /* it ended in time: the drain is under way */
    if (!t->problem[0])
        snprintf(t->problem, sizeof t->problem,
                 "it did not start within %d s; a server may never print its ready text",
                 START_GUARD_MS / 1000);
    start_stop(t);
}

static void start_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct start_try *t = data;
    if (expected || status == 0 || t->problem[0] || !t->running)
        return;
    /* A program that ends with an error right after the start: quote its last line. */
    size_t n = engine_lines(t->engine, prog);
    enum engine_stream st;
    const char *last = n ? engine_line(t->engine, prog, n - 1, &st) : NULL;
    snprintf(t->problem, sizeof t->problem,
             "program \"%s\" (%s) exited with status %d right "
             "after the start%s%.300s%s",
             t->sc->programs[prog].name, t->sc->programs[prog].program, status, last ? ": \"" : "",
             last ? last : "", last ? "\"" : "");
    start_stop(t);
}

static void start_on_state(void *data, enum engine_state state)
{
    struct start_try *t = data;
    if (state == ENGINE_RUNNING) {
        t->running = true;
        uv_timer_start(&t->settle, start_settled, START_SETTLE_MS, 0);
    } else if (state == ENGINE_FAILED) {
        if (!t->problem[0])
            snprintf(t->problem, sizeof t->problem, "%s", engine_error(t->engine));
        start_stop(t);
    }
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED)
        uv_timer_stop(&t->settle);
}

static void start_on_signal(void *data, int sig)
{
    (void)sig; /* the driver keeps 128+sig */
    start_stop(data);
}

static void start_end(void *data)
{
    struct start_try *t = data;
    if (t->engine)
        engine_free(t->engine);
    t->engine = NULL;
    uv_close((uv_handle_t *)&t->settle, NULL);
}

/* Starts a scenario in one mode (NULL: its default) for a moment; problem says what went wrong.
   Returns 0, or 128+signal when a signal stopped it. */
static int start_one(const struct lesson_scenario *sc, const char *mode, char *problem, size_t len)
{
    struct start_try t = {.sc = sc};
    struct headless h;
    struct headless_options ho = {.data = &t,
                                  .on_signal = start_on_signal,
                                  .deadline_s = START_GUARD_MS / 1000.0,
                                  .on_deadline = start_guard,
                                  .on_end = start_end,
                                  .what = "after a start"};
    int rc = headless_init(&h, &ho);
    if (rc < 0) {
        snprintf(problem, len, "cannot set up the event loop: %s", strerror(-rc));
        return 0;
    }
    uv_timer_init(&h.loop, &t.settle);
    t.settle.data = &t;
    struct engine_options eo = {.mode = mode, .seconds = 2, .tick_hz = 5, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {.data = &t, .on_exit = start_on_exit, .on_state = start_on_state};
    rc = engine_create(&t.engine, &h.loop, sc, &eo, &cb);
    if (rc == 0 && (rc = engine_start(t.engine)) < 0)
        snprintf(t.problem, sizeof t.problem, "%s", engine_error(t.engine));
    else if (rc < 0)
        snprintf(t.problem, sizeof t.problem, "cannot set the scenario up: %s", strerror(-rc));
    int stopped = 0;
    if (rc == 0) {
        stopped = headless_run(&h);
    } else {
        start_end(&t);
        headless_abandon(&h);
    }
    /* One sentence: the engine's own ends with a full stop, the caller adds it. */
    size_t pl = strlen(t.problem);
    while (pl && (t.problem[pl - 1] == '.' || t.problem[pl - 1] == ' '))
        t.problem[--pl] = '\0';
    snprintf(problem, len, "%s", t.problem);
    return stopped;
}

/*
 * The author's check of a pack's run steps: each mode of each run step starts (every server
 * prints its ready text, nothing dies at once). Exercises are --solutions' business. One line
 * per start; 0 when all started, 1 otherwise.
 */
static int check_starts(const struct lesson_pack *pack, bool json)
{
    size_t n = 0, bad = 0;
    int stopped;
    struct json_out j;
    json_init(&j, stdout);
    if (json) {
        json_object(&j, NULL);
        json_array(&j, "starts");
    }
    for (size_t li = 0; li < pack->nlessons; li++)
        for (size_t si = 0; si < pack->lessons[li].nsteps; si++) {
            const struct lesson *l = &pack->lessons[li];
            const struct lesson_step *st = &l->steps[si];
            const struct lesson_scenario *sc = lesson_step_scenario(st);
            if (!sc || lesson_step_exercise(st))
                continue;
            /* A sweep step starts as a plain run does: at its default value ({size} given). */
            const struct lesson_sweep *sw = lesson_step_sweep(st);
            struct sweep_derived plain;
            const struct lesson_scenario *run = sc;
            bool derived = sw && sweep_derive(sc, sw->default_value, &plain) == 0;
            if (derived)
                run = &plain.sc;
            for (size_t m = 0; m < (sc->nmodes ? sc->nmodes : 1); m++) {
                const char *mode = sc->nmodes ? sc->modes[m].id : NULL;
                char problem[768];
                if ((stopped = start_one(run, mode, problem, sizeof problem)) != 0) {
                    if (derived)
                        sweep_derived_free(&plain);
                    return stopped; /* a signal: the starts so far are printed, no summary */
                }
                n++;
                bad += problem[0] != '\0';
                if (json) {
                    json_object(&j, NULL);
                    json_string(&j, "lesson", l->id);
                    json_string(&j, "step", st->id);
                    json_string(&j, "mode", mode);
                    json_bool(&j, "ok", !problem[0]);
                    json_string(&j, "problem", problem[0] ? problem : NULL);
                    json_end(&j);
                } else if (problem[0]) {
                    termsafe_fprintf(stdout, "%s/%s%s%s: does not start: %s.\n", l->id, st->id,
                                     mode ? " mode " : "", mode ? mode : "", problem);
                } else {
                    termsafe_fprintf(stdout, "%s/%s%s%s: starts\n", l->id, st->id,
                                     mode ? " mode " : "", mode ? mode : "");
                }
                fflush(stdout);
            }
            if (derived)
                sweep_derived_free(&plain);
        }
    if (json) {
        json_end(&j);
        json_u64(&j, "count", n);
        json_bool(&j, "ok", bad == 0);
        json_end(&j);
        fputc('\n', stdout);
    } else {
        printf("%zu start%s: %s\n", n, n == 1 ? "" : "s",
               bad ? "problems above" : "every program started");
    }
    return bad ? 1 : 0;
}

/* The learner's files in a->dir are the exercise's starter as generated, byte for byte (the
   build's key hashes the command and every file's name and bytes): building them is no attempt
   of the learner's. */
static bool check_is_starter(const struct attempt *a)
{
    char tmpl[PATH_MAX], why[256], mine[128], starter[128];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/iolab-starter-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl))
        return false;
    const char *cmd[BUILD_MAX_ARGS];
    struct build_spec spec;
    struct judge_builder b; /* for its build spec: nothing is built */
    judge_builder_init(&b, NULL, a->ex, a->cache, a->sandbox, NULL, NULL);
    bool same =
        exercise_prepare(a->ex, tmpl, why, sizeof why) == 0 && judge_spec(&b, tmpl, &spec, cmd) &&
        build_key(&spec, starter, sizeof starter) == 0 && judge_spec(&b, a->dir, &spec, cmd) &&
        build_key(&spec, mine, sizeof mine) == 0 && !strcmp(mine, starter);
    exercise_rmtree(tmpl);
    return same;
}

/* Applies one event to the step's "exercise" record. 0 or a negative errno. */
static int check_record_event(struct progress *p, const char *pk, const char *l, const char *st,
                              enum exercise_event ev)
{
    char json[4096];
    int rc = exercise_progress(progress_field_get(p, pk, l, st, EXERCISE_RECORD_FIELD), ev,
                               (long long)time(NULL), json, sizeof json);
    return rc < 0 ? rc : progress_field_set(p, pk, l, st, EXERCISE_RECORD_FIELD, json);
}

/* The attempt's score as the record keeps it (record.h): check_score's points, and per check
   what it earned, so that the record says what `check --json` says. */
static void check_record_score(const struct attempt *a, struct record_score *s)
{
    const struct lesson_scenario *sc = a->ex->sc;
    bool judged = a->judge_ready && !a->error[0];
    memset(s, 0, sizeof *s);
    s->has = true;
    s->at = (double)time(NULL);
    check_score(a, &s->points, &s->of);
    for (size_t i = 0; i < sc->nchecks && i < RECORD_SCORE_MAX_CHECKS; i++) {
        s->weight[i] = sc->checks[i].points;
        s->got[i] = judged && grade_state(&a->grader, i) == GRADE_PASS ? sc->checks[i].points : 0;
        s->nchecks++;
    }
    /* A scenario with more checks than a score lists keeps the total only. */
    if (sc->nchecks > RECORD_SCORE_MAX_CHECKS)
        s->nchecks = 0;
}

/* Keeps the attempt's score in the step's record when it is the best so far. */
static int check_record_keep_score(struct progress *p, const char *pk, const char *l,
                                   const char *st, const struct attempt *a)
{
    struct record_score s;
    char json[4096];
    check_record_score(a, &s);
    int rc = exercise_record_score(progress_field_get(p, pk, l, st, EXERCISE_RECORD_FIELD), &s,
                                   json, sizeof json);
    return rc < 0 ? rc : progress_field_set(p, pk, l, st, EXERCISE_RECORD_FIELD, json);
}

/*
 * Records a headless check in the learner's progress as the TUI does (exercise.h): an attempt
 * when the build compiled content the learner changed (not the starter as generated, not a cache
 * hit of content built before, not a build the jail stopped for want of resources), and the pass
 * when every check held, which also marks the step done. Every pass is an attempt too, even of a
 * build the cache already held (the reference's own bytes, a return to an earlier version): a
 * pass with no attempt would read as a step passed without trying. The score of a judged attempt
 * is kept when it is the learner's best (record.h), and the pack's version is noted for exports.
 * The read-modify-write holds the progress lock, so a TUI open beside it loses nothing. A failure
 * to record is said on stderr; the verdict stands.
 */
static void check_record(const struct lesson_pack *pack, const struct attempt *a, bool starter)
{
    bool pass = check_verdict(a) == CHECK_PASS;
    bool attempt =
        pass || (a->mine_built && !a->mine.cached && a->mine.status != BUILD_ERROR && !starter);
    if (!attempt)
        return;
    char path[PATH_MAX];
    int rc = progress_default_path(path, sizeof path);
    int lock = rc < 0 ? rc : progress_lock(path);
    if (lock < 0) {
        cmd_error("this check is not recorded in your progress: %s.", strerror(-lock));
        return;
    }
    struct progress *p = NULL;
    rc = progress_load(path, &p);
    const char *pk = pack->id, *l = a->lesson->id, *st = a->step->id;
    if (rc == 0 && p->damaged)
        cmd_error("your progress file could not be read; it was moved to %s.", p->damaged);
    if (rc == 0)
        rc = check_record_event(p, pk, l, st, EXERCISE_ATTEMPT);
    if (rc == 0 && check_verdict(a) != CHECK_ERROR)
        rc = check_record_keep_score(p, pk, l, st, a);
    if (rc == 0 && pass && (rc = check_record_event(p, pk, l, st, EXERCISE_PASS)) == 0)
        rc = progress_mark_done(p, pk, l, st);
    if (rc == 0)
        rc = progress_set_version(p, pk, pack->version);
    if (rc == 0)
        rc = progress_save(p);
    if (rc < 0)
        cmd_error("this check is not recorded in your progress (%s): %s.", path, strerror(-rc));
    progress_free(p);
    progress_unlock(lock);
}

static int cmd_check_exec(int argc, char **argv)
{
    const char *spec = NULL, *pack_dir = NULL, *dir = NULL, *junit = NULL;
    bool json = false, solutions = false, audit = false;
    double seconds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool val = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            check_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--audit")) {
            audit = true;
        } else if (!strcmp(a, "--solutions")) {
            solutions = true;
        } else if (!strcmp(a, "--pack") && val) {
            pack_dir = argv[++i];
        } else if (!strcmp(a, "--junit") && val) {
            junit = argv[++i];
        } else if (!strcmp(a, "--dir") && val) {
            dir = argv[++i];
        } else if (!strcmp(a, "--seconds") && val) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds > 0) || seconds > 3600) {
                cmd_error("--seconds takes a number of seconds above 0, not '%s'.", argv[i]);
                return 2;
            }
        } else if (a[0] != '-' && !spec) {
            spec = a;
        } else {
            cmd_error("check takes LESSON/STEP, --pack DIR, --dir DIR, --seconds N, --json, "
                      "--junit FILE, --audit and --solutions; '%s' is none of them (or lacks its "
                      "value).",
                      a);
            return 2;
        }
    }
    bool starts = !spec && !solutions && pack_dir; /* iolab check --pack DIR */
    if (junit && starts) {
        cmd_error("--junit reports an exercise's checks (LESSON/STEP) or the solutions "
                  "(--solutions); the starts of run steps have none.");
        return 2;
    }
    if (!spec && !solutions && !starts) {
        cmd_error("check needs an exercise (`iolab check LESSON/STEP`), --solutions, or a pack "
                  "whose run steps to start (`iolab check --pack DIR`).");
        return 2;
    }
    struct lesson_pack *pack = cmd_load_pack_for(pack_dir, spec);
    if (!pack)
        return 2;
    signal(SIGPIPE, SIG_IGN);
    int status;
    if (starts) {
        status = check_starts(pack, json);
        lesson_pack_free(pack);
        return status;
    }
    if (solutions) {
        status = check_solutions(pack, json, seconds, junit);
        lesson_pack_free(pack);
        return status;
    }
    const struct lesson *l = NULL;
    const struct lesson_step *st = NULL;
    char why[256];
    const struct lesson_exercise *ex = NULL;
    if (lesson_resolve(pack, spec, &l, &st, why, sizeof why) < 0 ||
        !(ex = lesson_step_exercise(st))) {
        cmd_error("%s",
                  l && st ? "that step is not an exercise; `iolab list` shows the steps." : why);
        lesson_pack_free(pack);
        return 2;
    }
    /* A graded run (CI's --junit) is audited: its call counts are the kernel's. */
    struct attempt a = {.lesson = l, .step = st, .ex = ex, .audit = audit || junit};
    a.seconds = seconds > 0 ? seconds : ex->sc->seconds > 0 ? ex->sc->seconds : 3;
    check_paths(&a);
    if (dir) {
        if (!realpath(dir, a.dir)) {
            cmd_error("cannot open %s: %s.", dir, strerror(errno));
            lesson_pack_free(pack);
            return 2;
        }
    } else if (exercise_workspace(pack->id, l->id, st->id, a.dir, sizeof a.dir) < 0 ||
               exercise_prepare(ex, a.dir, why, sizeof why) < 0) {
        cmd_error("cannot prepare your workspace: %s.", why);
        lesson_pack_free(pack);
        return 2;
    }
    bool starter = check_is_starter(&a);
    check_attempt(&a);
    if (a.stopped) { /* a signal: nothing judged, nothing recorded, nothing printed */
        status = a.stopped;
        check_attempt_free(&a);
        lesson_pack_free(pack);
        return status;
    }
    check_record(pack, &a, starter);
    if (json) {
        struct json_out j;
        json_init(&j, stdout);
        check_print_json(&a, &j);
        fputc('\n', stdout);
    } else {
        check_print_text(&a);
    }
    status = (int)check_verdict(&a);
    if (junit && junit_single(junit, &a) < 0)
        status = 2;
    check_attempt_free(&a);
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .usage = "LESSON/STEP [--dir DIR] [--json] [--junit FILE] | --pack DIR [--solutions]",
    .summary = "build and check an exercise headless, as the TUI does",
    .exec = cmd_check_exec,
};
