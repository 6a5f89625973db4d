/*
 * judge: the build-and-judge routine the TUI and `iolab check` share (judge.h).
 */
#include "judge.h"

#include "engine/jail.h"
#include "exercise.h"
#include "lesson/record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- builds ---- */

void judge_builder_init(struct judge_builder *b, uv_loop_t *loop, const struct lesson_exercise *ex,
                        const char *cache, const char *sandbox, judge_built_fn done, void *data)
{
    *b = (struct judge_builder){
        .loop = loop, .ex = ex, .cache = cache, .sandbox = sandbox, .done = done, .data = data};
}

const struct build_spec *judge_spec(const struct judge_builder *b, const char *src,
                                    struct build_spec *spec, const char **cmd)
{
    *spec = (struct build_spec){
        .command = exercise_command(b->ex, cmd, BUILD_MAX_ARGS),
        .src_dir = src,
        .files = (const char *const *)b->ex->files,
        .nfiles = b->ex->nfiles,
        .sources = (const char *const *)b->ex->sources,
        .nsources = b->ex->nsources,
        .cache_dir = b->cache,
        .sandbox = b->sandbox,
    };
    return spec->command ? spec : NULL;
}

/* Starts the build of the exercise's files in src with the exercise's command. */
static int judge_start(struct judge_builder *b, const char *src, build_done_fn done)
{
    const char *cmd[BUILD_MAX_ARGS];
    struct build_spec spec;
    if (!judge_spec(b, src, &spec, cmd))
        return -E2BIG; /* a build command of more than BUILD_MAX_ARGS words */
    return build_start(b->loop, &spec, done, b, &b->build);
}

static void judge_mine_built(void *data, const struct build_result *r)
{
    struct judge_builder *b = data;
    b->build = NULL;
    b->done(b->data, JUDGE_YOURS, r);
}

/* A build that could not start, told as a build that could not run. */
static void judge_not_started(struct judge_builder *b, int rc)
{
    struct build_result r = {.status = BUILD_ERROR, .log = ""};
    snprintf(r.message, sizeof r.message, "the build could not start: %s",
             rc == -E2BIG ? "the exercise's build command has too many words" : strerror(-rc));
    b->done(b->data, JUDGE_YOURS, &r);
}

static void judge_ref_built(void *data, const struct build_result *r)
{
    struct judge_builder *b = data;
    b->build = NULL;
    if (r->status != BUILD_OK) {
        b->done(b->data, JUDGE_REFERENCE, r);
        return;
    }
    snprintf(b->ref_exe, sizeof b->ref_exe, "%s", r->exe);
    int rc = judge_start(b, b->mine, judge_mine_built);
    if (rc < 0)
        judge_not_started(b, rc);
}

int judge_build(struct judge_builder *b, const char *dir)
{
    judge_build_cancel(b);
    if (snprintf(b->mine, sizeof b->mine, "%s", dir) >= (int)sizeof b->mine)
        return -ENAMETOOLONG;
    if (exercise_workspace_stale(b->ex, dir, b->why, sizeof b->why) == 1)
        return -ESTALE;
    return b->ref_exe[0] ? judge_start(b, b->mine, judge_mine_built)
                         : judge_start(b, b->ex->dir, judge_ref_built);
}

void judge_build_cancel(struct judge_builder *b)
{
    if (b->build)
        build_cancel(b->build);
    b->build = NULL;
}

/* ---- judging a run ---- */

int judge_init(struct judge *j, struct grader *g, const struct lesson_scenario *sc, double seconds)
{
    *j = (struct judge){.grader = g, .sc = sc, .seconds = seconds};
    return grade_init(g, sc);
}

void judge_free(struct judge *j)
{
    if (j->grader)
        grade_free(j->grader);
    j->grader = NULL;
}

int judge_new_run(struct judge *j)
{
    /* A verdict made final by a failure, a limit or the end of a run is judged afresh by the
       next run (r after a fix, a mode switch); a pass stays. */
    if (j->grader->over && !grade_done(j->grader)) {
        grade_free(j->grader);
        if (grade_init(j->grader, j->sc) < 0)
            return -ENOMEM;
        if (j->tier[0])
            grade_set_tier(j->grader, j->tier);
    }
    grade_new_run(j->grader);
    j->why[0] = j->limit[0] = '\0';
    j->mine_said = false;
    j->zombies = 0;
    return 0;
}

void judge_line(struct judge *j, size_t prog, const char *line)
{
    grade_line(j->grader, prog, line);
}

/*
 * Names a limit of the jail that program prog reached (running: it still runs) or was stopped
 * by, when one did; NULL otherwise. The learner's program is named whatever its end: one that
 * reached the process limit and went on (its fork() failed with EAGAIN, unheeded) is as void a
 * run as one the limit stopped. The exercise's own programs, and every program of a plain run
 * step, only when the limit stopped them: in the jail they share, every program that lived
 * through the limit reports it. On an exercise the run is void (grade_void): no check is judged.
 */
static const char *judge_limit_named(struct judge *j, size_t prog, bool stopped, const char *limit);

static const char *judge_limit(struct judge *j, const struct engine *e, size_t prog, bool stopped)
{
    char limit[16];
    bool mine = j->sc->has_learner && prog == j->sc->learner;
    if (j->why[0] || (mine && j->mine_said) || !e || prog >= j->sc->nprograms ||
        !(mine || stopped) || !engine_limit(e, prog, limit, sizeof limit))
        return NULL;
    if (!mine && stopped && !strcmp(limit, "pids") && j->sc->has_learner &&
        engine_running(e, j->sc->learner)) {
        /* The jail's process limit is shared by every program of the step: an own program that
           could not start or fork may have been starved by the learner's, which still runs and
           holds the places. The next snapshot's thread counts say which (judge_snapshot). */
        if (!j->pids_pending) {
            j->pids_pending = true;
            j->pids_prog = prog;
        }
        return NULL;
    }
    return judge_limit_named(j, prog, stopped, limit);
}

/* judge_limit's sentence, once whose limit it is has been settled. */
static const char *judge_limit_named(struct judge *j, size_t prog, bool stopped, const char *limit)
{
    bool mine = j->sc->has_learner && prog == j->sc->learner;
    j->pids_pending = false;
    if (j->why[0] || (mine && j->mine_said))
        return NULL;
    struct engine_limit_words w = engine_limit_say(limit);
    const char *name = j->sc->programs[prog].name;
    if (mine && !strcmp(limit, "pids") && j->zombies > 0) {
        /* The learner's own bug filled the jail: the checks say which, decided now. */
        snprintf(j->limit, sizeof j->limit,
                 "the %s (your program) reached the jail's process limit with %u children it "
                 "never reaped: a zombie keeps its place among the processes until wait() takes "
                 "it",
                 name, j->zombies);
        if (!j->grader->over)
            grade_finish(j->grader);
        j->mine_said = true;
        return j->limit;
    }
    if (!j->sc->has_learner) {
        snprintf(j->limit, sizeof j->limit,
                 "%s was stopped by the jail's %s limit (%s; for all the step's programs "
                 "together)",
                 name, w.what, w.where);
        return j->limit;
    }
    j->mine_said = mine;
    /* The limit is said once; the checks put "not judged: " before it (grade_message), the run's
       error says it in its own words. */
    char said[768];
    snprintf(said, sizeof said, "the %s (%s) %s the jail's %s limit (%s)", name,
             mine ? "your program" : "one of the exercise's own programs",
             stopped ? "was stopped by" : "reached", w.what, w.where);
    snprintf(j->limit, sizeof j->limit, "%s: this run says nothing about your code", said);
    grade_void(j->grader, j->limit);
    snprintf(j->why, sizeof j->why, "%s, not judged: this run says nothing about your code", said);
    snprintf(j->limit, sizeof j->limit, "%s", j->why);
    return j->limit;
}

const char *judge_exit(struct judge *j, const struct engine *e, size_t prog, int status,
                       bool expected)
{
    const char *said = judge_limit(j, e, prog, !expected);
    grade_exit(j->grader, prog, status, expected);
    return said;
}

const char *judge_snapshot(struct judge *j, const struct engine *e, const struct snapshot *snap)
{
    grade_update(j->grader, snap);
    if (j->sc->has_learner && j->sc->learner < snap->nprogs)
        j->zombies = snap->progs[j->sc->learner].f.zombies;
    if (j->pids_pending && j->sc->has_learner && j->sc->learner < snap->nprogs &&
        j->pids_prog < snap->nprogs) {
        /* Whose is the process limit an own program met: the one that holds the most places. */
        size_t learner = j->sc->learner;
        if (snap->progs[learner].f.nthreads >= snap->progs[j->pids_prog].f.nthreads && e &&
            engine_running(e, learner))
            return judge_limit_named(j, learner, false, "pids");
        return judge_limit_named(j, j->pids_prog, true, "pids");
    }
    /* A limit the learner's program reached while it runs is named at once, not at its exit
       (which judge_exit names, with how it ended). */
    if (!j->sc->has_learner || !e || !engine_running(e, j->sc->learner))
        return NULL;
    return judge_limit(j, e, j->sc->learner, false);
}

void judge_state(struct judge *j, const struct engine *e, enum engine_state state)
{
    if (state == ENGINE_RUNNING && e && engine_jail(e)) {
        const struct jail *jail = engine_jail(e);
        snprintf(j->tier, sizeof j->tier, "%s", iolab_tier_name(jail_tier(jail)));
        j->pages_own = jail_counts_protected(jail);
        grade_set_tier(j->grader, j->tier);
    }
    if (state == ENGINE_FAILED && !j->why[0] && e)
        snprintf(j->why, sizeof j->why, "the scenario could not start: %s", engine_error(e));
    if (state != ENGINE_STOPPED && state != ENGINE_FAILED)
        return;
    if (j->pids_pending) /* no snapshot came to say whose: the program the limit stopped */
        judge_limit_named(j, j->pids_prog, true, "pids");
    /* The run is over: what is undecided is decided now, as it stands. */
    if (!j->grader->over)
        grade_finish(j->grader);
    const struct lesson_program *lp = j->sc->has_learner ? &j->sc->programs[j->sc->learner] : NULL;
    if (lp && !j->grader->measured && !j->why[0] && lp->ready) {
        char within[32] = "";
        if (j->seconds > 0)
            snprintf(within, sizeof within, " within %g s", j->seconds);
        snprintf(j->why, sizeof j->why,
                 "no check could be judged: your %s did not print a line containing \"%s\"%s, "
                 "so the scenario never started; it must bind(), listen() and then print that "
                 "line",
                 lp->name, lp->ready, within);
    }
}

/* ---- the score ---- */

void judge_score(const struct judge *j, double at, struct record_score *s)
{
    const struct lesson_scenario *sc = j->sc;
    memset(s, 0, sizeof *s);
    if (j->why[0])
        return;
    s->has = true;
    s->at = at;
    for (size_t i = 0; i < sc->nchecks; i++) {
        double got = grade_state(j->grader, i) == GRADE_PASS ? sc->checks[i].points : 0;
        s->points += got;
        s->of += sc->checks[i].points;
        if (i < RECORD_SCORE_MAX_CHECKS) {
            s->got[i] = got;
            s->weight[i] = sc->checks[i].points;
        }
    }
    /* A scenario with more checks than a score lists keeps the total only. */
    s->nchecks = sc->nchecks <= RECORD_SCORE_MAX_CHECKS ? sc->nchecks : 0;
}
