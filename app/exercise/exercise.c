/*
 * exercise: see exercise.h. Files are written with O_EXCL so that a file the learner already
 * has is never touched, even if two iolabs prepare the same workspace at once.
 */
#include "exercise.h"
#include "build.h"

#include "fileread.h"
#include "safeopen.h"
#include "lesson/kind.h"
#include "lesson/record.h"
#include "starter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int exercise_workspace(const char *pack, const char *lesson, const char *step, char *buf,
                       size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/iolab/work/%s/%s/%s", xdg, pack, lesson, step);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.local/share/iolab/work/%s/%s/%s", home, pack, lesson, step);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int exercise_mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) < 0 && errno != EEXIST)
                return -errno;
            *s = '/';
        }
    return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/*
 * Reads one of the exercise's files from its directory, never through a link that leads out of
 * it: the bytes become the learner's workspace, which anyone may be able to read, and iolab
 * reads with its own rights. -EXDEV says a link would have led out.
 */
static int exercise_read(const struct lesson_exercise *ex, const char *name, char **text,
                         size_t *len)
{
    return fileread_beneath(ex->dir, name, 1 << 20, text, len, NULL);
}

int exercise_prepare(const struct lesson_exercise *ex, const char *dir, char *why, size_t len)
{
    int rc = exercise_mkdirs(dir);
    if (rc < 0) {
        snprintf(why, len, "cannot create %s: %s", dir, strerror(-rc));
        return rc;
    }
    for (size_t i = 0; i < ex->nfiles; i++) {
        char to[PATH_MAX * 2];
        snprintf(to, sizeof to, "%s/%s", dir, ex->files[i]);
        if (access(to, F_OK) == 0)
            continue; /* the learner's: never overwritten */
        char *text = NULL, *starter = NULL;
        size_t tlen = 0, todos = 0;
        struct starter_diag d;
        rc = exercise_read(ex, ex->files[i], &text, &tlen);
        if (rc == -EXDEV) {
            snprintf(why, len,
                     "%s/%s is a link that leads out of the exercise's directory; iolab does not "
                     "copy it into your workspace (ask the pack's author for the file itself)",
                     ex->dir, ex->files[i]);
            return rc;
        }
        if (rc == -EMLINK) {
            snprintf(why, len,
                     "%s/%s is a hard link (a second name of a file that may be anywhere); iolab "
                     "does not copy it into your workspace (ask the pack's author for the file "
                     "itself)",
                     ex->dir, ex->files[i]);
            return rc;
        }
        if (rc == 0)
            rc = starter_generate(text, tlen, &starter, &todos, &d);
        free(text);
        if (rc < 0) {
            snprintf(why, len, "cannot make the starter %s: %s", ex->files[i], strerror(-rc));
            return rc;
        }
        int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        size_t slen = strlen(starter);
        if (fd < 0 || write(fd, starter, slen) != (ssize_t)slen) {
            rc = fd < 0 && errno == EEXIST ? 0 : -(errno ? errno : EIO);
            if (fd >= 0)
                close(fd);
            free(starter);
            if (rc < 0) {
                snprintf(why, len, "cannot write %s: %s", to, strerror(-rc));
                return rc;
            }
            continue;
        }
        close(fd);
        free(starter);
    }
    return 0;
}

/* The starter version of a text: its stamp, or STARTER_STAMP_NONE without a readable one. */
static int exercise_stamp_of(const char *text, size_t len)
{
    int version = STARTER_STAMP_NONE;
    return starter_stamp(text, len, &version, NULL) == 1 ? version : STARTER_STAMP_NONE;
}

int exercise_workspace_stale(const struct lesson_exercise *ex, const char *dir, char *why,
                             size_t len)
{
    if (len)
        why[0] = '\0';
    for (size_t i = 0; i < ex->nfiles; i++) {
        const char *name = ex->files[i];
        char *text = NULL;
        size_t tlen = 0;
        if (exercise_read(ex, name, &text, &tlen) < 0)
            continue; /* the loader has said what is wrong with the pack's file */
        int now = exercise_stamp_of(text, tlen);
        free(text);
        /* The learner's file as it is: a missing one is written afresh (exercise_prepare), one
           that cannot be read is the build's to report. */
        if (fileread_beneath(dir, name, 1 << 20, &text, &tlen, NULL) < 0)
            continue;
        int had = starter_stamp(text, tlen, &(int){0}, NULL) == 1;
        int was = exercise_stamp_of(text, tlen);
        free(text);
        if (was >= now)
            continue;
        char version[48];
        if (had)
            snprintf(version, sizeof version, "version %d", was);
        else
            snprintf(version, sizeof version, "no version stamp, so version %d", was);
        snprintf(why, len,
                 "%s/%s was made from an older starter of this exercise (%s, now %d): move it "
                 "aside (mv %s %s.old) and iolab writes the new %s when you open or check the "
                 "step again (with --dir: `iolab starter`); your TODO code is kept in %s.old, to "
                 "copy into the new one",
                 dir, name, version, now, name, name, name, name);
        return 1;
    }
    return 0;
}

size_t exercise_edit_files(const struct lesson_exercise *ex, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < ex->nfiles && n < max; i++) {
        char *text = NULL, *starter = NULL;
        size_t tlen = 0, todos = 0;
        struct starter_diag d;
        /* The starter's own count, so that a TODO means here what lint and the starter mean. */
        if (exercise_read(ex, ex->files[i], &text, &tlen) == 0 &&
            starter_generate(text, tlen, &starter, &todos, &d) == 0 && todos > 0)
            out[n++] = ex->files[i];
        free(text);
        free(starter);
    }
    for (size_t i = 0; n == 0 && i < ex->nfiles && i < max; i++)
        out[i] = ex->files[i];
    return n ? n : (ex->nfiles < max ? ex->nfiles : max);
}

int exercise_solution_text(const struct lesson_exercise *ex, const char *file, char **out)
{
    char *text = NULL;
    size_t len = 0;
    int rc = exercise_read(ex, file, &text, &len);
    if (rc < 0)
        return rc;
    rc = starter_solution(text, len, out);
    free(text);
    return rc;
}

void exercise_rmtree(const char *dir)
{
    /* Never through a link: the directory holds what the learner's programs could write. */
    if (dir && dir[0])
        safeopen_rmtree(dir);
}

int exercise_reset(const struct lesson_exercise *ex, const char *dir, char *moved, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    int n = snprintf(moved, len, "%s.old-%s", dir, stamp);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    if (rename(dir, moved) < 0 && errno != ENOENT)
        return -errno;
    char why[256];
    return exercise_prepare(ex, dir, why, sizeof why);
}

const char *const *exercise_command(const struct lesson_exercise *ex, const char **buf, size_t n)
{
    static const char *const def[] = {BUILD_DEFAULT_COMMAND, NULL};
    static const char *const san[] = {EXERCISE_SANITIZE_FLAGS};
    const char *const *cmd = ex->command ? (const char *const *)ex->command : def;
    size_t k = 0;
    for (; cmd[k]; k++) {
        if (k + 1 >= n)
            return NULL;
        buf[k] = cmd[k];
    }
    for (size_t i = 0; ex->sanitize && i < sizeof san / sizeof *san; i++) {
        if (k + 1 >= n)
            return NULL;
        buf[k++] = san[i];
    }
    buf[k] = NULL;
    return buf;
}

int exercise_run_init(struct exercise_run *run, const struct lesson_exercise *ex,
                      const struct lesson_step *step, const char *yours, const char *reference)
{
    memset(run, 0, sizeof *run);
    run->sc = *ex->sc;
    const char *paths[2] = {yours, reference};
    static const char *const ids[2] = {"yours", "reference"};
    static const char *const titles[2] = {"your program", "the reference solution"};
    for (int i = 0; i < 2; i++)
        run->modes[i] = (struct lesson_mode){.id = (char *)ids[i],
                                             .title = (char *)titles[i],
                                             .key = (char)('1' + i),
                                             .program = ex->learner,
                                             .path = (char *)paths[i],
                                             .sanitized = ex->sanitize};
    run->sc.modes = run->modes;
    run->sc.nmodes = 2;
    run->sc.default_mode = EXERCISE_MODE_YOURS;
    /* Checks and outcomes without a mode judge the learner's program. */
    run->checks = calloc(ex->sc->nchecks + 1, sizeof *run->checks);
    run->expects = calloc(ex->sc->nexpects + 1, sizeof *run->expects);
    if (!run->checks || !run->expects) {
        exercise_run_free(run);
        return -ENOMEM;
    }
    for (size_t i = 0; i < ex->sc->nchecks; i++) {
        run->checks[i] = ex->sc->checks[i];
        if (run->checks[i].mode < 0)
            run->checks[i].mode = EXERCISE_MODE_YOURS;
    }
    for (size_t i = 0; i < ex->sc->nexpects; i++) {
        run->expects[i] = ex->sc->expects[i];
        if (run->expects[i].left.mode < 0)
            run->expects[i].left.mode = EXERCISE_MODE_YOURS;
        if (run->expects[i].has_right && run->expects[i].right.mode < 0)
            run->expects[i].right.mode = EXERCISE_MODE_YOURS;
    }
    run->sc.checks = run->checks;
    run->sc.expects = run->expects;
    run->step = *step;
    run->step.kind = &lesson_kind_run;
    run->step.data = &run->sc;
    return 0;
}

void exercise_run_free(struct exercise_run *run)
{
    free(run->checks);
    free(run->expects);
    run->checks = NULL;
    run->expects = NULL;
}

bool exercise_build_is_attempt(const struct build_result *r)
{
    /* A build the jail stopped for want of resources, or one that could not run at all, says
       nothing of the learner's work. (Whether the content changed is the caller's to know: a
       cache hit may be a learner's return to an earlier version, which is an attempt.) */
    return r->status != BUILD_LIMIT && r->status != BUILD_ERROR;
}

int exercise_progress(const char *old, enum exercise_event ev, long long now, char *out, size_t len)
{
    struct exercise_record r;
    char why[160];
    /* A record that is not an exercise's starts afresh, as no record does. */
    if (exercise_record_parse(old, &r, why, sizeof why) < 0)
        exercise_record_parse(NULL, &r, why, sizeof why);
    if (ev == EXERCISE_ATTEMPT)
        r.attempts++;
    if (!r.passed && ev == EXERCISE_PASS) {
        r.passed = true;
        r.first_pass = (double)now;
    }
    if (ev == EXERCISE_SOLUTION && !r.solution_viewed) {
        r.solution_viewed = true;
        r.solution_before_pass = !r.passed;
    }
    char *text = exercise_record_write(&r);
    if (!text)
        return -ENOMEM;
    int rc = snprintf(out, len, "%s", text) >= (int)len ? -ENAMETOOLONG : 0;
    free(text);
    return rc;
}
