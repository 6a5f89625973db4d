/*
 * The attempt runner of `iolab check` (attempt.h). Model: one headless loop per attempt; the
 * judge builder's callback starts the run once the learner's build is known; the engine's
 * callbacks feed the judge and, once every check is decided, stop the run (a program writing a
 * sanitizer's report is let finish first); the run's timer counts from the learner's program's
 * start, so a slow start-up does not eat the checks' time. The attempt ends (a->done) on the
 * first of: an error, the run's end (after the audit run with --audit), a signal.
 */
#include "attempt.h"
#include "engine/engine.h"
#include "engine/jail.h"
#include "headless.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double attempt_since(const struct attempt *a)
{
    return (double)(uv_hrtime() - a->t0) / 1e9;
}

static void attempt_finish(struct attempt *a)
{
    if (a->timer_on) {
        uv_timer_stop(&a->timer);
    }
    a->done = true;
}

static void attempt_stop(struct attempt *a)
{
    if (a->engine &&
        (engine_state(a->engine) == ENGINE_RUNNING || engine_state(a->engine) == ENGINE_STARTING))
        engine_stop(a->engine);
}

/* Why the judge could judge nothing (a limit, a scenario that did not start), as the attempt's
   error, unless it has one already. */
static void attempt_take_why(struct attempt *a)
{
    if (a->judge_ready && a->judge.why[0] && !a->error[0])
        snprintf(a->error, sizeof a->error, "%s", a->judge.why);
}

#define ATTEMPT_DYING_GRACE_S 5 /* for a program that is writing a sanitizer's report to exit */

static void attempt_dying_late(uv_timer_t *t)
{
    attempt_stop(t->data);
}

/* Notes when each check got its verdict, for the JUnit report's per-check time. */
static void attempt_note_decided(struct attempt *a, bool all)
{
    if (!a->judge_ready || !a->check_s)
        return;
    double t = attempt_since(a) - a->build_verdict_s;
    for (size_t i = 0; i < a->run.sc.nchecks; i++)
        if (a->check_s[i] == 0 && (all || a->grader.results[i].decided))
            a->check_s[i] = t > 0 ? t : 1e-6;
}

/* Every check is decided: the run has shown what it had to; stop it now rather than at the end
   of its time. A program that is in the middle of a sanitizer's report is dying already (the
   report ends in abort()): it is let finish, so its signal and its whole report are told, which
   the verdict of the client that lost its server usually precedes. */
static void attempt_maybe_decided(struct attempt *a)
{
    attempt_take_why(a);
    attempt_note_decided(a, false);
    struct grader *g = &a->grader;
    if (a->decided_s > 0) {
        if (a->dying && !grade_sanitizer_reporting(g)) {
            a->dying = false;
            attempt_stop(a);
        }
        return;
    }
    if (!grade_decided(g))
        return;
    a->decided_s = attempt_since(a);
    grade_finish(g);
    if (grade_sanitizer_reporting(g) && a->engine) {
        a->dying = true;
        uv_timer_start(&a->timer, attempt_dying_late, ATTEMPT_DYING_GRACE_S * 1000, 0);
        return;
    }
    attempt_stop(a);
}

static void attempt_on_snapshot(void *data, const struct snapshot *snap)
{
    struct attempt *a = data;
    judge_snapshot(&a->judge, a->engine, snap);
    attempt_maybe_decided(a);
}

static void attempt_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                            size_t len)
{
    struct attempt *a = data;
    (void)stream;
    judge_line(&a->judge, prog, line);
    if (prog == a->ex->learner) {
        snprintf(a->tail[a->tail_next], sizeof a->tail[0], "%.*s", (int)len, line);
        a->tail_next = (a->tail_next + 1) % ATTEMPT_TAIL;
        a->ntail += a->ntail < ATTEMPT_TAIL;
    }
    attempt_maybe_decided(a);
}

static void attempt_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct attempt *a = data;
    judge_exit(&a->judge, a->engine, prog, status, expected);
    attempt_maybe_decided(a);
}

static void attempt_audit_done(void *data)
{
    attempt_finish(data);
}

/* The ordinary run is over: with --audit, the second run follows (exercise/audit.h) when the
   first said something about the learner's code; the attempt ends after it. */
static void attempt_run_over(struct attempt *a)
{
    if (a->audit && !a->stopped && !a->error[0] && a->judge_ready && !a->judge.why[0]) {
        uv_timer_stop(&a->timer);
        if (judge_audit_start(&a->au, a->loop, &a->run.sc, a->seconds, attempt_audit_done, a) ==
            0) {
            a->audit_started = true;
            return;
        }
    }
    attempt_finish(a);
}

static void attempt_on_state(void *data, enum engine_state state)
{
    struct attempt *a = data;
    bool over = a->grader.over;
    judge_state(&a->judge, a->engine, state);
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED) {
        if (!over)
            a->decided_s = attempt_since(a); /* the time is up: decided as it stands */
        attempt_note_decided(a, true);
        attempt_take_why(a);
        engine_free(a->engine);
        a->engine = NULL;
        attempt_run_over(a);
    }
}

/* Seconds the learner's program has run in its mode (its start-up excluded). */
static double attempt_mode_seconds(const struct attempt *a)
{
    struct check_facts f;
    session_facts(&a->grader.session, &f);
    for (size_t i = 0; i < f.nmodes; i++)
        if (f.modes[i].mode == EXERCISE_MODE_YOURS)
            return f.modes[i].span.seconds;
    return 0;
}

#define ATTEMPT_STARTUP_GRACE_S 10 /* a loaded machine's start-up, beyond the run's own time */

static void attempt_time_up(uv_timer_t *t)
{
    struct attempt *a = t->data;
    /* The run's time counts from the program's start, not from the sandbox's: on a loaded
       machine start-up may take a while, and the checks' time limits must get their time. */
    double ran = attempt_mode_seconds(a), left = a->seconds - ran;
    if (a->engine && a->judge_ready && a->grader.measured && left > 0.05 &&
        attempt_since(a) < a->seconds + ATTEMPT_STARTUP_GRACE_S) {
        uv_timer_start(&a->timer, attempt_time_up, (uint64_t)(left * 1000) + 200, 0);
        return;
    }
    attempt_stop(a);
}

static void attempt_start_run(struct attempt *a)
{
    if (exercise_run_init(&a->run, a->ex, a->step, a->mine.exe, a->builder.ref_exe) < 0) {
        snprintf(a->error, sizeof a->error, "out of memory");
        attempt_finish(a);
        return;
    }
    a->run_ready = true;
    if (judge_init(&a->judge, &a->grader, &a->run.sc, a->seconds) < 0) {
        snprintf(a->error, sizeof a->error, "out of memory");
        attempt_finish(a);
        return;
    }
    a->judge_ready = true;
    a->check_s = calloc(a->run.sc.nchecks + 1, sizeof *a->check_s);
    /* IOLAB_TIER_AUTO: the sandbox then honours IOLAB_SANDBOX_TIER, as for `iolab run`. */
    struct engine_options eo = {
        .mode = "yours", .seconds = a->seconds, .tick_hz = 10, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {.data = a,
                                  .on_snapshot = attempt_on_snapshot,
                                  .on_state = attempt_on_state,
                                  .on_line = attempt_on_line,
                                  .on_exit = attempt_on_exit};
    int rc = engine_create(&a->engine, a->loop, &a->run.sc, &eo, &cb);
    if (rc == 0)
        rc = engine_start(a->engine);
    if (rc < 0) {
        snprintf(a->error, sizeof a->error, "the scenario could not start: %s",
                 a->engine ? engine_error(a->engine) : strerror(-rc));
        if (a->engine)
            engine_free(a->engine);
        a->engine = NULL;
        attempt_finish(a);
        return;
    }
    /* The time counts from now; the scenario's start-up is part of what the learner waits. */
    uv_timer_start(&a->timer, attempt_time_up, (uint64_t)(a->seconds * 1000) + 500, 0);
}

/* The reference did not build (the attempt ends), or the learner's files were built. */
static void attempt_built(void *data, enum judge_built which, const struct build_result *r)
{
    struct attempt *a = data;
    if (which == JUDGE_REFERENCE) {
        snprintf(a->error, sizeof a->error,
                 "the exercise's reference solution in %s does not build (%s); tell the pack's "
                 "author",
                 a->ex->dir, r->status == BUILD_FAILED ? r->log : r->message);
        attempt_finish(a);
        return;
    }
    a->mine = *r;
    a->mine_log = strdup(r->log ? r->log : "");
    a->mine.log = NULL;
    a->mine_ok = r->status == BUILD_OK;
    a->mine_built = true;
    a->build_verdict_s = attempt_since(a);
    if (!a->mine_ok) {
        /* The text output prints the compiler's messages above this sentence; --solutions
           prints them below it, and speaks to the pack's author. */
        snprintf(a->error, sizeof a->error, "%s",
                 r->status != BUILD_FAILED ? r->message
                 : a->for_author           ? "it does not build (the compiler's messages follow)"
                                           : "your program does not build (the compiler's "
                                             "messages are above)");
        attempt_finish(a);
        return;
    }
    if (a->stopped) { /* a signal came as the learner's build ended */
        attempt_finish(a);
        return;
    }
    attempt_start_run(a);
}

/* SIGINT, SIGTERM or SIGHUP: the build is cancelled (the sandbox removes its directory) or the
   scenario stopped; the attempt ends with nothing judged. */
static void attempt_on_signal(void *data, int sig)
{
    struct attempt *a = data;
    if (!a->stopped)
        a->stopped = 128 + sig;
    if (a->builder.build) {
        judge_build_cancel(&a->builder); /* its callback never runs */
        attempt_finish(a);
    }
    attempt_stop(a);
    if (a->audit_started)
        judge_audit_stop(&a->au);
}

static void attempt_end(void *data)
{
    struct attempt *a = data;
    uv_close((uv_handle_t *)&a->timer, NULL);
}

/* Builds and runs one exercise on the headless driver, to the end; a->stopped says whether a
   signal stopped it. */
void attempt_run(struct attempt *a)
{
    struct headless h;
    struct headless_options ho = {.data = a,
                                  .on_signal = attempt_on_signal,
                                  .on_end = attempt_end,
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
    judge_builder_init(&a->builder, &h.loop, a->ex, a->cache, a->sandbox, attempt_built, a);
    int rc = judge_build(&a->builder, a->dir);
    if (rc == -ESTALE) /* a workspace of an older starter: told so, never judged */
        snprintf(a->error, sizeof a->error, "%s", a->builder.why);
    else if (rc < 0)
        snprintf(a->error, sizeof a->error, "cannot start the build: %s", strerror(-rc));
    a->done = rc < 0;
    headless_run(&h);
    a->loop = NULL;
}

void attempt_free(struct attempt *a)
{
    if (a->judge_ready)
        judge_free(&a->judge);
    if (a->run_ready)
        exercise_run_free(&a->run);
    free(a->mine_log);
    free(a->check_s);
    judge_audit_free(&a->au);
}

enum attempt_verdict attempt_verdict(const struct attempt *a)
{
    if (a->error[0] || !a->judge_ready)
        return ATTEMPT_ERROR;
    /* A pass needs both runs: the ordinary one and, with --audit, the kernel's counts. */
    return grade_done(&a->grader) && !(a->audit_started && a->au.failed) ? ATTEMPT_PASS
                                                                         : ATTEMPT_FAIL;
}

/* "pass", "fail" or "error", as the text and the JSON name a verdict. */
const char *attempt_verdict_name(enum attempt_verdict v)
{
    return v == ATTEMPT_PASS ? "pass" : v == ATTEMPT_FAIL ? "fail" : "error";
}

/* The name of an attempt's verdict. */
const char *attempt_status(const struct attempt *a)
{
    return attempt_verdict_name(attempt_verdict(a));
}

/* The score: the points of the checks decided to hold, of the points of every check (a check
   weighs 1 unless its "points" say otherwise). Nothing holds when nothing could be judged. */
void attempt_score(const struct attempt *a, double *got, double *max)
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

/* Common set-up of an attempt: paths of the cache and the sandbox. */
int attempt_paths(struct attempt *a)
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

/* The learner's files in a->dir are the exercise's starter as generated, byte for byte (the
   build's key hashes the command and every file's name and bytes): building them is no attempt
   of the learner's. */
bool attempt_is_starter(const struct attempt *a)
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

const char *attempt_tail_line(const struct attempt *a, size_t i)
{
    return a->tail[(a->tail_next + ATTEMPT_TAIL - a->ntail + i) % ATTEMPT_TAIL];
}
