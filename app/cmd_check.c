/*
 * iolab check LESSON/STEP [--pack DIR] [--dir DIR] [--seconds N] [--json]
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
#include "grade.h"
#include "human.h"
#include "json.h"
#include "lesson/lesson.h"
#include "lesson/sweep.h"
#include "paths.h"
#include "termsafe.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_LOG_SHOWN 4000 /* bytes of compiler output printed in the text output */
#define CHECK_TAIL      8    /* last lines of the learner's program kept for the report */

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
    struct build *build;
    struct build_result ref, mine; /* logs copied out below */
    char *mine_log;
    bool ref_ok, mine_ok;
    struct exercise_run run;
    bool run_ready;
    struct grader grader;
    bool grader_ready;
    struct engine *engine;
    uv_timer_t timer;
    bool timer_on;
    char error[1024]; /* nothing could be judged: why */
    char tier[16];    /* the sandbox tier the scenario ran in; "": it did not start */
    bool done;
    uint64_t t0;            /* uv_hrtime() when the attempt started */
    double build_verdict_s; /* from t0 to the learner's build verdict */
    double decided_s;       /* from t0 to every check decided; 0: not (yet) */
    bool dying;             /* decided, waiting for a program that is writing a sanitizer report */
    /* The learner's program's last lines of output, oldest first from tail_next: its own words
       often say what a check cannot ("copy differs at byte 4096"). */
    char tail[CHECK_TAIL][256];
    size_t ntail, tail_next;
};

static double check_since(const struct attempt *a)
{
    return (double)(uv_hrtime() - a->t0) / 1e9;
}

static int check_build(struct attempt *a, const char *src, build_done_fn done)
{
    const char *cmd[BUILD_MAX_ARGS];
    struct build_spec spec = {
        .command = exercise_command(a->ex, cmd, BUILD_MAX_ARGS),
        .src_dir = src,
        .files = (const char *const *)a->ex->files,
        .nfiles = a->ex->nfiles,
        .sources = (const char *const *)a->ex->sources,
        .nsources = a->ex->nsources,
        .cache_dir = a->cache,
        .sandbox = a->sandbox,
    };
    if (!spec.command)
        return -E2BIG; /* a build command of more than BUILD_MAX_ARGS words */
    return build_start(a->loop, &spec, done, a, &a->build);
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

#define CHECK_DYING_GRACE_S 5 /* for a program that is writing a sanitizer's report to exit */

static void check_dying_late(uv_timer_t *t)
{
    check_stop(t->data);
}

/* Every check is decided: the run has shown what it had to; stop it now rather than at the end
   of its time. A program that is in the middle of a sanitizer's report is dying already (the
   report ends in abort()): it is let finish, so its signal and its whole report are told, which
   the verdict of the client that lost its server usually precedes. */
static void check_maybe_decided(struct attempt *a)
{
    if (a->decided_s > 0) {
        if (a->dying && !grade_reporting(&a->grader)) {
            a->dying = false;
            check_stop(a);
        }
        return;
    }
    if (!grade_decided(&a->grader))
        return;
    a->decided_s = check_since(a);
    grade_finish(&a->grader);
    if (grade_reporting(&a->grader) && a->engine) {
        a->dying = true;
        uv_timer_start(&a->timer, check_dying_late, CHECK_DYING_GRACE_S * 1000, 0);
        return;
    }
    check_stop(a);
}

static void check_on_snapshot(void *data, const struct snapshot *snap)
{
    struct attempt *a = data;
    grade_update(&a->grader, snap);
    check_maybe_decided(a);
}

static void check_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                          size_t len)
{
    struct attempt *a = data;
    (void)stream;
    grade_line(&a->grader, prog, line);
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
    /* A program stopped by the jail's own limit says nothing about the learner's code: the
       attempt is not judged, and the sentence names the limit. */
    char limit[16];
    if (!expected && !a->error[0] && engine_limit(a->engine, prog, limit, sizeof limit))
        snprintf(a->error, sizeof a->error,
                 "the %s (%s) was stopped by the jail's %s limit (%s), not judged: this run says "
                 "nothing about your code",
                 a->ex->sc->programs[prog].name,
                 prog == a->ex->learner ? "your program" : "one of the exercise's own programs",
                 !strcmp(limit, "pids") ? "process" : "memory",
                 !strcmp(limit, "pids") ? "its cgroup's pids.max" : "its cgroup's memory cap");
    grade_exit(&a->grader, prog, status, expected);
    check_maybe_decided(a);
}

static void check_on_state(void *data, enum engine_state state)
{
    struct attempt *a = data;
    if (state == ENGINE_RUNNING && engine_jail(a->engine)) {
        enum iolab_tier t = jail_tier(engine_jail(a->engine));
        snprintf(a->tier, sizeof a->tier, "%s", jail_tier_name(t));
        grade_set_tier(&a->grader, jail_tier_name(t));
    }
    if (state == ENGINE_FAILED && !a->error[0])
        snprintf(a->error, sizeof a->error, "the scenario could not start: %s",
                 engine_error(a->engine));
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED) {
        if (a->grader_ready && !a->grader.over) {
            grade_finish(&a->grader); /* the time is up: what is undecided is decided now */
            a->decided_s = check_since(a);
        }
        const struct lesson_program *lp = &a->ex->sc->programs[a->ex->learner];
        if (a->grader_ready && !a->grader.measured && !a->error[0] && lp->ready)
            snprintf(a->error, sizeof a->error,
                     "no check could be judged: your %s did not print a line containing \"%s\" "
                     "within %g s, so the scenario never started; it must bind(), listen() and "
                     "then print that line",
                     lp->name, lp->ready, a->seconds);
        engine_free(a->engine);
        a->engine = NULL;
        check_finish(a);
    }
}

/* Seconds the learner's program has run in its mode (its start-up excluded). */
static double check_mode_seconds(const struct attempt *a)
{
    struct check_facts f;
    session_facts(&a->grader.session, &f);
    for (size_t i = 0; i < f.nmodes; i++)
        if (f.modes[i].mode == EXERCISE_MODE_YOURS)
            return f.modes[i].seconds;
    return 0;
}

#define CHECK_STARTUP_GRACE_S 10 /* a loaded machine's start-up, beyond the run's own time */

static void check_time_up(uv_timer_t *t)
{
    struct attempt *a = t->data;
    /* The run's time counts from the program's start, not from the sandbox's: on a loaded
       machine start-up may take a while, and the checks' time limits must get their time. */
    double ran = check_mode_seconds(a), left = a->seconds - ran;
    if (a->engine && a->grader_ready && a->grader.measured && left > 0.05 &&
        check_since(a) < a->seconds + CHECK_STARTUP_GRACE_S) {
        uv_timer_start(&a->timer, check_time_up, (uint64_t)(left * 1000) + 200, 0);
        return;
    }
    check_stop(a);
}

static void check_start_run(struct attempt *a)
{
    if (exercise_run_init(&a->run, a->ex, a->step, a->mine.exe, a->ref.exe) < 0 ||
        grade_init(&a->grader, &a->run.sc) < 0) {
        snprintf(a->error, sizeof a->error, "out of memory");
        check_finish(a);
        return;
    }
    a->run_ready = a->grader_ready = true;
    /* IOLAB_TIER_AUTO: the sandbox then honours IOLAB_SANDBOX_TIER, as for `iolab run`. */
    struct engine_options eo = {
        .mode = "yours", .seconds = a->seconds, .tick_hz = 10, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {.data = a,
                                  .on_snapshot = check_on_snapshot,
                                  .on_state = check_on_state,
                                  .on_line = check_on_line,
                                  .on_exit = check_on_exit};
    int rc = engine_create(&a->engine, a->loop, &a->run.step, &eo, &cb);
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

static void check_mine_built(void *data, const struct build_result *r)
{
    struct attempt *a = data;
    a->build = NULL;
    a->mine = *r;
    a->mine_log = strdup(r->log ? r->log : "");
    a->mine.log = NULL;
    a->mine_ok = r->status == BUILD_OK;
    a->build_verdict_s = check_since(a);
    if (!a->mine_ok) {
        snprintf(a->error, sizeof a->error, "%s",
                 r->status == BUILD_FAILED ? "your program does not build: the compiler's "
                                             "messages are above"
                                           : r->message);
        check_finish(a);
        return;
    }
    check_start_run(a);
}

static void check_ref_built(void *data, const struct build_result *r)
{
    struct attempt *a = data;
    a->build = NULL;
    a->ref = *r;
    a->ref.log = NULL;
    a->ref_ok = r->status == BUILD_OK;
    if (!a->ref_ok) {
        snprintf(a->error, sizeof a->error,
                 "the exercise's reference solution in %s does not build (%s); tell the pack's "
                 "author",
                 a->ex->dir, r->status == BUILD_FAILED ? r->log : r->message);
        check_finish(a);
        return;
    }
    if (check_build(a, a->dir, check_mine_built) < 0) {
        snprintf(a->error, sizeof a->error, "cannot start the build");
        check_finish(a);
    }
}

/* Builds and runs one exercise on its own loop, to the end. */
static void check_attempt(struct attempt *a)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    a->loop = &loop;
    a->t0 = uv_hrtime();
    uv_timer_init(&loop, &a->timer);
    a->timer.data = a;
    a->timer_on = true;
    if (check_build(a, a->ex->dir, check_ref_built) < 0) {
        snprintf(a->error, sizeof a->error, "cannot start the build");
        a->done = true;
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&a->timer, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&loop) != 0)
        fprintf(stderr, "iolab: internal: handles left open after the check\n");
}

static void check_attempt_free(struct attempt *a)
{
    if (a->grader_ready)
        grade_free(&a->grader);
    if (a->run_ready)
        exercise_run_free(&a->run);
    free(a->mine_log);
}

/* "pass", "fail" or "error" for an attempt. */
static const char *check_status(const struct attempt *a)
{
    if (a->error[0] || !a->grader_ready)
        return "error";
    return grade_done(&a->grader) ? "pass" : "fail";
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
    if (a->grader_ready) {
        const struct lesson_scenario *sc = &a->run.sc;
        termsafe_fprintf(stdout, "checks (%zu of %zu hold):\n", a->grader.nholding, sc->nchecks);
        for (size_t i = 0; i < sc->nchecks; i++) {
            char msg[768];
            grade_message(&a->grader, i, msg, sizeof msg);
            termsafe_fprintf(stdout, "  [%s] %s: %s\n", a->grader.results[i].holds ? "ok" : "--",
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
    if (a->grader_ready && grade_report(&a->grader))
        termsafe_fprintf(stdout, "the sanitizer's report:\n%s", grade_report(&a->grader));
    if (a->error[0])
        termsafe_fprintf(stdout, "error: %s\n", a->error);
    termsafe_fprintf(stdout, "%s\n", check_status(a));
}

static void check_print_json(const struct attempt *a, struct json_out *j)
{
    json_object(j, NULL);
    json_string(j, "lesson", a->lesson->id);
    json_string(j, "step", a->step->id);
    json_string(j, "status", check_status(a));
    json_string(j, "dir", a->dir);
    json_string(j, "tier", a->tier[0] ? a->tier : NULL);
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
    if (a->grader_ready) {
        grade_json(&a->grader, j, "checks");
        grade_expect_json(&a->grader, j, "expected");
        json_string(j, "report", grade_report(&a->grader));
        json_array(j, "output"); /* the learner's program's last lines */
        for (size_t i = 0; i < a->ntail; i++)
            json_string(j, NULL, a->tail[(a->tail_next + CHECK_TAIL - a->ntail + i) % CHECK_TAIL]);
        json_end(j);
    } else {
        json_array(j, "checks");
        json_end(j);
    }
    json_string(j, "error", a->error[0] ? a->error : NULL);
    /* Seconds from the start of the check: to the build's verdict, to every check decided. */
    json_object(j, "timing");
    json_double(j, "build_verdict_s", a->build_verdict_s, 3);
    json_double(j, "checks_decided_s", a->decided_s, 3);
    json_end(j);
    json_end(j);
}

static void check_usage(FILE *out)
{
    fputs("usage: iolab check LESSON/STEP [--pack DIR] [--dir DIR] [--seconds N] [--json]\n"
          "       iolab check --pack DIR --solutions [--json]\n"
          "       iolab check --pack DIR [--json]\n\n"
          "Builds an exercise's program from your workspace (or DIR) in the sandbox, runs it\n"
          "against the reference programs and judges every check, as the TUI does. Exit 0: every\n"
          "check holds; 1: one does not; 2: nothing could be judged (a build error).\n"
          "--solutions (for authors): every solution passes, every starter builds and fails.\n"
          "--pack DIR alone (for authors): every mode of every run step starts briefly; a\n"
          "program that does not start or never prints its ready text is one line each, exit 1.\n",
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

/* The author's check of every exercise: solutions pass, starters build and fail. */
static int check_solutions(const struct lesson_pack *pack, bool json, double seconds)
{
    int status = 0;
    size_t nex = 0;
    struct json_out j;
    json_init(&j, stdout);
    if (json) {
        json_object(&j, NULL);
        json_array(&j, "exercises");
    }
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
            struct attempt sol = {.lesson = l, .step = st, .ex = ex, .seconds = secs};
            check_paths(&sol);
            snprintf(sol.dir, sizeof sol.dir, "%s", ex->dir);
            check_attempt(&sol);
            /* The starter, generated into a fresh directory: it must build and fail. */
            struct attempt start = {.lesson = l, .step = st, .ex = ex, .seconds = secs};
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
            bool sol_ok = !strcmp(check_status(&sol), "pass");
            bool start_ok = !strcmp(check_status(&start), "fail");
            if (!sol_ok || !start_ok)
                status = 1;
            if (json) {
                json_object(&j, NULL);
                json_string(&j, "step", st->id);
                json_string(&j, "lesson", l->id);
                json_string(&j, "solution", check_status(&sol));
                json_string(&j, "starter", check_status(&start));
                json_bool(&j, "ok", sol_ok && start_ok);
                json_end(&j);
            } else {
                termsafe_fprintf(stdout, "%s/%s: solution %s%s%s; starter %s%s%s\n", l->id, st->id,
                                 check_status(&sol), sol_ok ? "" : " (must pass: ",
                                 sol_ok ? "" : (sol.error[0] ? sol.error : "a check fails)"),
                                 check_status(&start), start_ok ? "" : " (must build and fail: ",
                                 start_ok ? ""
                                          : (start.error[0] ? start.error : "every check holds)"));
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
    uv_timer_t settle, guard;
    const struct lesson_scenario *sc;
    char problem[768]; /* "" when it started */
    bool running;
};

static void start_stop(struct start_try *t)
{
    uv_timer_stop(&t->settle);
    uv_timer_stop(&t->guard);
    if (t->engine &&
        (engine_state(t->engine) == ENGINE_RUNNING || engine_state(t->engine) == ENGINE_STARTING))
        engine_stop(t->engine);
}

static void start_settled(uv_timer_t *h)
{
    start_stop(h->data);
}

static void start_guard(uv_timer_t *h)
{
    struct start_try *t = h->data;
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
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED) {
        uv_timer_stop(&t->settle);
        uv_timer_stop(&t->guard);
    }
}

/* Starts a step in one mode (NULL: its default) for a moment; problem says what went wrong. */
static void start_one(const struct lesson_step *st, const char *mode, char *problem, size_t len)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct start_try t = {.sc = lesson_step_scenario(st)};
    uv_timer_init(&loop, &t.settle);
    uv_timer_init(&loop, &t.guard);
    t.settle.data = t.guard.data = &t;
    struct engine_options eo = {.mode = mode, .seconds = 2, .tick_hz = 5, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {.data = &t, .on_exit = start_on_exit, .on_state = start_on_state};
    int rc = engine_create(&t.engine, &loop, st, &eo, &cb);
    if (rc == 0 && (rc = engine_start(t.engine)) < 0)
        snprintf(t.problem, sizeof t.problem, "%s", engine_error(t.engine));
    else if (rc < 0)
        snprintf(t.problem, sizeof t.problem, "cannot set the scenario up: %s", strerror(-rc));
    if (rc == 0) {
        uv_timer_start(&t.guard, start_guard, START_GUARD_MS, 0);
        uv_run(&loop, UV_RUN_DEFAULT);
    }
    if (t.engine)
        engine_free(t.engine);
    uv_close((uv_handle_t *)&t.settle, NULL);
    uv_close((uv_handle_t *)&t.guard, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&loop) != 0)
        fprintf(stderr, "iolab: internal: handles left open after a start\n");
    /* One sentence: the engine's own ends with a full stop, the caller adds it. */
    size_t pl = strlen(t.problem);
    while (pl && (t.problem[pl - 1] == '.' || t.problem[pl - 1] == ' '))
        t.problem[--pl] = '\0';
    snprintf(problem, len, "%s", t.problem);
}

/*
 * The author's check of a pack's run steps: each mode of each run step starts (every server
 * prints its ready text, nothing dies at once). Exercises are --solutions' business. One line
 * per start; 0 when all started, 1 otherwise.
 */
static int check_starts(const struct lesson_pack *pack, bool json)
{
    size_t n = 0, bad = 0;
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
            const struct lesson_step *run = st;
            bool derived = sw && sweep_derive(st, sw->default_value, &plain) == 0;
            if (derived)
                run = &plain.step;
            for (size_t m = 0; m < (sc->nmodes ? sc->nmodes : 1); m++) {
                const char *mode = sc->nmodes ? sc->modes[m].id : NULL;
                char problem[768];
                start_one(run, mode, problem, sizeof problem);
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

static int cmd_check_exec(int argc, char **argv)
{
    const char *spec = NULL, *pack_dir = NULL, *dir = NULL;
    bool json = false, solutions = false;
    double seconds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool val = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            check_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--solutions")) {
            solutions = true;
        } else if (!strcmp(a, "--pack") && val) {
            pack_dir = argv[++i];
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
            cmd_error("check takes LESSON/STEP, --pack DIR, --dir DIR, --seconds N, --json and "
                      "--solutions; '%s' is none of them (or lacks its value).",
                      a);
            return 2;
        }
    }
    bool starts = !spec && !solutions && pack_dir; /* iolab check --pack DIR */
    if (!spec && !solutions && !starts) {
        cmd_error("check needs an exercise (`iolab check LESSON/STEP`), --solutions, or a pack "
                  "whose run steps to start (`iolab check --pack DIR`).");
        return 2;
    }
    struct lesson_pack *pack = cmd_load_pack(pack_dir);
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
        status = check_solutions(pack, json, seconds);
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
    struct attempt a = {.lesson = l, .step = st, .ex = ex};
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
    check_attempt(&a);
    if (json) {
        struct json_out j;
        json_init(&j, stdout);
        check_print_json(&a, &j);
        fputc('\n', stdout);
    } else {
        check_print_text(&a);
    }
    const char *s = check_status(&a);
    status = !strcmp(s, "pass") ? 0 : !strcmp(s, "fail") ? 1 : 2;
    check_attempt_free(&a);
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .usage = "LESSON/STEP [--dir DIR] [--json] | --pack DIR [--solutions]",
    .summary = "build and check an exercise headless, as the TUI does",
    .exec = cmd_check_exec,
};
