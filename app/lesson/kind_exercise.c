/*
 * kind_exercise: a run step in which the learner writes one of the programs. It takes every key
 * of a run step (kind_run.c is its base) and its own: where the reference solution's files are,
 * which of them the learner gets, how to compile them, which program is the learner's, and the
 * hints (the run step's own "files" are the scenario's data; the learner's are "workspace"). The
 * loader checks what an author can get wrong: the directory and files exist inside the
 * pack, the markers generate a starter (starter.h) with at least one TODO in all, and
 * the learner's program is one of the step's. The UI half is ui/stepview_exercise.c.
 */
#include "check_load.h"
#include "starter.h"
#include "kind.h"
#include "record.h"
#include "load.h"
#include "safeopen.h"

#include <regex.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXERCISE_MAX_FILE (1 << 20) /* a source this large is a mistake */
/* A file's count of TODOs when its markers are wrong: not known, so not judged. */
#define KIND_EXERCISE_UNKNOWN ((size_t)-1)

enum { EX_DIR, EX_FILES, EX_SOURCES, EX_BUILD, EX_HINTS, EX_LEARNER, EX_SANITIZE, EX_NFIELDS };
static const struct load_field kind_exercise_fields[] = {
    [EX_DIR] = {"dir", LOAD_STRING, 1},          [EX_FILES] = {"workspace", LOAD_STRINGS, 1},
    [EX_SOURCES] = {"sources", LOAD_STRINGS, 0}, [EX_BUILD] = {"build", LOAD_STRINGS, 0},
    [EX_HINTS] = {"hints", LOAD_STRINGS, 0},     [EX_LEARNER] = {"learner", LOAD_STRING, 1},
    [EX_SANITIZE] = {"sanitize", LOAD_BOOL, 0},
};

/* A name inside the exercise directory: no path, no dot-file. */
static bool kind_exercise_plain(const char *name)
{
    return name[0] && name[0] != '.' && !strchr(name, '/');
}

/* Reads a solution file and checks its markers; adds its TODOs to ex->ntodos and returns how
   many it has. A marker error is reported at the C file's own line and column (where an editor
   jumps), and sets *marker_error: the file's TODOs are then unknown, not absent. */
static size_t kind_exercise_file(struct load *ld, const cJSON *v, struct lesson_exercise *ex,
                                 bool *marker_error)
{
    const char *name = v->valuestring;
    if (!kind_exercise_plain(name)) {
        load_diag(ld, v, 0, "file \"%s\" must be a plain name in the exercise's directory.", name);
        return 0;
    }
    /* exercise.c copies this file into the learner's workspace with iolab's rights: a link out
       of the exercise's directory would copy a file the pack's author may not read. */
    int fd = safeopen_beneath(ex->dir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd == -EXDEV) {
        char to[PATH_MAX];
        safeopen_escape(ex->dir, name, to, sizeof to);
        load_diag(ld, v, 0,
                  "%s/%s is a link that leads out of the exercise's directory%s%s%s; iolab does "
                  "not follow it: put the file itself there.",
                  ex->rel_dir, name, to[0] ? " (to " : "", to, to[0] ? ")" : "");
        return 0;
    }
    if (fd == -EMLINK) {
        load_diag(ld, v, 0,
                  "%s/%s is a hard link (a second name of a file that may be anywhere); iolab "
                  "does not read it: put a copy of the file itself there.",
                  ex->rel_dir, name);
        return 0;
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > EXERCISE_MAX_FILE) {
        load_diag(ld, v, 0, "%s/%s is not a readable file of at most 1 MiB; add it to the pack.",
                  ex->rel_dir, name);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t n = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (n < 0) {
        free(text);
        ld->nomem = !text;
        return 0;
    }
    char *starter = NULL;
    size_t todos = 0;
    struct starter_diag d;
    int rc = starter_generate(text, (size_t)n, &starter, &todos, &d);
    if (rc == -EINVAL) {
        /* The column: the line's first character that is not blank, where the marker or the
           line at fault begins. */
        const char *p = text, *end = text + n;
        for (int line = 1; line < d.line && p < end; p++)
            line += *p == '\n';
        int col = 1;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++, col++;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/%s", ld->dir, ex->rel_dir, name);
        load_diag_at(ld, path, d.line > 0 ? d.line : 1, col, "%s.", d.message);
        *marker_error = true;
    } else if (rc < 0)
        ld->nomem = 1;
    /* A stamp that iolab cannot read would leave every workspace of this file unjudged as to its
       starter's version (exercise_workspace_stale): said here, at its line. */
    int version = 0, line = 0;
    if (starter_stamp(text, (size_t)n, &version, &line) < 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/%s", ld->dir, ex->rel_dir, name);
        load_diag_at(ld, path, line, 1,
                     "a starter version stamp is a line of its own, \"/* %s N */\" with N a whole "
                     "number from 1 to %d, once per file.",
                     STARTER_STAMP, STARTER_STAMP_MAX);
    }
    ex->ntodos += todos;
    free(starter);
    free(text);
    return todos;
}

/*
 * A check's sentence that names "TODO n of FILE" (or "in FILE") must name a TODO the learner's
 * FILE has: the starter numbers the TODOs of each file 1, 2, 3 in file order, and a sentence that
 * points at TODO 3 of a file with two sends the learner nowhere. The checks are members of the
 * step's object, which the exercise's own fields sit beside.
 */
static void kind_exercise_todo_refs(struct load *ld, const cJSON *member,
                                    const struct lesson_exercise *ex, const size_t *todos,
                                    bool marker_error)
{
    while (member && member->prev && member->prev->next) /* cJSON: the first's prev is the last */
        member = member->prev;
    const cJSON *checks = NULL;
    for (const cJSON *m = member; m && !checks; m = m->next)
        if (m->string && !strcmp(m->string, "checks"))
            checks = m;
    const cJSON *c;
    cJSON_ArrayForEach(c, checks)
    {
        const cJSON *fail = cJSON_GetObjectItemCaseSensitive(c, "fail");
        if (!cJSON_IsString(fail))
            continue;
        for (const char *s = strstr(fail->valuestring, "TODO "); s; s = strstr(s + 5, "TODO ")) {
            char *end;
            long n = strtol(s + 5, &end, 10);
            if (end == s + 5)
                continue;
            if (strncmp(end, " of ", 4) && strncmp(end, " in ", 4)) {
                /* "TODO 2" alone: some file of the exercise must have a second TODO. */
                size_t most = 0;
                for (size_t k = 0; k < ex->nfiles; k++)
                    most = todos[k] != KIND_EXERCISE_UNKNOWN && todos[k] > most ? todos[k] : most;
                /* With a marker error, some file's TODOs are unknown: the marker's own error is
                   the one to fix, and a count made without that file would be a second, false,
                   error for the same mistake. */
                if (!marker_error && (n < 1 || (size_t)n > most))
                    load_diag(ld, fail, 0,
                              "this sentence names TODO %ld, and no file of this exercise has "
                              "that many; the learner reads each file's TODOs numbered 1 to %zu "
                              "(name the file: \"TODO 1 of server.c\").",
                              n, most);
                continue;
            }
            char name[128];
            if (sscanf(end + 4, "%127[A-Za-z0-9_.-]", name) != 1)
                continue;
            size_t l = strlen(name);
            while (l && (name[l - 1] == '.' || name[l - 1] == ','))
                name[--l] = '\0'; /* the sentence's own full stop */
            size_t k = 0;
            while (k < ex->nfiles && strcmp(ex->files[k], name))
                k++;
            if (k == ex->nfiles)
                load_diag(ld, fail, 0,
                          "this sentence names TODO %ld of %s, which is not a file of this "
                          "exercise's \"workspace\".",
                          n, name);
            else if (todos[k] == KIND_EXERCISE_UNKNOWN)
                continue; /* its markers are wrong, said at the marker: one mistake, one error */
            else if (n < 1 || (size_t)n > todos[k])
                load_diag(ld, fail, 0,
                          "this sentence names TODO %ld of %s, which has %zu TODO%s; the learner "
                          "reads them numbered 1 to %zu in file order.",
                          n, name, todos[k], todos[k] == 1 ? "" : "s", todos[k]);
        }
    }
}

static void kind_exercise_parse(struct load *ld, const cJSON *const *f, struct lesson_step *step)
{
    struct lesson_exercise *ex = calloc(1, sizeof *ex);
    if (!ex) {
        ld->nomem = 1;
        return;
    }
    ex->sc = step->data; /* the base (run) parser's scenario */
    step->data = ex;
    if (f[EX_DIR]) {
        const char *rel = f[EX_DIR]->valuestring;
        ex->rel_dir = load_strdup(ld, rel);
        if (rel[0] == '/' || strstr(rel, "..")) {
            load_diag(ld, f[EX_DIR], 0,
                      "\"dir\" is a directory inside the pack, such as \"exercises/%s\"; no "
                      "absolute path and no \"..\".",
                      step->id ? step->id : "STEP");
        } else {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", ld->dir, rel);
            struct stat st;
            int fd = safeopen_beneath(ld->dir, rel, O_PATH | O_DIRECTORY);
            if (fd >= 0)
                close(fd);
            if (fd == -EXDEV) {
                char to[PATH_MAX];
                safeopen_escape(ld->dir, rel, to, sizeof to);
                load_diag(ld, f[EX_DIR], 0,
                          "the exercise's directory %s is a link that leads out of the pack%s%s%s; "
                          "iolab does not follow it: put the directory itself in the pack.",
                          rel, to[0] ? " (to " : "", to, to[0] ? ")" : "");
            } else if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
                load_diag(ld, f[EX_DIR], 0, "the exercise's directory %s is not in the pack.", rel);
            else
                ex->dir = realpath(path, NULL);
        }
    }
    ex->files = load_strv(ld, f[EX_FILES], &ex->nfiles);
    if (ex->dir && f[EX_FILES]) {
        size_t *todos = calloc(ex->nfiles + 1, sizeof *todos), i = 0;
        bool marker_error = false;
        const cJSON *v;
        cJSON_ArrayForEach(v, f[EX_FILES])
        {
            bool bad = false;
            size_t n = kind_exercise_file(ld, v, ex, &bad);
            marker_error |= bad;
            if (todos && i < ex->nfiles)
                todos[i++] = bad ? KIND_EXERCISE_UNKNOWN : n;
        }
        if (todos)
            kind_exercise_todo_refs(ld, f[EX_FILES], ex, todos, marker_error);
        free(todos);
        if (ex->ntodos == 0 && !marker_error)
            load_diag(ld, f[EX_FILES], 0,
                      "no file of this exercise has a TODO marker; mark what the learner writes "
                      "with /* TODO n: ... */.");
    }
    if (f[EX_SOURCES]) {
        ex->sources = load_strv(ld, f[EX_SOURCES], &ex->nsources);
        for (size_t i = 0; i < ex->nsources; i++) {
            size_t k = 0;
            while (k < ex->nfiles && strcmp(ex->files[k], ex->sources[i]))
                k++;
            if (k == ex->nfiles)
                load_diag(ld, f[EX_SOURCES], 0,
                          "source \"%s\" is not one of \"workspace\"; add it there.",
                          ex->sources[i]);
        }
    } else {
        /* Every .c file is compiled; headers are only copied. */
        ex->sources = calloc(ex->nfiles + 1, sizeof *ex->sources);
        for (size_t i = 0; ex->sources && i < ex->nfiles; i++) {
            size_t l = strlen(ex->files[i]);
            if (l > 2 && !strcmp(ex->files[i] + l - 2, ".c"))
                ex->sources[ex->nsources++] = load_strdup(ld, ex->files[i]);
        }
        if (!ex->sources)
            ld->nomem = 1;
    }
    if (f[EX_BUILD]) {
        size_t n;
        char **v = load_strv(ld, f[EX_BUILD], &n);
        ex->command = calloc(n + 1, sizeof *ex->command);
        if (ex->command && v)
            memcpy(ex->command, v, n * sizeof *v);
        free(v);
        bool out = false;
        for (size_t i = 0; ex->command && i < n; i++)
            out |= !strcmp(ex->command[i], "{out}");
        if (!out)
            load_diag(ld, f[EX_BUILD], 0,
                      "the build command must name its output as {out} (and its sources as "
                      "{sources}).");
    }
    ex->hints = load_strv(ld, f[EX_HINTS], &ex->nhints);
    ex->sanitize = f[EX_SANITIZE] && cJSON_IsTrue(f[EX_SANITIZE]);

    if (f[EX_LEARNER] && ex->sc) {
        size_t p = 0;
        while (p < ex->sc->nprograms &&
               strcmp(ex->sc->programs[p].name, f[EX_LEARNER]->valuestring))
            p++;
        if (p == ex->sc->nprograms)
            load_diag(ld, f[EX_LEARNER], 0,
                      "\"learner\" names program \"%s\", which this step does not have; name the "
                      "program the learner writes.",
                      f[EX_LEARNER]->valuestring);
        ex->learner = p;
        ex->sc->has_learner = p < ex->sc->nprograms;
        ex->sc->learner = p;
    }
    /* Requests and bytes are read from the reference programs only (grade/session.c): a check
       on a role that has no other program could never hold. */
    for (size_t i = 0; ex->sc && ex->sc->has_learner && i < ex->sc->nchecks; i++) {
        const struct lesson_check *c = &ex->sc->checks[i];
        if (c->figure != FIGURE_REQUESTS && c->figure != FIGURE_BYTES)
            continue;
        int role = c->role < 0 ? LESSON_ROLE_CLIENT : c->role;
        size_t p = 0;
        while (p < ex->sc->nprograms &&
               (p == ex->sc->learner || (int)ex->sc->programs[p].role != role))
            p++;
        if (p == ex->sc->nprograms)
            load_diag(ld, f[EX_LEARNER], 0,
                      "check \"%s\" reads the %s role's %s, and its only program is the "
                      "learner's: what a program publishes about itself proves nothing; read "
                      "them from a program the learner does not write.",
                      c->text ? c->text : "", lesson_role_name((enum lesson_role)role),
                      c->figure == FIGURE_REQUESTS ? "requests" : "bytes");
    }
}

static void kind_exercise_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void kind_exercise_free(void *data)
{
    struct lesson_exercise *ex = data;
    if (!ex)
        return;
    lesson_kind_run.free(ex->sc);
    free(ex->dir);
    free(ex->rel_dir);
    kind_exercise_strv_free(ex->files, ex->nfiles);
    kind_exercise_strv_free(ex->sources, ex->nsources);
    if (ex->command) {
        for (char **a = ex->command; *a; a++)
            free(*a);
        free(ex->command);
    }
    kind_exercise_strv_free(ex->hints, ex->nhints);
    free(ex);
}

static const struct lesson_exercise *kind_exercise_get(const struct lesson_step *step)
{
    return step->data;
}

static const struct lesson_scenario *kind_exercise_scenario(const struct lesson_step *step)
{
    const struct lesson_exercise *ex = step->data;
    return ex ? ex->sc : NULL;
}

static const struct lesson_record *const kind_exercise_records[] = {&lesson_record_exercise, NULL};

const struct lesson_kind lesson_kind_exercise = {
    .name = "exercise",
    .fields = kind_exercise_fields,
    .nfields = EX_NFIELDS,
    .parse = kind_exercise_parse,
    .free = kind_exercise_free,
    .scenario = kind_exercise_scenario,
    .exercise = kind_exercise_get,
    .base = &lesson_kind_run,
    .records = kind_exercise_records,
};
