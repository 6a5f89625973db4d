/*
 * lesson_load: reads a pack directory into the lesson model, checking everything an instructor
 * can get wrong, and reporting every problem (not only the first) as `file:line:col: message`.
 *
 * The pack's schema; the generic reader it and the kinds use is load_read.c (load.h lists the
 * loader's files, the only code that touches cJSON). Each file is parsed whole, then walked in
 * pre-order next to a position index built by lesson_pos over the same text, so that any cJSON item
 * can be named by line and column. What each JSON object may contain is data: a const table of
 * fields per object (name, type, required), checked by one function before the values are copied
 * into the model. Step kinds are a table too (kind.h): a kind brings its own fields and parser.
 *
 * Policy: a lesson file in the directory that pack.json does not list is an error, not a
 * warning: it is almost always a lesson the instructor meant to ship and forgot to list, and lint
 * exists to catch exactly that. Drafts belong outside the pack directory.
 *
 * Invariant: the model is built while validating; when any diagnostic was added the half-built
 * pack is freed and the caller gets only the diagnostics.
 */
#include "lesson.h"

#include "fileread.h"
#include "safeopen.h"
#include "jsontext.h"
#include "kind.h"
#include "load.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOAD_MAX_FILE_BYTES (1 << 20) /* a lesson file this large is a mistake */

/* ---- files ---------------------------------------------------------------------------------- */

static void load_walk(struct load *ld, struct load_file *f, const cJSON *item, size_t *cap)
{
    if (f->nitems == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        const cJSON **v = realloc(f->items, *cap * sizeof *v);
        if (!v) {
            ld->nomem = 1;
            return;
        }
        f->items = v;
    }
    f->items[f->nitems++] = item;
    for (const cJSON *c = item->child; c; c = c->next)
        load_walk(ld, f, c, cap);
}

static void load_file_close(struct load_file *f)
{
    free(f->path);
    free(f->text);
    cJSON_Delete(f->root);
    free(f->items);
    lesson_pos_free(&f->pos);
    *f = (struct load_file){0};
}

/* Offset of the first comma followed only by whitespace and '}' or ']', or (size_t)-1. */
static size_t load_trailing_comma(const char *t, size_t len)
{
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        if (in_string) {
            if (t[i] == '\\')
                i++;
            else if (t[i] == '"')
                in_string = 0;
        } else if (t[i] == '"') {
            in_string = 1;
        } else if (t[i] == ',') {
            size_t j = i + 1;
            while (j < len && (unsigned char)t[j] <= 32)
                j++;
            if (j < len && (t[j] == '}' || t[j] == ']'))
                return i;
        }
    }
    return (size_t)-1;
}

/*
 * Reads DIR/NAME (or the in-memory file NAME) into f->text. Returns 0; -ENOENT when there is no
 * such file (not reported); another negative errno after reporting why the file cannot be used.
 * Only a regular file is read, never waiting on it (a FIFO would block for ever), and never through
 * a link that leads out of the pack.
 */
static int load_file_read(struct load *ld, const char *dir, const char *name, struct load_file *f)
{
    const struct lesson_load_options *o = ld->opts;
    mode_t mode = 0;
    int rc = -ENOENT;
    if (o && o->files) {
        for (size_t i = 0; i < o->nfiles && rc == -ENOENT; i++)
            if (!strcmp(o->files[i].name, name)) {
                rc = o->files[i].len > LOAD_MAX_FILE_BYTES ? -EFBIG : 0;
                if (rc == 0 && !(f->text = malloc(o->files[i].len + 1)))
                    rc = -ENOMEM;
                if (rc == 0) {
                    memcpy(f->text, o->files[i].data, o->files[i].len);
                    f->text[f->len = o->files[i].len] = '\0';
                }
            }
    } else {
        /* Beneath the pack: a lesson file linked out of it (to a file the author may not read,
           whose text would then show in lint's messages) is refused, one linked within it is
           read. The pack's own directory may itself be a link (realpath'd by the caller). */
        rc = fileread_beneath(dir, name, LOAD_MAX_FILE_BYTES, &f->text, &f->len, &mode);
    }
    if (rc == -EXDEV)
        load_diag_file(ld, f->path,
                       "this file is a link that leads out of the pack; iolab does not follow "
                       "it: copy the file itself into the pack.");
    else if (rc == -EMLINK)
        load_diag_file(ld, f->path,
                       "this file is a hard link (a second name of a file that may be anywhere); "
                       "iolab does not read it: copy the file itself into the pack.");
    else if (rc == -EINVAL)
        load_diag_file(ld, f->path, "not a regular file (%s); make it a regular JSON file.",
                       fileread_kind(mode));
    else if (rc == -EFBIG)
        load_diag_file(ld, f->path, "this file is larger than 1 MiB; split the lesson.");
    else if (rc == -ENOMEM)
        ld->nomem = 1;
    else if (rc < 0 && rc != -ENOENT)
        load_diag_file(ld, f->path, "cannot read this file (%s); check its permissions.",
                       strerror(-rc));
    return rc;
}

/*
 * Refuses what cJSON would take silently: a NUL (a raw byte, or \u0000 in a string) would cut a
 * string where it stands, and bytes that are not UTF-8 would reach the screen as garbage.
 */
static int load_text_ok(struct load *ld, const struct load_file *f)
{
    static const char *const why[] = {
        [JSONTEXT_NUL_BYTE] = "this file contains a NUL byte; remove it (a lesson file is text).",
        [JSONTEXT_NUL_ESCAPE] = "a string may not contain \\u0000 (NUL): it would cut the string "
                                "here; remove it.",
        [JSONTEXT_BAD_UTF8] = "this is not valid UTF-8; save the file as UTF-8 or replace the "
                              "character.",
    };
    size_t at;
    enum jsontext_problem p = jsontext_check(f->text, f->len, &at);
    if (p == JSONTEXT_OK)
        return 1;
    int line, col;
    lesson_pos_linecol(f->text, f->len, at, &line, &col);
    load_diag_at(ld, f->path, line, col, "%s", why[p]);
    return 0;
}

/*
 * Reads and parses DIR/NAME. Returns 0 with f->root set; -ENOENT when the file does not exist
 * (not reported: the caller knows what a missing file means); another negative errno or -EINVAL
 * after reporting why the file cannot be used.
 */
static int load_file_open(struct load *ld, const char *dir, const char *name, struct load_file *f)
{
    *f = (struct load_file){0};
    if (asprintf(&f->path, "%s/%s", dir, name) < 0) {
        f->path = NULL;
        ld->nomem = 1;
        return -ENOMEM;
    }
    int rc = load_file_read(ld, dir, name, f);
    if (rc < 0)
        return rc == -ENOENT || rc == -ENOMEM ? rc : -EINVAL;
    if (!load_text_ok(ld, f))
        return -EINVAL;
    ld->file = f;
    const char *end = NULL;
    f->root = cJSON_ParseWithOpts(f->text, &end, 1);
    if (!f->root) {
        size_t off = end && end >= f->text ? (size_t)(end - f->text) : 0;
        int line, col;
        lesson_pos_linecol(f->text, f->len, off, &line, &col);
        size_t comma = load_trailing_comma(f->text, f->len);
        const char *msg =
            off >= f->len ? "the JSON ends too early; close every open string, '[' and '{'."
                          : "this is not valid JSON; check for a missing or extra comma, quote, "
                            "colon or bracket here or just before.";
        /* cJSON blames the end of the text for a trailing comma; point at the comma instead. */
        if (comma <= off) {
            lesson_pos_linecol(f->text, f->len, comma, &line, &col);
            msg = "a comma before a closing bracket is not allowed in JSON; remove it.";
        }
        load_diag_at(ld, f->path, line, col, "%s", msg);
        return -EINVAL;
    }
    size_t cap = 0;
    load_walk(ld, f, f->root, &cap);
    if (lesson_pos_scan(&f->pos, f->text, f->len) < 0 || f->pos.n != f->nitems)
        f->pos.n = 0; /* positions unknown: every diagnostic points at 1:1 rather than lie */
    return 0;
}

/* ---- steps, lessons, packs ------------------------------------------------------------------ */

/* Keys every step has, whatever its kind; a kind's own keys follow them (kind.h). */
enum { STEP_ID, STEP_TITLE, STEP_KIND, STEP_TEXT, STEP_NCOMMON };
static const struct load_field load_step_common[] = {
    [STEP_ID] = {"id", LOAD_STRING, 1},
    [STEP_TITLE] = {"title", LOAD_STRING, 1},
    [STEP_KIND] = {"kind", LOAD_STRING, 1},
    [STEP_TEXT] = {"text", LOAD_TEXT, 1},
};
#define LOAD_STEP_MAX_FIELDS 32 /* common and own keys of one kind together */

/* For a key a step of its kind does not take: the kind of step that does, or NULL. */
static const char *load_kind_hint(const char *key)
{
    const struct lesson_kind *k;
    for (size_t i = 0; (k = lesson_kind_at(i)); i++)
        for (size_t j = 0; j < k->nfields; j++)
            if (!strcmp(k->fields[j].name, key))
                return k->name;
    return NULL;
}

/* The step's kind by its "kind" key, or NULL (reported when the name is not known). */
static const struct lesson_kind *load_step_kind(struct load *ld, const cJSON *obj)
{
    const cJSON *k = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "kind") : NULL;
    if (!cJSON_IsString(k))
        return NULL;
    const struct lesson_kind *kind = lesson_kind_find(k->valuestring);
    if (kind)
        return kind;
    const char *names[LESSON_KIND_MAX];
    size_t n = 0;
    char list[256] = "use";
    for (const struct lesson_kind *row; n < LESSON_KIND_MAX && (row = lesson_kind_at(n)); n++) {
        names[n] = row->name;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"", n ? ", " : " ", row->name);
    }
    strncat(list, ".", sizeof list - strlen(list) - 1);
    char why[300];
    load_diag(ld, k, 0, "step kind \"%s\" is not known; %s", k->valuestring,
              load_suggest(why, sizeof why, k->valuestring, names, n, list));
    return NULL;
}

static void load_step(struct load *ld, const cJSON *obj, struct lesson_step *step)
{
    const struct lesson_kind *kind = load_step_kind(ld, obj);
    /* One table for the whole step: the common keys, then the kind's own. With no usable kind,
       only the common keys are checked and the kind's own keys are named by load_kind_hint. */
    struct load_field fields[LOAD_STEP_MAX_FIELDS];
    size_t nfields = STEP_NCOMMON, nbase = 0;
    memcpy(fields, load_step_common, sizeof load_step_common);
    const struct lesson_kind *base = kind ? kind->base : NULL;
    for (size_t i = 0; base && i < base->nfields && nfields < LOAD_STEP_MAX_FIELDS; i++, nbase++)
        fields[nfields++] = base->fields[i];
    for (size_t i = 0; kind && i < kind->nfields && nfields < LOAD_STEP_MAX_FIELDS; i++)
        fields[nfields++] = kind->fields[i];
    const cJSON *f[LOAD_STEP_MAX_FIELDS];
    load_fields(ld, obj, fields, nfields, "a step", load_kind_hint, f);
    step->kind = kind ? kind : &lesson_kind_text;
    step->id = load_strdup(ld, f[STEP_ID] ? f[STEP_ID]->valuestring : "");
    step->title = load_strdup(ld, f[STEP_TITLE] ? f[STEP_TITLE]->valuestring : "");
    step->text = load_text(ld, f[STEP_TEXT]);
    if (base && base->parse)
        base->parse(ld, f + STEP_NCOMMON, step);
    if (kind && kind->parse)
        kind->parse(ld, f + STEP_NCOMMON + nbase, step);
}

enum { LESSON_ID, LESSON_TITLE, LESSON_SUMMARY, LESSON_STEPS, LESSON_SCHEMA, LESSON_NFIELDS };
static const struct load_field load_lesson_fields[] = {
    [LESSON_ID] = {"id", LOAD_STRING, 1},
    [LESSON_TITLE] = {"title", LOAD_STRING, 1},
    [LESSON_SUMMARY] = {"summary", LOAD_STRING, 1},
    [LESSON_STEPS] = {"steps", LOAD_ARRAY, 1},
    /* For editors: the JSON Schema the file follows (assets/schema/); iolab ignores it. */
    [LESSON_SCHEMA] = {"$schema", LOAD_STRING, 0},
};

static void load_lesson(struct load *ld, struct load_file *file, const char *id, struct lesson *l)
{
    const cJSON *f[LESSON_NFIELDS];
    ld->file = file;
    l->file = load_strdup(ld, file->path);
    load_fields(ld, file->root, load_lesson_fields, LESSON_NFIELDS, "a lesson", NULL, f);
    l->id = load_strdup(ld, id);
    if (f[LESSON_ID] && strcmp(f[LESSON_ID]->valuestring, id))
        load_diag(ld, f[LESSON_ID], 0,
                  "lesson id \"%s\" differs from its file name %s.json; make them the same.",
                  f[LESSON_ID]->valuestring, id);
    l->title = load_strdup(ld, f[LESSON_TITLE] ? f[LESSON_TITLE]->valuestring : "");
    l->summary = load_strdup(ld, f[LESSON_SUMMARY] ? f[LESSON_SUMMARY]->valuestring : "");
    if (!f[LESSON_STEPS])
        return;
    size_t n = (size_t)cJSON_GetArraySize(f[LESSON_STEPS]);
    if (!n) {
        load_diag(ld, f[LESSON_STEPS], 0, "\"steps\" is empty; a lesson needs at least one step.");
        return;
    }
    l->steps = calloc(n, sizeof *l->steps);
    const cJSON **ids = calloc(n, sizeof *ids);
    if (!l->steps || !ids) {
        ld->nomem = 1;
        free(ids);
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, f[LESSON_STEPS])
    {
        size_t i = l->nsteps++;
        load_step(ld, obj, &l->steps[i]);
        const cJSON *sid = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "id") : NULL;
        if (cJSON_IsString(sid) && sid->valuestring[0] && load_id(ld, sid, "step") &&
            !load_dup(ld, sid, ids, i, "step id", "this lesson"))
            ids[i] = sid;
    }
    free(ids);
}

enum {
    PACK_FORMAT,
    PACK_ID,
    PACK_TITLE,
    PACK_VERSION,
    PACK_LESSONS,
    PACK_SCHEMA,
    PACK_BUILD,
    PACK_NFIELDS
};
static const struct load_field load_pack_fields[] = {
    [PACK_FORMAT] = {"format_version", LOAD_INT, 1},
    [PACK_ID] = {"id", LOAD_STRING, 1},
    [PACK_TITLE] = {"title", LOAD_STRING, 1},
    [PACK_VERSION] = {"version", LOAD_STRING, 1},
    [PACK_LESSONS] = {"lessons", LOAD_STRINGS, 1},
    /* For editors: the JSON Schema the file follows (assets/schema/); iolab ignores it. */
    [PACK_SCHEMA] = {"$schema", LOAD_STRING, 0},
    [PACK_BUILD] = {"build", LOAD_ARRAY, 0},
};

/* ---- programs the pack builds (pack.json "build") ------------------------------------------- */

enum { BUILD_PROGRAM, BUILD_SOURCES, BUILD_COMMAND, BUILD_NFIELDS };
static const struct load_field load_build_fields[] = {
    [BUILD_PROGRAM] = {"program", LOAD_STRING, 1},
    [BUILD_SOURCES] = {"sources", LOAD_STRINGS, 1},
    [BUILD_COMMAND] = {"command", LOAD_STRINGS, 0},
};

/* Where an item of the current file starts. */
static void load_item_pos(struct load *ld, const cJSON *item, int *line, int *col)
{
    struct load_file *f = ld->file;
    size_t off = 0;
    for (size_t i = 0; i < f->nitems && i < f->pos.n; i++)
        if (f->items[i] == item)
            off = f->pos.v[i].value;
    lesson_pos_linecol(f->text, f->len, off, line, col);
}

/* The build's sources: files of the pack in one directory, at least one of them C. */
static void load_build_sources(struct load *ld, const cJSON *arr, struct lesson_build *b)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), dirlen = 0;
    const char *first = NULL;
    b->files = calloc(n + 1, sizeof *b->files);
    b->sources = calloc(n + 1, sizeof *b->sources);
    if (!b->files || !b->sources) {
        ld->nomem = 1;
        return;
    }
    const cJSON *v;
    bool any_c = false;
    cJSON_ArrayForEach(v, arr)
    {
        const char *rel = load_pack_rel(v->valuestring);
        size_t rl = strlen(rel);
        any_c |= rl > 2 && !strcmp(rel + rl - 2, ".c");
        if (!load_inside_pack(rel)) {
            load_diag(ld, v, 0,
                      "source \"%s\" must be a file inside the pack, such as "
                      "\"tools/server.c\".",
                      v->valuestring);
            continue;
        }
        const char *slash = strrchr(rel, '/');
        size_t dl = slash ? (size_t)(slash - rel) : 0;
        if (!first) {
            first = rel;
            dirlen = dl;
        } else if (dl != dirlen || strncmp(rel, first, dl)) {
            load_diag(ld, v, 0,
                      "source \"%s\" is not in %.*s/, where this program's first "
                      "source is; keep one program's sources in one directory.",
                      rel, (int)dirlen, first);
            continue;
        }
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", ld->dir, rel);
        /* The build reads a source with iolab's rights: a link out of the pack would hand it a
           file the pack's author may not read (build.c refuses it too). */
        int fd = ld->opts && ld->opts->files ? -ENOENT : safeopen_beneath(ld->dir, rel, O_PATH);
        if (fd >= 0)
            close(fd);
        if (fd == -EXDEV) {
            char to[4096];
            safeopen_escape(ld->dir, rel, to, sizeof to);
            load_diag(ld, v, 0,
                      "source %s is a link that leads out of the pack%s%s%s; iolab does not "
                      "follow it: copy the file itself into the pack.",
                      rel, to[0] ? " (to " : "", to, to[0] ? ")" : "");
            continue;
        }
        if (fd == -EMLINK) {
            load_diag(ld, v, 0,
                      "source %s is a hard link (a second name of a file that may be anywhere); "
                      "iolab does not read it: copy the file itself into the pack.",
                      rel);
            continue;
        }
        if (!(ld->opts && ld->opts->files) && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) {
            load_diag(ld, v, 0, "source %s is not a file of this pack; add it or fix the name.",
                      rel);
            continue;
        }
        const char *base = slash ? slash + 1 : rel;
        b->files[b->nfiles++] = load_strdup(ld, base);
        size_t bl = strlen(base);
        if (bl > 2 && !strcmp(base + bl - 2, ".c"))
            b->sources[b->nsources++] = load_strdup(ld, base);
    }
    if (cJSON_GetArraySize(arr) && !any_c)
        load_diag(ld, arr, 0,
                  "no source of \"%s\" is a .c file; list the C files to compile "
                  "(headers may be listed too).",
                  b->program);
    if (asprintf(&b->src_dir, "%s%s%.*s", ld->dir, dirlen ? "/" : "", (int)dirlen,
                 first ? first : "") < 0) {
        b->src_dir = NULL;
        ld->nomem = 1;
    }
}

/* The compiler command: {out} required, only {out}, {sources} and {include} as placeholders. */
static void load_build_command(struct load *ld, const cJSON *arr, struct lesson_build *b)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), k = 0;
    int out = 0;
    if (!n) {
        load_diag(ld, arr, 0,
                  "\"command\" is empty; give the compiler and its arguments, or "
                  "leave the key out for the default.");
        return;
    }
    b->command = calloc(n + 1, sizeof *b->command);
    if (!b->command) {
        ld->nomem = 1;
        return;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        out |= !strcmp(v->valuestring, "{out}");
        const char *s = strchr(v->valuestring, '{');
        size_t len = s ? strspn(s + 1, "abcdefghijklmnopqrstuvwxyz") : 0;
        if (s && len && s[1 + len] == '}' && strncmp(s, "{out}", 5) && strncmp(s, "{sources}", 9) &&
            strncmp(s, "{include}", 9))
            load_diag(ld, v, 0,
                      "%.*s is not a placeholder of a build command; use {out}, "
                      "{sources} or {include}.",
                      (int)len + 2, s);
        b->command[k++] = load_strdup(ld, v->valuestring);
    }
    if (!out)
        load_diag(ld, arr, 0,
                  "the build command must name its output as {out} (and its "
                  "sources as {sources}).");
}

static void load_pack_builds(struct load *ld, const cJSON *arr, struct lesson_pack *pack)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    pack->builds = calloc(n + 1, sizeof *pack->builds);
    char *real = ld->opts && ld->opts->files ? NULL : realpath(ld->dir, NULL);
    if (!pack->builds) {
        ld->nomem = 1;
        free(real);
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[BUILD_NFIELDS];
        struct lesson_build *b = &pack->builds[pack->nbuilds];
        load_fields(ld, obj, load_build_fields, BUILD_NFIELDS, "a build entry", NULL, f);
        if (!f[BUILD_PROGRAM])
            continue;
        const char *rel = load_pack_rel(f[BUILD_PROGRAM]->valuestring);
        if (!load_inside_pack(rel)) {
            load_diag(ld, f[BUILD_PROGRAM], 0,
                      "program \"%s\" must be a path inside the pack, "
                      "such as \"tools/slow-server\".",
                      f[BUILD_PROGRAM]->valuestring);
            continue;
        }
        size_t k = 0;
        while (k < pack->nbuilds && strcmp(pack->builds[k].program, rel))
            k++;
        if (k < pack->nbuilds) {
            load_diag(ld, f[BUILD_PROGRAM], 0,
                      "program \"%s\" is built twice in \"build\"; "
                      "keep one entry.",
                      rel);
            continue;
        }
        pack->nbuilds++;
        b->program = load_strdup(ld, rel);
        if (asprintf(&b->path, "%s/%s", real ? real : ld->dir, rel) < 0) {
            b->path = NULL;
            ld->nomem = 1;
        }
        b->file = load_strdup(ld, ld->file->path);
        load_item_pos(ld, obj, &b->line, &b->col);
        load_build_sources(ld, f[BUILD_SOURCES], b);
        if (f[BUILD_COMMAND])
            load_build_command(ld, f[BUILD_COMMAND], b);
    }
    free(real);
}

/* Reports lesson files in dir that pack.json does not list (see the policy at the top). */
static void load_unlisted(struct load *ld, const char *dir, const cJSON *lessons)
{
    struct dirent **names = NULL;
    /* Sorted, so that the report does not depend on the directory's order. A pack in memory
     * has no directory: its files are exactly those it was given. */
    int n = ld->opts && ld->opts->files ? 0 : scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        size_t len = strlen(name);
        int listed = len <= 5 || strcmp(name + len - 5, ".json") || !strcmp(name, "pack.json") ||
                     name[0] == '.';
        const cJSON *v;
        cJSON_ArrayForEach(v, lessons)
        {
            listed |= cJSON_IsString(v) && strlen(v->valuestring) == len - 5 &&
                      !strncmp(v->valuestring, name, len - 5);
        }
        char *path = NULL;
        if (!listed && asprintf(&path, "%s/%s", dir, name) < 0)
            ld->nomem = 1;
        else if (!listed)
            load_diag_file(ld, path,
                           "this lesson file is not listed in pack.json; add \"%.*s\" to "
                           "\"lessons\" or move the file out of the pack.",
                           (int)(len - 5), name);
        free(path);
        free(names[i]);
    }
    free(names);
}

/* pack.json's own fields into the pack (format, id, title, version); f gets its fields. */
static void load_pack_header(struct load *ld, struct load_file *packf, struct lesson_pack *pack,
                             const cJSON **f)
{
    load_fields(ld, packf->root, load_pack_fields, PACK_NFIELDS, "pack.json", NULL, f);
    if (f[PACK_FORMAT]) {
        /* Any number may stand here: one out of int's range is judged as a double, never cast. */
        double v = f[PACK_FORMAT]->valuedouble;
        pack->format_version = v > LESSON_FORMAT_VERSION ? LESSON_FORMAT_VERSION + 1
                               : v >= 1                  ? (int)v
                                                         : 0;
        if (v > LESSON_FORMAT_VERSION)
            load_diag(
                ld, f[PACK_FORMAT], 0,
                "this pack is written for format %.15g but this iolab reads format %d; update "
                "iolab.",
                v, LESSON_FORMAT_VERSION);
        else if (pack->format_version < 1)
            load_diag(ld, f[PACK_FORMAT], 0, "\"format_version\" must be %d; change it.",
                      LESSON_FORMAT_VERSION);
    }
    pack->id = load_strdup(ld, load_id(ld, f[PACK_ID], "pack") ? f[PACK_ID]->valuestring : "");
    pack->title = load_strdup(ld, f[PACK_TITLE] ? f[PACK_TITLE]->valuestring : "");
    pack->version = load_strdup(ld, f[PACK_VERSION] ? f[PACK_VERSION]->valuestring : "");
    ld->pack = pack;
    if (f[PACK_BUILD])
        load_pack_builds(ld, f[PACK_BUILD], pack);
}

/* Every lesson pack.json lists, each from its own file (kept open in files[] for positions). */
static void load_pack_lessons(struct load *ld, const char *dir, struct load_file *packf,
                              const cJSON *lessons, struct lesson_pack *pack,
                              struct load_file *files)
{
    size_t n = lessons ? (size_t)cJSON_GetArraySize(lessons) : 0;
    const cJSON **ids = calloc(n + 1, sizeof *ids);
    if (!ids) {
        ld->nomem = 1;
        return;
    }
    size_t i = 0;
    for (const cJSON *v = lessons ? lessons->child : NULL; v; v = v->next, i++) {
        ld->file = packf;
        if (!load_id(ld, v, "lesson") || load_dup(ld, v, ids, i, "lesson", "pack.json"))
            continue;
        ids[i] = v;
        char name[LOAD_MAX_ID + 8];
        snprintf(name, sizeof name, "%s.json", v->valuestring);
        int frc = load_file_open(ld, dir, name, &files[i]);
        if (frc == -ENOENT) {
            ld->file = packf;
            load_diag(ld, v, 0,
                      "lesson \"%s\" has no file %s in this pack; create it or remove "
                      "\"%s\" from \"lessons\".",
                      v->valuestring, name, v->valuestring);
        }
        if (frc < 0)
            continue;
        load_lesson(ld, &files[i], v->valuestring, &pack->lessons[pack->nlessons++]);
    }
    free(ids);
}

int lesson_pack_load(const char *dir, const struct lesson_load_options *opts,
                     struct lesson_pack **out, struct lesson_diags *diags)
{
    struct load ld = {.opts = opts, .dir = dir, .diags = diags};
    struct load_file packf = {0}, *files = NULL;
    size_t first_diag = diags->n, nfiles = 0;
    int rc = 0;
    *out = NULL;
    struct lesson_pack *pack = calloc(1, sizeof *pack);
    if (!pack)
        return -ENOMEM;
    pack->dir = load_strdup(&ld, dir);
    struct stat st;
    if (!(opts && opts->files) && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
        rc = stat(dir, &st) < 0 ? -errno : -ENOTDIR;
        load_diag_file(&ld, dir, "cannot open this pack directory (%s); check the path.",
                       strerror(-rc));
        goto out;
    }
    rc = load_file_open(&ld, dir, "pack.json", &packf);
    if (rc == -ENOENT)
        load_diag_file(&ld, packf.path ? packf.path : dir,
                       "this pack has no pack.json; a pack directory needs one (see "
                       "lessons/README.md).");
    if (rc < 0) {
        /* The directory was readable: what is wrong is the pack's content. */
        rc = rc == -ENOMEM ? rc : -EINVAL;
        goto out;
    }
    const cJSON *f[PACK_NFIELDS];
    load_pack_header(&ld, &packf, pack, f);
    size_t n = f[PACK_LESSONS] ? (size_t)cJSON_GetArraySize(f[PACK_LESSONS]) : 0;
    if (f[PACK_LESSONS] && !n)
        load_diag(&ld, f[PACK_LESSONS], 0, "\"lessons\" is empty; list at least one lesson id.");
    pack->lessons = calloc(n + 1, sizeof *pack->lessons);
    files = calloc(n + 1, sizeof *files);
    if (!pack->lessons || !files) {
        ld.nomem = 1;
        goto out;
    }
    nfiles = n;
    load_pack_lessons(&ld, dir, &packf, f[PACK_LESSONS], pack, files);
    load_unlisted(&ld, dir, f[PACK_LESSONS]);
    rc = 0;
out:
    load_file_close(&packf);
    for (size_t k = 0; k < nfiles; k++)
        load_file_close(&files[k]);
    free(files);
    if (ld.nomem) {
        load_diag_file(&ld, dir, "out of memory while loading this pack.");
        rc = -ENOMEM;
    }
    load_sort_diags(diags, first_diag);
    if (rc == 0 && ld.problems)
        rc = -EINVAL;
    if (rc < 0) {
        lesson_pack_free(pack);
        return rc;
    }
    *out = pack;
    return 0;
}

int lesson_pack_load_mem(const char *name, const struct lesson_mem_file *files, size_t nfiles,
                         const struct lesson_load_options *opts, struct lesson_pack **out,
                         struct lesson_diags *diags)
{
    struct lesson_load_options o = opts ? *opts : (struct lesson_load_options){0};
    /* A pack of no files is still "in memory": it must not fall back to reading a directory. */
    static const struct lesson_mem_file none = {.name = "", .data = "", .len = 0};
    o.files = nfiles ? files : &none;
    o.nfiles = nfiles;
    return lesson_pack_load(name, &o, out, diags);
}
