/*
 * The progress record of `iolab check` (attempt_record.h), through the exercise record's typed
 * codec (lesson/record.h) under the progress lock.
 */
#include "attempt_record.h"
#include "cmd.h"
#include "lesson/record.h"
#include "progress.h"

#include <limits.h>
#include <string.h>
#include <time.h>

/* Applies one event to the step's "exercise" record. 0 or a negative errno. */
static int attempt_record_event(struct progress *p, const char *pk, const char *l, const char *st,
                                enum exercise_event ev)
{
    char json[4096];
    int rc = exercise_progress(progress_field_get(p, pk, l, st, EXERCISE_RECORD_FIELD), ev,
                               (long long)time(NULL), json, sizeof json);
    return rc < 0 ? rc : progress_field_set(p, pk, l, st, EXERCISE_RECORD_FIELD, json);
}

/* The attempt's score as the record keeps it: the judge's (judge_score, as the TUI keeps it),
   with what the audit took away, so that the record says what `check --json` says and its
   checks add up to its points. */
static void attempt_record_score(const struct attempt *a, struct record_score *s)
{
    judge_score(&a->judge, (double)time(NULL), s);
    attempt_score(a, &s->points, &s->of);
    for (size_t i = 0; a->audit_started && i < s->nchecks; i++)
        if (!judge_audit_holds(&a->au, i))
            s->got[i] = 0;
}

/* Keeps the attempt's score in the step's record when it is the best so far. */
static int attempt_record_keep_score(struct progress *p, const char *pk, const char *l,
                                     const char *st, const struct attempt *a)
{
    struct record_score s;
    char json[4096];
    attempt_record_score(a, &s);
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
void attempt_record(const struct lesson_pack *pack, const struct attempt *a, bool starter)
{
    bool pass = attempt_verdict(a) == ATTEMPT_PASS;
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
        rc = attempt_record_event(p, pk, l, st, EXERCISE_ATTEMPT);
    if (rc == 0 && attempt_verdict(a) != ATTEMPT_ERROR)
        rc = attempt_record_keep_score(p, pk, l, st, a);
    if (rc == 0 && pass && (rc = attempt_record_event(p, pk, l, st, EXERCISE_PASS)) == 0)
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
