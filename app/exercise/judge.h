/*
 * judge: the one build-and-judge routine of an exercise, which the TUI and `iolab check` both
 * call, so that the same files meet the same builds, the same feeding of the grader and the same
 * sentences, and only the pass rule of grade.h decides.
 *
 * Builds (struct judge_builder): the exercise's reference solution is built once and kept, then
 * the learner's files, each with the exercise's command (exercise_command) in the sandbox
 * (build.h). The caller hears of a reference that does not build (it stops there) and of every
 * build of the learner's files.
 *
 * Judging (struct judge): a grader on the scenario of a run, fed by the engine's callbacks
 * through judge_line(), judge_exit(), judge_snapshot() and judge_state(). Beyond the grader it
 * keeps what a verdict must say about the run itself: the sandbox tier and whether each program's
 * counts were its own (jail.h), and why nothing could be judged when that is so (a limit of the
 * jail reached by the learner's program while it ran or stopped it, a limit that stopped one of
 * the exercise's own programs, a scenario that could not start, a program that never printed its
 * ready text). A limit voids the run: every check not decided is not judged, with the sentence
 * that names the limit (grade_void), in the TUI and in `iolab check` alike; except the process
 * limit reached by a learner's program that leaves zombies: its unreaped children are what
 * filled the jail, so the run is decided as it stands (its "no zombie" check fails) and the
 * sentence says so. A plain run step is
 * judged the same way, with no learner's program (the scenario's has_learner is false).
 */
#ifndef IOLAB_JUDGE_H
#define IOLAB_JUDGE_H

#include "engine/engine.h"
#include "exercise/build.h"
#include "grade.h"
#include "lesson/lesson.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* ---- builds ---- */

enum judge_built {
    JUDGE_REFERENCE, /* the reference solution did not build: nothing more is built */
    JUDGE_YOURS,     /* the learner's files were built (r says how) */
};

typedef void (*judge_built_fn)(void *data, enum judge_built which, const struct build_result *r);

struct judge_builder {
    uv_loop_t *loop;
    const struct lesson_exercise *ex;
    const char *cache, *sandbox;
    judge_built_fn done;
    void *data;
    struct build *build;    /* under way, or NULL */
    char mine[PATH_MAX];    /* the learner's files, while their build waits for the reference */
    char ref_exe[PATH_MAX]; /* the reference program once built; "" before */
    char why[1024];         /* judge_build() said -ESTALE: the sentence */
};

/* Prepares a builder; cache and sandbox must outlive it. */
void judge_builder_init(struct judge_builder *b, uv_loop_t *loop, const struct lesson_exercise *ex,
                        const char *cache, const char *sandbox, judge_built_fn done, void *data);

/* Builds the learner's files in dir, after the reference when it is not built yet; a build
   under way is cancelled first. done runs once, later. 0 or a negative errno, nothing started:
   -ESTALE when a file of dir was made from an older starter of the exercise (b->why says which
   and what to do: exercise_workspace_stale), which is told, never built and judged; -E2BIG when
   the exercise's command has too many words. */
int judge_build(struct judge_builder *b, const char *dir);

/* The build of the exercise's files in src as judge_build() makes it, for build_key(); cmd holds
   BUILD_MAX_ARGS words. spec, or NULL when the command has too many words. */
const struct build_spec *judge_spec(const struct judge_builder *b, const char *src,
                                    struct build_spec *spec, const char **cmd);

/* Stops a build under way; no callback runs after it. */
void judge_build_cancel(struct judge_builder *b);

/* ---- judging a run ---- */

struct judge {
    struct grader *grader; /* the run's grader, which the caller keeps (its views read it) */
    const struct lesson_scenario *sc;
    double seconds;    /* the run's time (the ready text's sentence); 0: none */
    char tier[16];     /* the sandbox tier the scenario ran in; "": it did not start */
    bool pages_own;    /* no program of the run could write another's counts (jail.h) */
    char why[1024];    /* nothing could be judged: why; "" */
    char limit[1024];  /* the last limit named, for a status line; "" */
    uint32_t zombies;  /* the learner's program's unreaped children, as last sampled */
    bool mine_said;    /* a limit the learner's program reached has been named */
    bool pids_pending; /* an own program met the shared process limit while the learner's ran:
                          the next snapshot's thread counts say whose it is (pids_prog) */
    size_t pids_prog;
};

/* Prepares a judge of a run of sc and its grader g (grade_init); seconds is the run's length
   when it has one. 0 or -ENOMEM. judge_free() frees the grader too. */
int judge_init(struct judge *j, struct grader *g, const struct lesson_scenario *sc, double seconds);
void judge_free(struct judge *j);

/* A new run of the same scenario: a verdict made final by a failure or a limit is judged afresh
   (a pass stays), and the grader counts from zero again. -ENOMEM leaves j freed. */
int judge_new_run(struct judge *j);

/* The engine's callbacks, in the order the engine calls them. judge_exit() and
   judge_snapshot() return the sentence of a limit named by this call (also in j->limit, and in
   j->why when it voids the run), or NULL. */
void judge_line(struct judge *j, size_t prog, const char *line);
const char *judge_exit(struct judge *j, const struct engine *e, size_t prog, int status,
                       bool expected);
const char *judge_snapshot(struct judge *j, const struct engine *e, const struct snapshot *snap);
void judge_state(struct judge *j, const struct engine *e, enum engine_state state);

/* ---- the score ---- */

/*
 * The score of a judged run as the exercise's progress record keeps it (lesson/record.h): the
 * points of the checks decided to hold (GRADE_PASS), of every check's, and what each check
 * earned, reached at time at. A check that failed, was not judged or is still open earns
 * nothing. s->has is false when the run says nothing of the learner's code (j->why: a limit of
 * the jail voided it, the scenario could not start, the program never printed its ready text):
 * such a run is an error in `iolab check`, which keeps no score for it, and the TUI keeps none
 * either. The TUI's exercise view and `iolab check` both record this, so the two agree.
 */
struct record_score;
void judge_score(const struct judge *j, double at, struct record_score *s);

#endif
