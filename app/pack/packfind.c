/*
 * packfind: see packfind.h. A pack's id is only known once its pack.json is read, so each
 * candidate is loaded (never built: that waits for the one pack chosen) and dropped again; a
 * pack that does not load is passed over here, and told to `iolab list`'s visitor.
 */
#include "packfind.h"

#include "lesson/lesson.h"
#include "paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void packfind_each(bool builtin, const char *const *named, size_t nnamed,
                   const struct packfind_visitor *v)
{
    char *dirs[PACKFIND_MAX];
    size_t ndirs = 0;
    char path[PATH_MAX], libexec[PATH_MAX];
    if (builtin && paths_get(PATHS_PACK, path, sizeof path) == 0)
        dirs[ndirs++] = strdup(path);
    for (size_t i = 0; i < nnamed && ndirs < PACKFIND_MAX; i++)
        dirs[ndirs++] = strdup(named[i]);
    paths_installed_packs(dirs, &ndirs, PACKFIND_MAX);
    struct lesson_load_options lo = {.libexec_dir = NULL};
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) == 0)
        lo.libexec_dir = libexec;
    for (size_t i = 0; i < ndirs; i++) {
        struct lesson_pack *pk = NULL;
        struct lesson_diags d = {0};
        if (!dirs[i] || lesson_pack_load(dirs[i], &lo, &pk, &d) < 0) {
            if (v->failed)
                v->failed(v->data, dirs[i] ? dirs[i] : "?", &d);
            lesson_pack_free(pk);
        } else if (!v->visit(v->data, dirs[i], pk)) {
            lesson_pack_free(pk);
        }
        lesson_diags_free(&d);
        free(dirs[i]);
    }
}

/* A search of packfind_by_id or packfind_by_lesson: the packs keep() accepts for arg. */
struct packfind_search {
    bool (*keep)(const struct lesson_pack *pack, const char *arg);
    const char *arg;
    struct packfind *out;
};

static bool packfind_visit(void *data, const char *dir, struct lesson_pack *pack)
{
    struct packfind_search *q = data;
    if (q->keep(pack, q->arg) && q->out->n < PACKFIND_MAX) {
        char *copy = strdup(dir);
        if (copy)
            q->out->dirs[q->out->n++] = copy;
    }
    return false;
}

static void packfind_scan(bool builtin, bool (*keep)(const struct lesson_pack *, const char *),
                          const char *arg, struct packfind *out)
{
    struct packfind_search q = {.keep = keep, .arg = arg, .out = out};
    const struct packfind_visitor v = {.visit = packfind_visit, .data = &q};
    packfind_each(builtin, NULL, 0, &v);
}

static bool packfind_has_id(const struct lesson_pack *pk, const char *id)
{
    return !strcmp(pk->id, id);
}

static bool packfind_has_lesson(const struct lesson_pack *pk, const char *lesson)
{
    return lesson_find(pk, lesson) != NULL;
}

void packfind_by_id(const char *id, bool installed_only, struct packfind *out)
{
    packfind_scan(!installed_only, packfind_has_id, id, out);
}

void packfind_by_lesson(const char *lesson, struct packfind *out)
{
    packfind_scan(false, packfind_has_lesson, lesson, out);
}

void packfind_free(struct packfind *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->dirs[i]);
    f->n = 0;
}

bool packfind_is_dir(const char *arg)
{
    struct stat st;
    return strchr(arg, '/') || (stat(arg, &st) == 0 && S_ISDIR(st.st_mode));
}
