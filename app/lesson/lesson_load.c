/*
 * lesson_load: reads a pack directory into the lesson model, checking everything an instructor
 * can get wrong, and reporting every problem (not only the first) as `file:line:col: message`.
 *
 * The only code that touches cJSON. Each file is parsed whole, then walked in pre-order next to a
 * position index built by lesson_pos over the same text, so that any cJSON item can be named by
 * line and column. What each JSON object may contain is data: a const table of fields per
 * object (name, type, required), checked by one function before the values are copied into the
 * model. Step kinds are a table too ({kind, fields, parse}), so a quiz kind is a new row.
 *
 * Policy: a lesson file in the directory that pack.json does not list is an error, not a
 * warning: it is almost always a lesson the instructor meant to ship and forgot to list, and lint
 * exists to catch exactly that. Drafts belong outside the pack directory.
 *
 * Invariant: the model is built while validating; when any diagnostic was added the half-built
 * pack is freed and the caller gets only the diagnostics.
 */
#include "lesson.h"

#include "check.h"
#include "fileread.h"
#include "jsontext.h"
#include "lesson_pos.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOAD_MAX_FILE_BYTES  (1 << 20) /* a lesson file this large is a mistake */
#define LOAD_MAX_ID          40
#define LOAD_MAX_FILE_SIZE   (1ull << 30) /* scenario files live in memory (tmpfs) */
#define LOAD_MAX_SECONDS     3600
#define LOAD_DEFAULT_SECONDS 10
#define LOAD_MAX_CANDIDATES  256
#define LOAD_DEFAULT_PATH    "/usr/local/bin:/usr/bin:/bin"

/* One JSON file under validation. */
struct load_file {
    char *path; /* as diagnostics name it: DIR/NAME */
    char *text; /* NUL-terminated */
    size_t len;
    cJSON *root;
    const cJSON **items; /* pre-order walk of root, parallel to pos.v */
    size_t nitems;
    struct lesson_pos pos;
};

struct load {
    const struct lesson_load_options *opts;
    struct lesson_diags *diags;
    struct load_file *file; /* the file being validated */
    size_t problems;        /* diagnostics added by this load */
    int nomem;              /* set when an allocation failed: the result cannot be trusted */
    int bad_role;           /* a program of the current step has an unknown role */
};

enum load_type {
    LOAD_STRING,  /* a non-empty string */
    LOAD_TEXT,    /* a string, or an array of strings joined with newlines */
    LOAD_STRINGS, /* an array of strings */
    LOAD_ARRAY,   /* an array of objects, checked element by element */
    LOAD_INT,
    LOAD_NUMBER,
    LOAD_BOOL,
    LOAD_SIZE, /* 65536 or "64K" */
};

static const char *const load_type_names[] = {
    [LOAD_STRING] = "a string",
    [LOAD_TEXT] = "a string or an array of strings",
    [LOAD_STRINGS] = "an array of strings",
    [LOAD_ARRAY] = "an array",
    [LOAD_INT] = "a whole number",
    [LOAD_NUMBER] = "a number",
    [LOAD_BOOL] = "true or false",
    [LOAD_SIZE] = "a size such as 65536 or \"64M\"",
};

struct load_field {
    const char *name;
    enum load_type type;
    int required;
};

/* ---- diagnostics ---------------------------------------------------------------------------- */

static char *load_strdup(struct load *ld, const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        ld->nomem = 1;
    return d;
}

static void load_vdiag(struct load *ld, const char *file, int line, int col, const char *fmt,
                       va_list ap)
{
    struct lesson_diags *d = ld->diags;
    ld->problems++;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        struct lesson_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            ld->nomem = 1;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0 || !(file = load_strdup(ld, file))) {
        free(msg);
        ld->nomem = 1;
        return;
    }
    d->v[d->n++] =
        (struct lesson_diag){.file = (char *)file, .line = line, .col = col, .message = msg};
}

static __attribute__((format(printf, 5, 6))) void
load_diag_at(struct load *ld, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    load_vdiag(ld, file, line, col, fmt, ap);
    va_end(ap);
}

/* A problem with a whole file is reported at its first character. */
#define load_diag_file(ld, file, ...) load_diag_at(ld, file, 1, 1, __VA_ARGS__)

/* Reports a problem at an item of the current file: at its key when at_key and it has one. */
static __attribute__((format(printf, 4, 5))) void load_diag(struct load *ld, const cJSON *item,
                                                            int at_key, const char *fmt, ...)
{
    struct load_file *f = ld->file;
    size_t off = 0;
    for (size_t i = 0; item && i < f->nitems && i < f->pos.n; i++)
        if (f->items[i] == item) {
            off =
                at_key && f->pos.v[i].key != LESSON_POS_NOKEY ? f->pos.v[i].key : f->pos.v[i].value;
            break;
        }
    int line, col;
    lesson_pos_linecol(f->text, f->len, off, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    load_vdiag(ld, f->path, line, col, fmt, ap);
    va_end(ap);
}

/* Line of an item, for "first defined at line N". */
static int load_line(struct load *ld, const cJSON *item)
{
    struct load_file *f = ld->file;
    int line = 1, col;
    for (size_t i = 0; i < f->nitems && i < f->pos.n; i++)
        if (f->items[i] == item)
            lesson_pos_linecol(f->text, f->len, f->pos.v[i].value, &line, &col);
    return line;
}

/* pack.json first, then the other files in the order they were read. */
static size_t load_file_rank(const struct lesson_diags *d, size_t from, const char *file)
{
    size_t len = strlen(file);
    if (len >= 9 && !strcmp(file + len - 9, "pack.json") && (len == 9 || file[len - 10] == '/'))
        return 0;
    size_t i = from;
    while (strcmp(d->v[i].file, file))
        i++;
    return i + 1;
}

static int load_diag_before(const struct lesson_diags *d, size_t from, const struct lesson_diag *a,
                            const struct lesson_diag *b)
{
    size_t ra = load_file_rank(d, from, a->file), rb = load_file_rank(d, from, b->file);
    if (ra != rb)
        return ra < rb;
    return a->line < b->line || (a->line == b->line && a->col < b->col);
}

/* Diagnostics by file, then by position, so lint reads top to bottom (a stable sort). */
static void load_sort_diags(struct lesson_diags *d, size_t from)
{
    size_t n = d->n - from;
    if (n < 2)
        return;
    struct lesson_diag *orig = malloc(n * sizeof *orig);
    if (!orig)
        return;
    memcpy(orig, d->v + from, n * sizeof *orig);
    /* Ranks are computed on the original order, hence the copy. */
    struct lesson_diags o = {.v = orig, .n = n};
    size_t *idx = malloc(n * sizeof *idx);
    if (!idx) {
        free(orig);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && load_diag_before(&o, 0, &orig[i], &orig[idx[j - 1]])) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    for (size_t i = 0; i < n; i++)
        d->v[from + i] = orig[idx[i]];
    free(idx);
    free(orig);
}

/* ---- "did you mean" ------------------------------------------------------------------------- */

/* Edit distance with adjacent transpositions, so "nmae" is one step from "name". */
static size_t load_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The candidate closest to word when it is close enough to be a likely typo, else NULL. */
static const char *load_closest(const char *word, const char *const *cands, size_t n)
{
    size_t len = strlen(word);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = load_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    return best;
}

/* "; did you mean 'x'?" or the fallback advice, as one clause to end a sentence with. */
static const char *load_suggest(char *buf, size_t len, const char *word, const char *const *cands,
                                size_t n, const char *otherwise)
{
    const char *c = load_closest(word, cands, n);
    if (c)
        snprintf(buf, len, "did you mean \"%s\"?", c);
    else
        snprintf(buf, len, "%s", otherwise);
    return buf;
}

/* ---- values --------------------------------------------------------------------------------- */

static const char *load_json_type(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

static int load_is_int(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 1e15;
}

/* An array of strings: 1; not an array: 0; an array with other things in it: -1, reported. */
static int load_strings_ok(struct load *ld, const cJSON *v, const char *name)
{
    if (!cJSON_IsArray(v))
        return 0;
    int ok = 1;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e)) {
            load_diag(ld, e, 0, "each entry of \"%s\" must be a string, not %s; quote it.", name,
                      load_json_type(e));
            ok = -1;
        }
    }
    return ok;
}

/* Whether v has the type t; for arrays of strings, reports each element that is not one. */
static int load_type_ok(struct load *ld, const cJSON *v, const char *name, enum load_type t)
{
    switch (t) {
    case LOAD_STRING:
        return cJSON_IsString(v);
    case LOAD_INT:
        return load_is_int(v);
    case LOAD_NUMBER:
        return cJSON_IsNumber(v);
    case LOAD_BOOL:
        return cJSON_IsBool(v);
    case LOAD_SIZE:
        return cJSON_IsNumber(v) || cJSON_IsString(v);
    case LOAD_ARRAY:
        return cJSON_IsArray(v);
    case LOAD_TEXT:
        return cJSON_IsString(v) ? 1 : load_strings_ok(ld, v, name);
    case LOAD_STRINGS:
        return load_strings_ok(ld, v, name);
    }
    return 0;
}

/*
 * Checks obj against a field table: it is an object, every key is known and appears once, every
 * value has its field's type, every required field is present. out[i] is the value of field i
 * when present and well typed, else NULL. hint, when given, explains a key that another kind of
 * object would accept. Returns the number of problems.
 */
static size_t load_fields(struct load *ld, const cJSON *obj, const struct load_field *fields,
                          size_t nfields, const char *what, const char *(*hint)(const char *key),
                          const cJSON **out)
{
    size_t before = ld->problems;
    for (size_t i = 0; i < nfields; i++)
        out[i] = NULL;
    if (!cJSON_IsObject(obj)) {
        load_diag(ld, obj, 0, "%s must be an object {...}, not %s; wrap its fields in braces.",
                  what, load_json_type(obj));
        return ld->problems - before;
    }
    const char *names[LOAD_MAX_CANDIDATES];
    size_t nnames = 0;
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].name && nnames < LOAD_MAX_CANDIDATES)
            names[nnames++] = fields[i].name;
    const cJSON *v;
    cJSON_ArrayForEach(v, obj)
    {
        size_t i = 0;
        while (i < nfields && !(fields[i].name && !strcmp(fields[i].name, v->string)))
            i++;
        if (i == nfields) {
            const char *other = hint ? hint(v->string) : NULL;
            char why[128];
            if (other)
                load_diag(ld, v, 1,
                          "\"%s\" belongs to %s steps; set \"kind\": \"%s\" or remove it.",
                          v->string, other, other);
            else
                load_diag(ld, v, 1, "%s has no key \"%s\"; %s", what, v->string,
                          load_suggest(why, sizeof why, v->string, names, nnames,
                                       "remove it or check its spelling."));
            continue;
        }
        int dup = 0;
        for (const cJSON *p = obj->child; p != v; p = p->next)
            dup |= !strcmp(p->string, v->string);
        if (dup) {
            load_diag(ld, v, 1, "\"%s\" appears twice in %s; keep one.", v->string, what);
            continue;
        }
        int ok = load_type_ok(ld, v, v->string, fields[i].type);
        if (ok == 0)
            load_diag(ld, v, 0, "\"%s\" must be %s, not %s; change its value.", v->string,
                      load_type_names[fields[i].type], load_json_type(v));
        else if (ok > 0 && fields[i].type == LOAD_STRING && !v->valuestring[0])
            load_diag(ld, v, 0, "\"%s\" is empty; write something there or remove it.", v->string);
        else if (ok > 0)
            out[i] = v;
    }
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].name && fields[i].required &&
            !cJSON_GetObjectItemCaseSensitive(obj, fields[i].name))
            load_diag(ld, obj, 0, "%s has no \"%s\"; add it.", what, fields[i].name);
    return ld->problems - before;
}

static char *load_text(struct load *ld, const cJSON *v)
{
    if (!v)
        return NULL;
    if (cJSON_IsString(v))
        return load_strdup(ld, v->valuestring);
    size_t len = 1;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) len += strlen(e->valuestring) + 1;
    char *s = malloc(len), *p = s;
    if (!s) {
        ld->nomem = 1;
        return NULL;
    }
    cJSON_ArrayForEach(e, v)
    {
        size_t n = strlen(e->valuestring);
        memcpy(p, e->valuestring, n);
        p += n;
        *p++ = '\n';
    }
    if (p > s)
        p--; /* no newline after the last line */
    *p = '\0';
    return s;
}

static char **load_strv(struct load *ld, const cJSON *v, size_t *n)
{
    *n = v ? (size_t)cJSON_GetArraySize(v) : 0;
    if (!*n)
        return NULL;
    char **out = calloc(*n, sizeof *out);
    if (!out) {
        ld->nomem = 1;
        *n = 0;
        return NULL;
    }
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) out[i++] = load_strdup(ld, e->valuestring);
    return out;
}

static int load_id_ok(const char *s)
{
    if (!s[0] || strlen(s) > LOAD_MAX_ID ||
        !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
            return 0;
    return 1;
}

/* Checks an id's syntax; returns it when valid, else NULL (and reports). */
static const char *load_id(struct load *ld, const cJSON *v, const char *what)
{
    if (!v)
        return NULL;
    if (!load_id_ok(v->valuestring)) {
        load_diag(ld, v, 0,
                  "%s id \"%s\" is not valid; use up to %d lowercase letters, digits, '-' and "
                  "'_', starting with a letter or digit.",
                  what, v->valuestring, LOAD_MAX_ID);
        return NULL;
    }
    return v->valuestring;
}

/* Reports v when an earlier item in seen[0..n) has the same string; returns whether it did. */
static int load_dup(struct load *ld, const cJSON *v, const cJSON *const *seen, size_t n,
                    const char *what, const char *scope)
{
    for (size_t i = 0; i < n; i++)
        if (seen[i] && !strcmp(seen[i]->valuestring, v->valuestring)) {
            load_diag(ld, v, 0, "%s \"%s\" is used twice in %s (first at line %d); rename one.",
                      what, v->valuestring, scope, load_line(ld, seen[i]));
            return 1;
        }
    return 0;
}

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
 * Only a regular file is read (links followed), never waiting on it: a FIFO would block for ever.
 */
static int load_file_read(struct load *ld, const char *name, struct load_file *f)
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
        rc = fileread_regular(f->path, LOAD_MAX_FILE_BYTES, &f->text, &f->len, &mode);
    }
    if (rc == -EINVAL)
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
    int rc = load_file_read(ld, name, f);
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

/* ---- programs and arguments ----------------------------------------------------------------- */

static int load_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The absolute path of a program as a lesson names it (see lesson.h), or NULL. */
static char *load_find_program(struct load *ld, const char *prog)
{
    char path[4096];
    if (strchr(prog, '/'))
        return prog[0] == '/' && load_executable(prog) ? load_strdup(ld, prog) : NULL;
    if (ld->opts && ld->opts->libexec_dir) {
        snprintf(path, sizeof path, "%s/%s", ld->opts->libexec_dir, prog);
        if (load_executable(path))
            return load_strdup(ld, path);
    }
    const char *env = getenv("PATH");
    char *dirs = load_strdup(ld, env && *env ? env : LOAD_DEFAULT_PATH), *save = NULL;
    char *found = NULL;
    for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        /* A relative PATH entry would depend on where iolab was started: ignore it. */
        if (d[0] != '/')
            continue;
        snprintf(path, sizeof path, "%s/%s", d, prog);
        if (load_executable(path))
            found = load_strdup(ld, path);
    }
    free(dirs);
    return found;
}

static void load_program_missing(struct load *ld, const cJSON *v)
{
    const char *prog = v->valuestring;
    if (strchr(prog, '/') && prog[0] != '/') {
        load_diag(ld, v, 0,
                  "program \"%s\" is a relative path; use a demo name, a command in PATH or an "
                  "absolute path.",
                  prog);
        return;
    }
    if (strchr(prog, '/')) {
        load_diag(ld, v, 0, "program \"%s\" does not exist or is not executable; fix the path.",
                  prog);
        return;
    }
    /* Suggest among the demos, the likeliest thing a lesson meant. */
    char *names[LOAD_MAX_CANDIDATES];
    size_t n = 0;
    DIR *d = ld->opts && ld->opts->libexec_dir ? opendir(ld->opts->libexec_dir) : NULL;
    for (struct dirent *e; d && n < LOAD_MAX_CANDIDATES && (e = readdir(d));)
        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
            n++;
    if (d)
        closedir(d);
    char why[160];
    load_diag(ld, v, 0, "program \"%s\" is neither an iolab demo nor a command in PATH; %s", prog,
              load_suggest(why, sizeof why, prog, (const char *const *)names, n,
                           "fix the name, build the demos, or install the command."));
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

static const char *const load_placeholders[] = {LESSON_PLACEHOLDERS};
#define LOAD_NPLACEHOLDERS (sizeof load_placeholders / sizeof *load_placeholders)

/* Reports every {name} in the argument strings of array v that is not a known placeholder. */
static void load_placeholders_check(struct load *ld, const cJSON *v)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e))
            continue;
        for (const char *s = strchr(e->valuestring, '{'); s; s = strchr(s + 1, '{')) {
            size_t n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz_0123456789");
            /* Only {word} is a placeholder; other braces (JSON, shell) pass through as text. */
            if (!n || s[1 + n] != '}' || n >= 64)
                continue;
            char name[64];
            memcpy(name, s + 1, n);
            name[n] = '\0';
            size_t k = 0;
            while (k < LOAD_NPLACEHOLDERS && strcmp(name, load_placeholders[k]))
                k++;
            if (k < LOAD_NPLACEHOLDERS)
                continue;
            const char *c = load_closest(name, load_placeholders, LOAD_NPLACEHOLDERS);
            if (c)
                load_diag(ld, e, 0, "{%s} is not a placeholder; did you mean {%s}?", name, c);
            else
                load_diag(ld, e, 0,
                          "{%s} is not a placeholder; use {port}, {host}, {workdir} or {seconds}.",
                          name);
        }
    }
}

/* ---- sizes ---------------------------------------------------------------------------------- */

static int load_size(struct load *ld, const cJSON *v, uint64_t *out)
{
    double bytes = -1;
    if (cJSON_IsNumber(v)) {
        bytes = load_is_int(v) ? v->valuedouble : -1;
    } else {
        static const struct {
            char suffix;
            double mult;
        } units[] = {{'\0', 1}, {'K', 1024.0}, {'M', 1048576.0}, {'G', 1073741824.0}};
        const char *s = v->valuestring;
        size_t digits = strspn(s, "0123456789");
        for (size_t u = 0; digits && digits < 16 && u < sizeof units / sizeof *units; u++)
            if (s[digits] == units[u].suffix && (!units[u].suffix || !s[digits + 1]))
                bytes = strtod(s, NULL) * units[u].mult;
    }
    if (bytes < 0) {
        load_diag(ld, v, 0,
                  "this is not a size; write a whole number of bytes (65536) or one with K, M or "
                  "G (\"64M\").");
        return -EINVAL;
    }
    if (bytes < 1 || bytes > (double)LOAD_MAX_FILE_SIZE) {
        load_diag(ld, v, 0, "a scenario file must have between 1 byte and 1G; change its size.");
        return -EINVAL;
    }
    *out = (uint64_t)bytes;
    return 0;
}

/* ---- run steps ------------------------------------------------------------------------------ */

enum { PROG_NAME, PROG_ROLE, PROG_PROGRAM, PROG_ARGS, PROG_READY, PROG_INTERACTIVE, PROG_NFIELDS };
static const struct load_field load_program_fields[] = {
    [PROG_NAME] = {"name", LOAD_STRING, 1},
    [PROG_ROLE] = {"role", LOAD_STRING, 1},
    [PROG_PROGRAM] = {"program", LOAD_STRING, 1},
    [PROG_ARGS] = {"args", LOAD_STRINGS, 0},
    [PROG_READY] = {"ready", LOAD_STRING, 0},
    [PROG_INTERACTIVE] = {"interactive", LOAD_BOOL, 0},
};

enum { MODE_ID, MODE_TITLE, MODE_TEXT, MODE_KEY, MODE_PROGRAM, MODE_ARGS, MODE_NFIELDS };
static const struct load_field load_mode_fields[] = {
    [MODE_ID] = {"id", LOAD_STRING, 1},           [MODE_TITLE] = {"title", LOAD_STRING, 1},
    [MODE_TEXT] = {"text", LOAD_TEXT, 0},         [MODE_KEY] = {"key", LOAD_STRING, 0},
    [MODE_PROGRAM] = {"program", LOAD_STRING, 1}, [MODE_ARGS] = {"args", LOAD_STRINGS, 0},
};

enum { FILE_NAME, FILE_SIZE, FILE_NFIELDS };
static const struct load_field load_file_fields[] = {
    [FILE_NAME] = {"name", LOAD_STRING, 1},
    [FILE_SIZE] = {"size", LOAD_SIZE, 1},
};

enum { CHECK_TEXT, CHECK_MODE, CHECK_METRIC, CHECK_ROLE, CHECK_MIN, CHECK_NFIELDS };
static const struct load_field load_check_fields[] = {
    [CHECK_TEXT] = {"text", LOAD_STRING, 1},     [CHECK_MODE] = {"mode", LOAD_STRING, 0},
    [CHECK_METRIC] = {"metric", LOAD_STRING, 1}, [CHECK_ROLE] = {"role", LOAD_STRING, 0},
    [CHECK_MIN] = {"min", LOAD_NUMBER, 1},
};

/* Field indices of a step; a kind's table holds the common ones and its own. */
enum {
    STEP_ID,
    STEP_TITLE,
    STEP_KIND,
    STEP_TEXT,
    RUN_PROGRAMS,
    RUN_MODES,
    RUN_DEFAULT_MODE,
    RUN_FILES,
    RUN_SECONDS,
    RUN_CHECKS,
    STEP_NFIELDS
};
#define LOAD_STEP_COMMON_FIELDS                                                                    \
    [STEP_ID] = {"id", LOAD_STRING, 1}, [STEP_TITLE] = {"title", LOAD_STRING, 1},                  \
    [STEP_KIND] = {"kind", LOAD_STRING, 1}, [STEP_TEXT] = {"text", LOAD_TEXT, 1}

static const struct load_field load_text_fields[STEP_NFIELDS] = {LOAD_STEP_COMMON_FIELDS};
static const struct load_field load_run_fields[STEP_NFIELDS] = {
    LOAD_STEP_COMMON_FIELDS,
    [RUN_PROGRAMS] = {"programs", LOAD_ARRAY, 1},
    [RUN_MODES] = {"modes", LOAD_ARRAY, 0},
    [RUN_DEFAULT_MODE] = {"default_mode", LOAD_STRING, 0},
    [RUN_FILES] = {"files", LOAD_ARRAY, 0},
    [RUN_SECONDS] = {"seconds", LOAD_NUMBER, 0},
    [RUN_CHECKS] = {"checks", LOAD_ARRAY, 0},
};

static int load_role(struct load *ld, const cJSON *v, enum lesson_role *out)
{
    const char *names[LESSON_NROLES];
    for (int r = 0; r < LESSON_NROLES; r++) {
        names[r] = lesson_role_name(r);
        if (!strcmp(v->valuestring, names[r])) {
            *out = r;
            return 0;
        }
    }
    char why[96];
    load_diag(ld, v, 0, "role \"%s\" is not known; %s", v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, names, LESSON_NROLES,
                           "use \"server\" or \"client\"."));
    return -EINVAL;
}

static void load_programs(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n) {
        load_diag(ld, arr, 0, "\"programs\" is empty; a run step needs at least one program.");
        return;
    }
    struct lesson_program *progs = calloc(n, sizeof *progs);
    const cJSON **names = calloc(n, sizeof *names);
    if (!progs || !names) {
        ld->nomem = 1;
        free(progs);
        free(names);
        return;
    }
    size_t i = 0;
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[PROG_NFIELDS];
        struct lesson_program *p = &progs[i];
        load_fields(ld, obj, load_program_fields, PROG_NFIELDS, "a program", NULL, f);
        if (load_id(ld, f[PROG_NAME], "program") &&
            !load_dup(ld, f[PROG_NAME], names, i, "program name", "this step"))
            names[i] = f[PROG_NAME];
        p->name = load_strdup(ld, f[PROG_NAME] ? f[PROG_NAME]->valuestring : "");
        if (f[PROG_ROLE] && load_role(ld, f[PROG_ROLE], &p->role) < 0)
            ld->bad_role = 1;
        if (f[PROG_PROGRAM]) {
            p->program = load_strdup(ld, f[PROG_PROGRAM]->valuestring);
            if (!(p->path = load_find_program(ld, p->program)))
                load_program_missing(ld, f[PROG_PROGRAM]);
        }
        if (f[PROG_ARGS])
            load_placeholders_check(ld, f[PROG_ARGS]);
        p->args = load_strv(ld, f[PROG_ARGS], &p->nargs);
        p->ready = f[PROG_READY] ? load_strdup(ld, f[PROG_READY]->valuestring) : NULL;
        p->interactive = f[PROG_INTERACTIVE] && cJSON_IsTrue(f[PROG_INTERACTIVE]);
        i++;
    }
    free(names);
    /* Servers first, each group in the order written: that is the order they start in. */
    sc->programs = calloc(n, sizeof *sc->programs);
    if (!sc->programs) {
        ld->nomem = 1;
        sc->programs = progs; /* freed with the scenario */
        sc->nprograms = n;
        return;
    }
    for (int role = 0; role < LESSON_NROLES; role++)
        for (size_t k = 0; k < n; k++)
            if ((int)progs[k].role == role)
                sc->programs[sc->nprograms++] = progs[k];
    free(progs);
}

static void load_modes(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n)
        return;
    sc->modes = calloc(n, sizeof *sc->modes);
    const cJSON **ids = calloc(n, sizeof *ids);
    const cJSON **keys = calloc(n, sizeof *keys);
    const char **prognames = calloc(sc->nprograms + 1, sizeof *prognames);
    if (!sc->modes || !ids || !keys || !prognames) {
        ld->nomem = 1;
        goto out;
    }
    for (size_t p = 0; p < sc->nprograms; p++)
        prognames[p] = sc->programs[p].name;
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[MODE_NFIELDS];
        size_t i = sc->nmodes++;
        struct lesson_mode *m = &sc->modes[i];
        load_fields(ld, obj, load_mode_fields, MODE_NFIELDS, "a mode", NULL, f);
        if (load_id(ld, f[MODE_ID], "mode") &&
            !load_dup(ld, f[MODE_ID], ids, i, "mode id", "this step"))
            ids[i] = f[MODE_ID];
        m->id = load_strdup(ld, f[MODE_ID] ? f[MODE_ID]->valuestring : "");
        m->title = load_strdup(ld, f[MODE_TITLE] ? f[MODE_TITLE]->valuestring : "");
        m->text = load_text(ld, f[MODE_TEXT]);
        if (f[MODE_KEY]) {
            const char *k = f[MODE_KEY]->valuestring;
            if (strlen(k) != 1 || k[0] <= ' ' || k[0] > '~')
                load_diag(ld, f[MODE_KEY], 0,
                          "a mode's key must be one printable character such as \"1\"; shorten "
                          "\"%s\".",
                          k);
            else if (!load_dup(ld, f[MODE_KEY], keys, i, "key", "this step's modes"))
                keys[i] = f[MODE_KEY];
            m->key = k[0];
        } else {
            /* Without a key, modes take the digits 1-9 in order. */
            m->key = i < 9 ? (char)('1' + i) : 0;
            if (!m->key)
                load_diag(ld, obj, 0, "this mode needs a \"key\": only the first nine get digits.");
        }
        if (f[MODE_PROGRAM]) {
            size_t p = 0;
            while (p < sc->nprograms && strcmp(sc->programs[p].name, f[MODE_PROGRAM]->valuestring))
                p++;
            if (p == sc->nprograms) {
                char why[128];
                load_diag(ld, f[MODE_PROGRAM], 0,
                          "mode \"%s\" changes program \"%s\", which this step does not have; %s",
                          m->id, f[MODE_PROGRAM]->valuestring,
                          load_suggest(why, sizeof why, f[MODE_PROGRAM]->valuestring, prognames,
                                       sc->nprograms, "name one of its programs."));
            }
            m->program = p;
        }
        if (f[MODE_ARGS])
            load_placeholders_check(ld, f[MODE_ARGS]);
        m->args = load_strv(ld, f[MODE_ARGS], &m->nargs);
    }
    /* Keys were checked one by one; a mode without an explicit key may still collide. */
    for (size_t i = 0; i < sc->nmodes; i++)
        for (size_t j = 0; j < i; j++)
            if (sc->modes[i].key && sc->modes[i].key == sc->modes[j].key && !(keys[i] && keys[j]))
                load_diag(ld,
                          keys[i]   ? keys[i]
                          : keys[j] ? keys[j]
                                    : arr,
                          0,
                          "modes \"%s\" and \"%s\" both use key '%c'; give each mode its own key.",
                          sc->modes[j].id, sc->modes[i].id, sc->modes[i].key);
out:
    free(ids);
    free(keys);
    free(prognames);
}

static void load_default_mode(struct load *ld, const cJSON *v, struct lesson_scenario *sc)
{
    if (!v)
        return;
    if (!sc->nmodes) {
        load_diag(ld, v, 0,
                  "\"default_mode\" needs \"modes\" to choose from; add them or remove it.");
        return;
    }
    int m = lesson_mode_find(sc, v->valuestring);
    if (m >= 0) {
        sc->default_mode = (size_t)m;
        return;
    }
    const char *ids[LOAD_MAX_CANDIDATES];
    size_t n = 0;
    for (; n < sc->nmodes && n < LOAD_MAX_CANDIDATES; n++)
        ids[n] = sc->modes[n].id;
    char why[128];
    load_diag(ld, v, 0, "default mode \"%s\" is not one of this step's modes; %s", v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, ids, n, "name one of them."));
}

static void load_files(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    const cJSON **names = calloc(n + 1, sizeof *names);
    sc->files = calloc(n + 1, sizeof *sc->files);
    if (!names || !sc->files) {
        ld->nomem = 1;
        free(names);
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[FILE_NFIELDS];
        size_t i = sc->nfiles++;
        load_fields(ld, obj, load_file_fields, FILE_NFIELDS, "a file", NULL, f);
        if (f[FILE_NAME]) {
            const char *name = f[FILE_NAME]->valuestring;
            if (strchr(name, '/') || name[0] == '.')
                load_diag(ld, f[FILE_NAME], 0,
                          "file name \"%s\" must be a plain name in the work directory; remove "
                          "'/' and any leading '.'.",
                          name);
            else if (!load_dup(ld, f[FILE_NAME], names, i, "file name", "this step"))
                names[i] = f[FILE_NAME];
            sc->files[i].name = load_strdup(ld, name);
        }
        if (f[FILE_SIZE])
            load_size(ld, f[FILE_SIZE], &sc->files[i].size);
    }
    free(names);
}

static void load_checks(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    sc->checks = calloc(n + 1, sizeof *sc->checks);
    if (!sc->checks) {
        ld->nomem = 1;
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[CHECK_NFIELDS];
        struct lesson_check *c = &sc->checks[sc->nchecks++];
        load_fields(ld, obj, load_check_fields, CHECK_NFIELDS, "a check", NULL, f);
        c->text = load_strdup(ld, f[CHECK_TEXT] ? f[CHECK_TEXT]->valuestring : "");
        struct check_metric metric = {0};
        int metric_ok = 0;
        if (f[CHECK_METRIC]) {
            c->metric = load_strdup(ld, f[CHECK_METRIC]->valuestring);
            metric_ok = check_metric_parse(c->metric, &metric) == 0;
            if (!metric_ok) {
                char bufs[64][48];
                const char *names[64];
                size_t k = 0;
                while (k < 64 && (names[k] = check_metric_name(k, bufs[k], sizeof bufs[k])))
                    k++;
                char why[128];
                load_diag(ld, f[CHECK_METRIC], 0, "metric \"%s\" is not known; %s", c->metric,
                          load_suggest(why, sizeof why, c->metric, names, k,
                                       "use seconds, requests, bytes or calls:NAME with a "
                                       "counted call's name."));
            }
        }
        if (f[CHECK_MODE]) {
            c->mode = load_strdup(ld, f[CHECK_MODE]->valuestring);
            if (lesson_mode_find(sc, c->mode) < 0) {
                const char *ids[LOAD_MAX_CANDIDATES];
                size_t k = 0;
                for (; k < sc->nmodes && k < LOAD_MAX_CANDIDATES; k++)
                    ids[k] = sc->modes[k].id;
                char why[128];
                load_diag(ld, f[CHECK_MODE], 0,
                          "this check counts mode \"%s\", which this step does not have; %s",
                          c->mode,
                          load_suggest(why, sizeof why, c->mode, ids, k, "name one of its modes."));
            }
        }
        if (f[CHECK_ROLE]) {
            enum lesson_role role;
            c->role = load_strdup(ld, f[CHECK_ROLE]->valuestring);
            if (load_role(ld, f[CHECK_ROLE], &role) == 0) {
                size_t p = 0;
                while (p < sc->nprograms && sc->programs[p].role != role)
                    p++;
                if (metric_ok && metric.kind == CHECK_METRIC_SECONDS)
                    load_diag(ld, f[CHECK_ROLE], 0,
                              "seconds are counted per mode, not per role; remove \"role\".");
                else if (p == sc->nprograms && !ld->bad_role)
                    load_diag(ld, f[CHECK_ROLE], 0,
                              "this check counts the %s's figures but the step has no %s program; "
                              "change the role.",
                              c->role, c->role);
            }
        }
        if (f[CHECK_MIN]) {
            c->min = f[CHECK_MIN]->valuedouble;
            if (c->min <= 0)
                load_diag(ld, f[CHECK_MIN], 0,
                          "\"min\" must be above 0, or the check holds before anything runs.");
        }
    }
}

static void load_run(struct load *ld, const cJSON *const *f, struct lesson_step *step)
{
    struct lesson_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        ld->nomem = 1;
        return;
    }
    step->run = sc;
    ld->bad_role = 0;
    if (f[RUN_PROGRAMS])
        load_programs(ld, f[RUN_PROGRAMS], sc);
    if (f[RUN_MODES])
        load_modes(ld, f[RUN_MODES], sc);
    load_default_mode(ld, f[RUN_DEFAULT_MODE], sc);
    if (f[RUN_FILES])
        load_files(ld, f[RUN_FILES], sc);
    sc->seconds = LOAD_DEFAULT_SECONDS;
    if (f[RUN_SECONDS]) {
        sc->seconds = f[RUN_SECONDS]->valuedouble;
        if (sc->seconds <= 0 || sc->seconds > LOAD_MAX_SECONDS)
            load_diag(ld, f[RUN_SECONDS], 0,
                      "\"seconds\" must be above 0 and at most %d; change it.", LOAD_MAX_SECONDS);
    }
    if (f[RUN_CHECKS])
        load_checks(ld, f[RUN_CHECKS], sc);
}

/* ---- steps, lessons, packs ------------------------------------------------------------------ */

struct load_kind {
    enum lesson_step_kind kind;
    const struct load_field *fields; /* STEP_NFIELDS entries; unnamed ones unused */
    void (*parse)(struct load *ld, const cJSON *const *f, struct lesson_step *step);
};

static const struct load_kind load_kinds[] = {
    {.kind = LESSON_STEP_TEXT, .fields = load_text_fields, .parse = NULL},
    {.kind = LESSON_STEP_RUN, .fields = load_run_fields, .parse = load_run},
};
#define LOAD_NKINDS (sizeof load_kinds / sizeof *load_kinds)

/* For a key a text step does not take: the kind of step that does, or NULL. */
static const char *load_kind_hint(const char *key)
{
    for (size_t k = 0; k < LOAD_NKINDS; k++)
        for (size_t i = 0; i < STEP_NFIELDS; i++)
            if (load_kinds[k].fields[i].name && !strcmp(load_kinds[k].fields[i].name, key))
                return lesson_step_kind_name(load_kinds[k].kind);
    return NULL;
}

static void load_step(struct load *ld, const cJSON *obj, struct lesson_step *step)
{
    const struct load_kind *kind = NULL;
    const cJSON *k = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "kind") : NULL;
    if (cJSON_IsString(k)) {
        const char *names[LOAD_NKINDS];
        for (size_t i = 0; i < LOAD_NKINDS; i++) {
            names[i] = lesson_step_kind_name(load_kinds[i].kind);
            if (!strcmp(k->valuestring, names[i]))
                kind = &load_kinds[i];
        }
        char why[96];
        if (!kind)
            load_diag(ld, k, 0, "step kind \"%s\" is not known; %s", k->valuestring,
                      load_suggest(why, sizeof why, k->valuestring, names, LOAD_NKINDS,
                                   "use \"text\" or \"run\"."));
    }
    /* With no usable kind, check the common fields only and let the kind's own keys pass. */
    const cJSON *f[STEP_NFIELDS];
    load_fields(ld, obj, kind ? kind->fields : load_text_fields, STEP_NFIELDS, "a step",
                load_kind_hint, f);
    step->kind = kind ? kind->kind : LESSON_STEP_TEXT;
    step->id = load_strdup(ld, f[STEP_ID] ? f[STEP_ID]->valuestring : "");
    step->title = load_strdup(ld, f[STEP_TITLE] ? f[STEP_TITLE]->valuestring : "");
    step->text = load_text(ld, f[STEP_TEXT]);
    if (kind && kind->parse)
        kind->parse(ld, f, step);
}

enum { LESSON_ID, LESSON_TITLE, LESSON_SUMMARY, LESSON_STEPS, LESSON_NFIELDS };
static const struct load_field load_lesson_fields[] = {
    [LESSON_ID] = {"id", LOAD_STRING, 1},
    [LESSON_TITLE] = {"title", LOAD_STRING, 1},
    [LESSON_SUMMARY] = {"summary", LOAD_STRING, 1},
    [LESSON_STEPS] = {"steps", LOAD_ARRAY, 1},
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

enum { PACK_FORMAT, PACK_ID, PACK_TITLE, PACK_VERSION, PACK_LESSONS, PACK_NFIELDS };
static const struct load_field load_pack_fields[] = {
    [PACK_FORMAT] = {"format_version", LOAD_INT, 1}, [PACK_ID] = {"id", LOAD_STRING, 1},
    [PACK_TITLE] = {"title", LOAD_STRING, 1},        [PACK_VERSION] = {"version", LOAD_STRING, 1},
    [PACK_LESSONS] = {"lessons", LOAD_STRINGS, 1},
};

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

int lesson_pack_load(const char *dir, const struct lesson_load_options *opts,
                     struct lesson_pack **out, struct lesson_diags *diags)
{
    struct load ld = {.opts = opts, .diags = diags};
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
    load_fields(&ld, packf.root, load_pack_fields, PACK_NFIELDS, "pack.json", NULL, f);
    if (f[PACK_FORMAT]) {
        pack->format_version = (int)f[PACK_FORMAT]->valuedouble;
        if (pack->format_version > LESSON_FORMAT_VERSION)
            load_diag(&ld, f[PACK_FORMAT], 0,
                      "this pack is written for format %d but this iolab reads format %d; update "
                      "iolab.",
                      pack->format_version, LESSON_FORMAT_VERSION);
        else if (pack->format_version < 1)
            load_diag(&ld, f[PACK_FORMAT], 0, "\"format_version\" must be %d; change it.",
                      LESSON_FORMAT_VERSION);
    }
    pack->id = load_strdup(&ld, load_id(&ld, f[PACK_ID], "pack") ? f[PACK_ID]->valuestring : "");
    pack->title = load_strdup(&ld, f[PACK_TITLE] ? f[PACK_TITLE]->valuestring : "");
    pack->version = load_strdup(&ld, f[PACK_VERSION] ? f[PACK_VERSION]->valuestring : "");
    size_t n = f[PACK_LESSONS] ? (size_t)cJSON_GetArraySize(f[PACK_LESSONS]) : 0;
    if (f[PACK_LESSONS] && !n)
        load_diag(&ld, f[PACK_LESSONS], 0, "\"lessons\" is empty; list at least one lesson id.");
    pack->lessons = calloc(n + 1, sizeof *pack->lessons);
    files = calloc(n + 1, sizeof *files);
    const cJSON **ids = calloc(n + 1, sizeof *ids);
    if (!pack->lessons || !files || !ids) {
        free(ids);
        ld.nomem = 1;
        goto out;
    }
    nfiles = n;
    size_t i = 0;
    const cJSON *v;
    for (v = f[PACK_LESSONS] ? f[PACK_LESSONS]->child : NULL; v; v = v->next, i++) {
        ld.file = &packf;
        if (!load_id(&ld, v, "lesson") || load_dup(&ld, v, ids, i, "lesson", "pack.json"))
            continue;
        ids[i] = v;
        char name[LOAD_MAX_ID + 8];
        snprintf(name, sizeof name, "%s.json", v->valuestring);
        int frc = load_file_open(&ld, dir, name, &files[i]);
        if (frc == -ENOENT) {
            ld.file = &packf;
            load_diag(&ld, v, 0,
                      "lesson \"%s\" has no file %s in this pack; create it or remove "
                      "\"%s\" from \"lessons\".",
                      v->valuestring, name, v->valuestring);
        }
        if (frc < 0)
            continue;
        load_lesson(&ld, &files[i], v->valuestring, &pack->lessons[pack->nlessons++]);
    }
    free(ids);
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
