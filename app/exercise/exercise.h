/*
 * exercise: the learner's workspace of an exercise and the scenario that runs their program.
 *
 * Workspace: $XDG_DATA_HOME/iolab/work/PACK/LESSON/STEP/ (default ~/.local/share/...), created
 * from the starters the first time and never overwritten: a file that exists is the learner's.
 * A reset moves the whole directory aside (STEP.old-YYYYmmdd-HHMMSS) before writing the starters
 * again, so nothing the learner wrote is lost.
 *
 * Scenario: the exercise's own, with two modes added on the learner's program: "yours" (the
 * program built from the workspace, key 1, the default) and "reference" (the solution, key 2),
 * under the same load; every check and expected outcome without a mode judges "yours".
 */
#ifndef IOLAB_EXERCISE_H
#define IOLAB_EXERCISE_H

#include "lesson/lesson.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The workspace directory of a step. 0 or -ENAMETOOLONG / -ENOENT (no HOME). */
int exercise_workspace(const char *pack, const char *lesson, const char *step, char *buf,
                       size_t len);

/* Creates the workspace (and its parents) and writes every file that is missing: the starter
   generated from the solution's markers, or the file as it is. The solution's files are read
   beneath ex->dir (util/safeopen.h): -EXDEV when one is a link that leads out of it, which is
   never copied. 0 or a negative errno; why says what failed. */
int exercise_prepare(const struct lesson_exercise *ex, const char *dir, char *why, size_t len);

/* Removes a directory tree (a starter written for a check), following no link in it. */
void exercise_rmtree(const char *dir);

/* Moves the workspace aside (its new name in moved) and prepares it afresh. */
int exercise_reset(const struct lesson_exercise *ex, const char *dir, char *moved, size_t len);

/*
 * Whether the workspace in dir was made from an older starter of this exercise: a file of it
 * whose starter version stamp (lesson/starter.h: `/\* iolab-starter: N *\/`, none meaning 1) is
 * below the stamp of the exercise's own file of that name. 1 with one sentence for the learner
 * in why ("DIR/FILE was made from an older starter of this exercise (version 1, now 2): move it
 * aside ..."), naming the first such file; 0 when every file is current (a missing file is
 * current: exercise_prepare writes it). Said before a build, instead of a verdict: the checks
 * read the code around the TODOs, which the learner did not write and would be blamed for.
 */
int exercise_workspace_stale(const struct lesson_exercise *ex, const char *dir, char *why,
                             size_t len);

/* The files `e` opens in the learner's editor: those whose solution has a TODO marker (what the
   learner has to write; a support header without one is left closed), in the exercise's order,
   or every file when none has one. Names point into ex; returns how many were put in out. */
size_t exercise_edit_files(const struct lesson_exercise *ex, const char **out, size_t max);

/* One file of the reference solution as it runs, for the learner to read: the solution's text
   with the REPLACE and REMOVE marker lines gone, and the `//` lines under a REPLACE (code only
   the starter has) gone with them; each TODO comment stays above its answer. 0 with *out
   malloc'ed, or a negative errno. */
int exercise_solution_text(const struct lesson_exercise *ex, const char *file, char **out);

/* The compiler command of an exercise: its "build" or the default, and with "sanitize" the
   sanitizer flags before its NULL. buf holds up to n entries; returns buf, or NULL when they do
   not fit. */
#define EXERCISE_SANITIZE_FLAGS "-fsanitize=address,undefined", "-fno-omit-frame-pointer"
const char *const *exercise_command(const struct lesson_exercise *ex, const char **buf, size_t n);

/* The scenario that runs the learner's program (yours) and the reference (see above). */
struct exercise_run {
    struct lesson_scenario sc; /* the derived scenario; its programs are the exercise's */
    struct lesson_step step;   /* a run step holding sc, for the TUI's run view */
    struct lesson_mode modes[2];
    struct lesson_check *checks;
    struct lesson_expect *expects;
};

#define EXERCISE_MODE_YOURS     0
#define EXERCISE_MODE_REFERENCE 1

/* Fills run from ex with the two executables. 0 or -ENOMEM. Free with exercise_run_free(). */
int exercise_run_init(struct exercise_run *run, const struct lesson_exercise *ex,
                      const struct lesson_step *step, const char *yours, const char *reference);
void exercise_run_free(struct exercise_run *run);

/*
 * The exercise's progress record (the progress store's field "exercise", a JSON object):
 *   {"attempts": N, "first_pass": UNIX_SECONDS or absent, "solution_viewed": true|false,
 *    "solution_before_pass": true|false}
 * attempts counts the builds of the learner's program (every save is one); first_pass is when
 * every check first held; solution_before_pass says the solution was shown, after a
 * confirmation, before that. exercise_progress() applies one event to old (NULL: no record yet)
 * and writes the new record into out. 0, -ENOMEM or -ENAMETOOLONG.
 */
enum exercise_event { EXERCISE_ATTEMPT, EXERCISE_PASS, EXERCISE_SOLUTION };

/* Whether a finished build of the learner's program is an attempt: every build is, except one
   that a limit of its jail stopped (BUILD_LIMIT), which says nothing about the learner's code. */
struct build_result;
bool exercise_build_is_attempt(const struct build_result *r);
int exercise_progress(const char *old, enum exercise_event ev, long long now, char *out,
                      size_t len);

#endif
