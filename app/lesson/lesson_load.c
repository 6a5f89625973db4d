/*
 * lesson_load: reads a pack directory into the lesson model, checking everything an instructor
 * can get wrong, and reporting every problem (not only the first) as `file:line:col: message`.
 *
 * The only code that touches cJSON. Each file is parsed whole, then walked in pre-order next to a
 * position index built by lesson_pos over the same text, so that any cJSON item can be named by
 * line and column. What each JSON object may contain is data: a const table of fields per
 * object (name, type, required), checked by one function before the values are copied into the
 * model. Step kinds are a table too (kind.h): a kind brings its own fields and parser.
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
#define LOAD_MAX_ID         40
#define LOAD_MAX_FILE_SIZE  (1ull << 30) /* scenario files live in memory (tmpfs) */
#define LOAD_DEFAULT_PATH   "/usr/local/bin:/usr/bin:/bin"

static const char *const load_type_names[] = {
    [LOAD_STRING] = "a string",
    [LOAD_TEXT] = "a string or an array of strings",
    [LOAD_STRINGS] = "an array of strings",
    [LOAD_ARRAY] = "an array",
    [LOAD_OBJECT] = "an object {...}",
    [LOAD_INT] = "a whole number",
    [LOAD_NUMBER] = "a number",
    [LOAD_BOOL] = "true or false",
    [LOAD_SIZE] = "a size such as 65536 or \"64M\"",
};

/* ---- diagnostics ---------------------------------------------------------------------------- */

char *load_strdup(struct load *ld, const char *s)
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

void load_diag_at(struct load *ld, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    load_vdiag(ld, file, line, col, fmt, ap);
    va_end(ap);
}

/* Reports a problem at an item of the current file: at its key when at_key and it has one. */
void load_diag(struct load *ld, const cJSON *item, int at_key, const char *fmt, ...)
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
const char *load_closest(const char *word, const char *const *cands, size_t n)
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
const char *load_suggest(char *buf, size_t len, const char *word, const char *const *cands,
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
    case LOAD_OBJECT:
        return cJSON_IsObject(v);
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
size_t load_fields(struct load *ld, const cJSON *obj, const struct load_field *fields,
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
        /* A text of nothing ("" or []) would show a blank screen; the schema refuses it too. */
        else if (ok > 0 && fields[i].type == LOAD_TEXT &&
                 (cJSON_IsString(v) ? !v->valuestring[0] : cJSON_GetArraySize(v) == 0))
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

char *load_text(struct load *ld, const cJSON *v)
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

char **load_strv(struct load *ld, const cJSON *v, size_t *n)
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
const char *load_id(struct load *ld, const cJSON *v, const char *what)
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
int load_dup(struct load *ld, const cJSON *v, const cJSON *const *seen, size_t n, const char *what,
             const char *scope)
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

/* ---- programs and arguments ----------------------------------------------------------------- */

static int load_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The absolute path of a program as a lesson names it (see lesson.h), or NULL. */
/* A path inside the pack: relative, no empty, "." or ".." component. */
static int load_inside_pack(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return 0;
    for (const char *c = rel; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n;
        if (*c == '/' && !*++c)
            return 0;
    }
    return 1;
}

/* "./tools/x" or "tools/x" as the pack path "tools/x" (leading "./" dropped). */
static const char *load_pack_rel(const char *prog)
{
    while (!strncmp(prog, "./", 2))
        prog += 2;
    return prog;
}

/* A program named relative to the pack: one the pack builds, or an executable file in it. */
static char *load_pack_program(struct load *ld, const char *prog)
{
    const char *rel = load_pack_rel(prog);
    if (!load_inside_pack(rel))
        return NULL;
    for (size_t i = 0; ld->pack && i < ld->pack->nbuilds; i++)
        if (!strcmp(ld->pack->builds[i].program, rel))
            return load_strdup(ld, ld->pack->builds[i].path);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ld->dir, rel);
    if ((ld->opts && ld->opts->files) || !load_executable(path))
        return NULL;
    char *real = realpath(path, NULL);
    if (!real)
        ld->nomem = 1;
    return real;
}

char *load_find_program(struct load *ld, const char *prog)
{
    char path[4096];
    if (strchr(prog, '/') && prog[0] != '/')
        return load_pack_program(ld, prog);
    if (strchr(prog, '/'))
        return load_executable(prog) ? load_strdup(ld, prog) : NULL;
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

void load_program_missing(struct load *ld, const cJSON *v)
{
    const char *prog = v->valuestring;
    if (strchr(prog, '/') && prog[0] != '/') {
        const char *rel = load_pack_rel(prog);
        if (!load_inside_pack(rel))
            load_diag(ld, v, 0,
                      "program \"%s\" leaves the pack; name a file inside it, such as "
                      "\"./tools/NAME\".",
                      prog);
        else
            load_diag(ld, v, 0,
                      "program \"%s\" is neither an executable file of this pack (%s) nor "
                      "built by pack.json's \"build\"; add the file or a build entry for \"%s\".",
                      prog, rel, rel);
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
void load_placeholders_check(struct load *ld, const cJSON *v)
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
            if (k < LOAD_NPLACEHOLDERS || (ld->sweep_param && !strcmp(name, ld->sweep_param)))
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

int load_size(struct load *ld, const cJSON *v, uint64_t *out)
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
        pack->format_version = (int)f[PACK_FORMAT]->valuedouble;
        if (pack->format_version > LESSON_FORMAT_VERSION)
            load_diag(ld, f[PACK_FORMAT], 0,
                      "this pack is written for format %d but this iolab reads format %d; update "
                      "iolab.",
                      pack->format_version, LESSON_FORMAT_VERSION);
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
