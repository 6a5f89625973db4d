/*
 * starter: see starter.h. One pass over the lines: a marker line decides what happens to itself
 * and to the n lines after it; the generated text is then scanned once more so that no marker
 * survives into what the learner gets.
 */
#include "starter.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum starter_kind { STARTER_NONE, STARTER_TODO, STARTER_REPLACE, STARTER_REMOVE };

static const struct {
    const char *word;
    enum starter_kind kind;
} starter_words[] = {
    {"TODO", STARTER_TODO},
    {"REPLACE", STARTER_REPLACE},
    {"REMOVE", STARTER_REMOVE},
};

/* Growing output buffer. */
struct starter_out {
    char *v;
    size_t n, cap;
    bool nomem;
};

static void starter_put(struct starter_out *o, const char *s, size_t len)
{
    if (o->nomem)
        return;
    if (o->n + len + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->n + len + 1)
            cap *= 2;
        char *v = realloc(o->v, cap);
        if (!v) {
            o->nomem = true;
            return;
        }
        o->v = v;
        o->cap = cap;
    }
    memcpy(o->v + o->n, s, len);
    o->n += len;
    o->v[o->n] = '\0';
}

/*
 * Whether the line [s, s+len) is a marker: "/" "*" WORD ... "*" "/" alone on the line. Sets
 * *kind and *count (-1 when the count is missing or not a positive number).
 */
static bool starter_marker(const char *s, size_t len, enum starter_kind *kind, long *count)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i + 2 > len || s[i] != '/' || s[i + 1] != '*')
        return false;
    i += 2;
    while (i < len && s[i] == ' ')
        i++;
    for (size_t w = 0; w < sizeof starter_words / sizeof *starter_words; w++) {
        size_t wl = strlen(starter_words[w].word);
        if (i + wl > len || strncmp(s + i, starter_words[w].word, wl) ||
            (i + wl < len && isalnum((unsigned char)s[i + wl])))
            continue;
        /* It must close on this line, with nothing after it; a marker word that opens a
           comment and does not close it is a broken marker (count -2). */
        size_t end = len;
        while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
            end--;
        if (end < i + 2 || s[end - 2] != '*' || s[end - 1] != '/') {
            *kind = starter_words[w].kind;
            *count = -2;
            return true;
        }
        *kind = starter_words[w].kind;
        size_t j = i + wl;
        while (j < end && s[j] == ' ')
            j++;
        char *stop;
        long n = isdigit((unsigned char)s[j]) ? strtol(s + j, &stop, 10) : -1;
        *count = n > 0 && n < 100000 ? n : -1;
        return true;
    }
    return false;
}

/* A REPLACE line: "// code" (after indentation) becomes "code" with that indentation. */
static bool starter_uncomment(struct starter_out *o, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i + 2 > len || s[i] != '/' || s[i + 1] != '/')
        return false;
    starter_put(o, s, i);
    size_t j = i + 2;
    if (j < len && s[j] == ' ')
        j++;
    starter_put(o, s + j, len - j);
    return true;
}

/*
 * A TODO marker's line as the learner reads it: its count (how many solution lines it stands
 * for, which means nothing to the learner and read like a numbering) replaced by the TODO's
 * ordinal in its file, the way check messages name it ("TODO 2 of w_epoll.h").
 */
static void starter_put_todo(struct starter_out *o, const char *s, size_t llen, size_t full,
                             size_t ordinal)
{
    const char *word = NULL;
    for (size_t i = 0; i + 4 <= llen && !word; i++)
        if (!strncmp(s + i, "TODO", 4))
            word = s + i + 4;
    const char *digits = word;
    while (digits && digits < s + llen && *digits == ' ')
        digits++;
    const char *after = digits;
    while (after && after < s + llen && isdigit((unsigned char)*after))
        after++;
    if (!word || after == digits) { /* starter_marker() accepted it: not reached */
        starter_put(o, s, full);
        return;
    }
    char num[24];
    int n = snprintf(num, sizeof num, "%zu", ordinal);
    starter_put(o, s, (size_t)(digits - s));
    starter_put(o, num, (size_t)n);
    starter_put(o, after, full - (size_t)(after - s));
}

int starter_generate(const char *src, size_t len, char **out, size_t *ntodo,
                     struct starter_diag *diag)
{
    struct starter_out o = {0};
    size_t todos = 0;
    int line = 0;
    /* What the lines after a marker are for, and how many are left. */
    enum starter_kind pending = STARTER_NONE;
    long left = 0;
    int marker_line = 0;
    *out = NULL;
    for (size_t pos = 0; pos < len;) {
        const char *s = src + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - s) : len - pos;
        size_t full = nl ? llen + 1 : llen;
        pos += full;
        line++;
        if (left > 0) {
            left--;
            if (pending == STARTER_REPLACE) {
                if (!starter_uncomment(&o, s, llen)) {
                    diag->line = line;
                    snprintf(diag->message, sizeof diag->message,
                             "line %d is under a REPLACE marker (line %d) but is not a `//` "
                             "comment; write the starter's code as `// code`",
                             line, marker_line);
                    goto bad;
                }
                starter_put(&o, "\n", nl ? 1 : 0);
            }
            continue;
        }
        enum starter_kind kind;
        long count;
        if (!starter_marker(s, llen, &kind, &count)) {
            starter_put(&o, s, full);
            continue;
        }
        if (count == -2) {
            diag->line = line;
            snprintf(diag->message, sizeof diag->message,
                     "this marker does not close on its own line; keep the whole /* ... */ on one "
                     "line (a formatter may have wrapped it)");
            goto bad;
        }
        if (count < 0) {
            diag->line = line;
            snprintf(diag->message, sizeof diag->message,
                     "this marker needs a count of lines after its word, such as `TODO 3: ...`");
            goto bad;
        }
        pending = kind;
        left = count;
        marker_line = line;
        if (kind == STARTER_TODO) {
            todos++;
            starter_put_todo(&o, s, llen, full, todos);
        }
    }
    if (left > 0) {
        diag->line = marker_line;
        snprintf(diag->message, sizeof diag->message,
                 "this marker covers %ld line%s past the end of the file; lower its count", left,
                 left == 1 ? "" : "s");
        goto bad;
    }
    if (o.nomem)
        goto nomem;
    starter_put(&o, "", 0);
    if (o.nomem)
        goto nomem;
    /* No marker may reach the learner (one written inside a REPLACE block, say). A TODO is the
       learner's instruction and stays; REPLACE and REMOVE must be gone. */
    int sline = 0;
    for (size_t pos = 0; pos < o.n;) {
        const char *s = o.v + pos;
        const char *nl = memchr(s, '\n', o.n - pos);
        size_t llen = nl ? (size_t)(nl - s) : o.n - pos;
        pos += nl ? llen + 1 : llen;
        sline++;
        enum starter_kind kind;
        long count;
        if (starter_marker(s, llen, &kind, &count) && kind != STARTER_TODO) {
            diag->line = sline;
            snprintf(diag->message, sizeof diag->message,
                     "the generated starter still has a marker at its line %d; a marker must not "
                     "sit inside another's lines",
                     sline);
            goto bad;
        }
    }
    *out = o.v;
    *ntodo = todos;
    return 0;
bad:
    free(o.v);
    return -EINVAL;
nomem:
    free(o.v);
    return -ENOMEM;
}

int starter_solution(const char *src, size_t len, char **out)
{
    struct starter_out o = {0};
    long skip = 0;
    size_t todos = 0;
    for (size_t pos = 0; pos < len;) {
        const char *s = src + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - s) : len - pos;
        size_t full = nl ? llen + 1 : llen;
        pos += full;
        if (skip > 0) {
            skip--;
            continue;
        }
        enum starter_kind kind;
        long count;
        if (starter_marker(s, llen, &kind, &count) && kind != STARTER_TODO) {
            /* REPLACE: its `// code` lines are the starter's alone; REMOVE: only its marker goes,
               its lines are the solution's own code. */
            skip = kind == STARTER_REPLACE && count > 0 ? count : 0;
            continue;
        }
        if (starter_marker(s, llen, &kind, &count) && kind == STARTER_TODO && count > 0)
            starter_put_todo(&o, s, llen, full, ++todos); /* numbered as the starter numbers it */
        else
            starter_put(&o, s, full);
    }
    starter_put(&o, "", 0);
    if (o.nomem) {
        free(o.v);
        return -ENOMEM;
    }
    *out = o.v;
    return 0;
}

/* One line that names the stamp: 1 with *version when it is one, -EINVAL when it is not. */
static int starter_stamp_line(const char *s, const char *end, const char *at, int *version)
{
    /* Before the stamp: blanks and a comment's opening only. */
    const char *p = s;
    while (p < at && (*p == ' ' || *p == '\t'))
        p++;
    if (at - p >= 2 && (!strncmp(p, "/*", 2) || !strncmp(p, "//", 2)))
        p += 2;
    else if (at - p >= 1 && *p == '#')
        p++;
    while (p < at && (*p == ' ' || *p == '\t'))
        p++;
    if (p != at)
        return -EINVAL;
    p = at + strlen(STARTER_STAMP);
    while (p < end && *p == ' ')
        p++;
    long v = 0;
    const char *digits = p;
    while (p < end && isdigit((unsigned char)*p) && v <= STARTER_STAMP_MAX)
        v = v * 10 + (*p++ - '0');
    if (p == digits || v < 1 || v > STARTER_STAMP_MAX)
        return -EINVAL;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p >= 2 && !strncmp(p, "*/", 2))
        p += 2;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p != end)
        return -EINVAL;
    *version = (int)v;
    return 1;
}

int starter_stamp(const char *text, size_t len, int *version, int *line)
{
    size_t slen = strlen(STARTER_STAMP);
    int found = 0, n = 1;
    for (const char *s = text, *end = text + len; s < end; n++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s)), *eol = nl ? nl : end;
        const char *at = NULL;
        for (const char *p = s; p + slen <= eol && !at; p++)
            if (*p == STARTER_STAMP[0] && !memcmp(p, STARTER_STAMP, slen))
                at = p;
        if (at) {
            int v = 0;
            if (found || starter_stamp_line(s, eol, at, &v) < 0) {
                if (line)
                    *line = n;
                return -EINVAL;
            }
            found = 1;
            *version = v;
            if (line)
                *line = n;
        }
        s = nl ? nl + 1 : end;
    }
    return found;
}
