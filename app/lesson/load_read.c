/*
 * load_read: the loader's generic typed-JSON reader, which knows no lesson: diagnostics at an
 * item's `file:line:col` (and their order), "did you mean" for a misspelt name, and values read
 * against a field table (load_fields: type, required, unknown keys) or as one typed value (text,
 * strings, an id, a duplicate, a size, a role). The pack's schema, what each object of a pack
 * holds, is lesson_load.c and the kinds' parsers (kind_*.c), which all read through this file;
 * it calls none of them.
 */
#include "load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_MAX_FILE_SIZE (1ull << 30) /* scenario files live in memory (tmpfs) */

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
void load_sort_diags(struct lesson_diags *d, size_t from)
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

/* ---- prose ---------------------------------------------------------------------------------- */

/* Fields whose strings are not prose shown to a learner: a pattern may want a tab. */
static int load_not_prose(const char *name)
{
    return name && !strcmp(name, "match");
}

/* Whether code point c may not stand in a string shown to the learner: C0 controls (a line break
   and a tab only where the field has several lines), DEL, C1 controls, and the bidirectional
   embeddings, overrides and isolates that make a terminal show text in another order than it is
   written (U+202A..U+202E, U+2066..U+2069). */
static int load_bad_char(uint32_t c, int multiline)
{
    if (c == '\n' || c == '\t')
        return !multiline;
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

/* Whether the string as parsed (UTF-8, checked before parsing) holds a character
   load_bad_char() refuses: the cheap test, so that only a string at fault is looked up among
   the file's items for its place. */
static int load_bad_in_value(const char *s, int multiline)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = *p;
        size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (n > 1) {
            c = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
            for (size_t k = 1; k < n && p[k]; k++)
                c = c << 6 | (p[k] & 0x3f);
        }
        if (load_bad_char(c, multiline))
            return 1;
        for (size_t k = 0; k < n && *p; k++)
            p++;
    }
    return 0;
}

static unsigned load_hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (unsigned)(c >= '0' && c <= '9'   ? c - '0'
                                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                       : 0);
    }
    return v;
}

/*
 * The first code point of the JSON string that starts (at its quote) at text[at] which
 * load_bad_char() refuses: its offset in the text (where an editor jumps, escapes included) and
 * the code point, or -1. The text is valid JSON and UTF-8 (checked before parsing).
 */
static long load_bad_in_source(const char *text, size_t len, size_t at, int multiline,
                               uint32_t *bad)
{
    if (at >= len || text[at] != '"')
        return -1;
    for (size_t p = at + 1; p < len && text[p] != '"';) {
        size_t start = p;
        uint32_t c;
        unsigned char b = (unsigned char)text[p];
        if (b == '\\' && p + 1 < len) {
            char e = text[p + 1];
            p += 2;
            c = e == 'n'   ? '\n'
                : e == 't' ? '\t'
                : e == 'r' ? '\r'
                : e == 'b' ? '\b'
                : e == 'f' ? '\f'
                           : (unsigned char)e;
            if (e == 'u' && p + 4 <= len) {
                c = load_hex4(text + p);
                p += 4;
                if (c >= 0xd800 && c < 0xdc00 && p + 6 <= len && text[p] == '\\' &&
                    text[p + 1] == 'u') {
                    uint32_t lo = load_hex4(text + p + 2);
                    if (lo >= 0xdc00 && lo < 0xe000) {
                        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                        p += 6;
                    }
                }
            }
        } else {
            size_t n = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
            c = n == 1 ? b : n == 2 ? b & 0x1f : n == 3 ? b & 0x0f : b & 0x07;
            for (size_t k = 1; k < n && p + k < len; k++)
                c = c << 6 | ((unsigned char)text[p + k] & 0x3f);
            p += n;
        }
        if (load_bad_char(c, multiline)) {
            *bad = c;
            return (long)start;
        }
    }
    return -1;
}

/*
 * Refuses a control character or a bidirectional control in a string a learner reads (a title,
 * a text, a check's sentence...), at the character itself: a terminal acts on it instead of
 * showing it, or shows the text in an order other than written (a title that reads one way in
 * the editor and another on screen). Strings in arrays are checked one by one.
 */
static void load_prose(struct load *ld, const cJSON *v, const char *name, int multiline)
{
    if (load_not_prose(name))
        return;
    if (cJSON_IsArray(v)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, v)
        {
            if (cJSON_IsString(e))
                load_prose(ld, e, name, multiline);
        }
        return;
    }
    if (!cJSON_IsString(v) || !load_bad_in_value(v->valuestring, multiline))
        return;
    struct load_file *f = ld->file;
    long off = -1;
    uint32_t c = 0;
    for (size_t i = 0; i < f->nitems && i < f->pos.n; i++)
        if (f->items[i] == v) {
            off = load_bad_in_source(f->text, f->len, f->pos.v[i].value, multiline, &c);
            break;
        }
    if (off < 0) {
        /* Positions unknown (load_file_open): refused all the same, at the file's start. */
        load_diag(ld, v, 0,
                  "\"%s\" contains a control character or a bidirectional control; remove it.",
                  name);
        return;
    }
    int line, col;
    lesson_pos_linecol(f->text, f->len, (size_t)off, &line, &col);
    if (c == '\n' || c == '\t')
        load_diag_at(ld, f->path, line, col,
                     "\"%s\" is one line, and this is a %s; remove it (a \"text\" may have "
                     "several lines).",
                     name, c == '\n' ? "line break" : "tab");
    else if (c >= 0x202a)
        load_diag_at(ld, f->path, line, col,
                     "\"%s\" contains a bidirectional control (U+%04X) here, which makes a "
                     "terminal show the text in another order than it is written; remove it.",
                     name, (unsigned)c);
    else
        load_diag_at(ld, f->path, line, col,
                     "\"%s\" contains a control character (U+%04X) here, which a terminal would "
                     "act on instead of showing; remove it.",
                     name, (unsigned)c);
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
        else if (ok > 0) {
            out[i] = v;
            if (fields[i].type == LOAD_STRING || fields[i].type == LOAD_TEXT ||
                fields[i].type == LOAD_STRINGS)
                load_prose(ld, v, v->string, fields[i].type != LOAD_STRING);
        }
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

int load_role(struct load *ld, const cJSON *v, enum lesson_role *out)
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
