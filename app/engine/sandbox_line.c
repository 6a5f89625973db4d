/*
 * sandbox_line: see sandbox_line.h. The lines are small (a few kilobytes at most) and read a
 * handful of times each, so a field is found by walking the text again for each call rather
 * than by building a tree: one scanner that checks the whole line once at parse (so a damaged
 * or cut line is refused whole), then follows a path member by member, skipping every other
 * value without looking inside it. Only what JSON allows is accepted (RFC 8259: no trailing
 * comma, no leading zero, no control character in a string); nesting deeper than
 * SANDBOX_LINE_DEPTH is refused, the launcher's lines nest three deep.
 */
#include "sandbox_line.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SANDBOX_LINE_DEPTH 16

struct sandbox_line {
    char *text; /* the whole line, checked: every walk below may trust its syntax */
};

static const char *sandbox_line_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static int sandbox_line_hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* p at a string's opening quote: what follows its closing quote, or NULL when it is not one. */
static const char *sandbox_line_skip_string(const char *p)
{
    for (p++; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL; /* a control character, or the line's end */
        if (*p != '\\')
            continue;
        p++;
        if (*p == 'u') {
            for (int i = 1; i <= 4; i++)
                if (sandbox_line_hex(p[i]) < 0)
                    return NULL;
            p += 4;
        } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
            return NULL;
        }
    }
    return p + 1;
}

static const char *sandbox_line_skip_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (*++p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        if (*++p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}

/* p at a value: what follows it, or NULL when it is not a whole JSON value. */
static const char *sandbox_line_skip(const char *p, int depth)
{
    if (*p == '"')
        return sandbox_line_skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        if (depth >= SANDBOX_LINE_DEPTH)
            return NULL;
        p = sandbox_line_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if (*p != '"' || !(p = sandbox_line_skip_string(p)))
                    return NULL;
                p = sandbox_line_ws(p);
                if (*p != ':')
                    return NULL;
                p = sandbox_line_ws(p + 1);
            }
            if (!(p = sandbox_line_skip(p, depth + 1)))
                return NULL;
            p = sandbox_line_ws(p);
            if (*p == close)
                return p + 1;
            if (*p != ',')
                return NULL;
            p = sandbox_line_ws(p + 1);
        }
    }
    for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1)
        if (!strncmp(p, lit, strlen(lit)))
            return p + strlen(lit);
    return sandbox_line_skip_number(p);
}

struct sandbox_line *sandbox_line_parse(const char *line)
{
    if (!line)
        return NULL;
    const char *p = sandbox_line_ws(line);
    const char *end = *p == '{' ? sandbox_line_skip(p, 0) : NULL;
    if (!end || *sandbox_line_ws(end))
        return NULL; /* not an object, cut short, damaged, or more after it */
    struct sandbox_line *r = malloc(sizeof *r);
    if (!r || !(r->text = strdup(line))) {
        free(r);
        return NULL;
    }
    return r;
}

void sandbox_line_free(struct sandbox_line *r)
{
    if (!r)
        return;
    free(r->text);
    free(r);
}

/* Whether the string at p (its opening quote) is exactly the n bytes of key, escapes decoded
   only as far as a key needs: a key written with an escape is not one the launcher writes. */
static int sandbox_line_key_is(const char *p, const char *key, size_t n)
{
    return !strncmp(p + 1, key, n) && p[1 + n] == '"';
}

/* The value at path ("a.b.c") in the line, or NULL. */
static const char *sandbox_line_find(const struct sandbox_line *r, const char *path)
{
    const char *p = r ? sandbox_line_ws(r->text) : NULL;
    for (const char *k = path; p && k;) {
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k) : strlen(k);
        if (*p != '{')
            return NULL;
        const char *found = NULL;
        p = sandbox_line_ws(p + 1);
        while (*p == '"') {
            int match = sandbox_line_key_is(p, k, n);
            p = sandbox_line_ws(sandbox_line_skip_string(p));
            p = sandbox_line_ws(p + 1); /* past ':' */
            if (match) {
                found = p;
                break;
            }
            p = sandbox_line_ws(sandbox_line_skip(p, 0));
            if (*p == ',')
                p = sandbox_line_ws(p + 1);
        }
        p = found;
        k = dot ? dot + 1 : NULL;
    }
    return p;
}

/* Appends code point c as UTF-8 to out[*n..len-1]. */
static void sandbox_line_utf8(char *out, size_t len, size_t *n, unsigned long c)
{
    char b[4];
    size_t k = 0;
    if (c < 0x80) {
        b[k++] = (char)c;
    } else if (c < 0x800) {
        b[k++] = (char)(0xc0 | c >> 6);
        b[k++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        b[k++] = (char)(0xe0 | c >> 12);
        b[k++] = (char)(0x80 | (c >> 6 & 0x3f));
        b[k++] = (char)(0x80 | (c & 0x3f));
    } else {
        b[k++] = (char)(0xf0 | c >> 18);
        b[k++] = (char)(0x80 | (c >> 12 & 0x3f));
        b[k++] = (char)(0x80 | (c >> 6 & 0x3f));
        b[k++] = (char)(0x80 | (c & 0x3f));
    }
    for (size_t i = 0; i < k && *n + 1 < len; i++)
        out[(*n)++] = b[i];
}

static unsigned long sandbox_line_u4(const char *p)
{
    unsigned long c = 0;
    for (int i = 0; i < 4; i++)
        c = c << 4 | (unsigned long)sandbox_line_hex(p[i]);
    return c;
}

bool sandbox_line_string(const struct sandbox_line *r, const char *key, char *out, size_t len)
{
    const char *p = sandbox_line_find(r, key);
    if (!p || *p != '"' || !len)
        return false;
    size_t n = 0;
    for (p++; *p != '"'; p++) {
        if (*p != '\\') {
            if (n + 1 < len)
                out[n++] = *p;
            continue;
        }
        p++;
        const char *plain = strchr("\"\\/bfnrt", *p);
        if (plain) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            if (n + 1 < len)
                out[n++] = to[plain - "\"\\/bfnrt"];
            continue;
        }
        unsigned long c = sandbox_line_u4(p + 1); /* \uXXXX: the parse checked the digits */
        p += 4;
        if (c >= 0xd800 && c < 0xdc00 && p[1] == '\\' && p[2] == 'u') {
            unsigned long lo = sandbox_line_u4(p + 3);
            if (lo >= 0xdc00 && lo < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
        }
        if ((c >= 0xd800 && c < 0xe000) || c == 0)
            c = 0xfffd; /* a lone surrogate, or a NUL that would cut the string */
        sandbox_line_utf8(out, len, &n, c);
    }
    out[n] = '\0';
    return true;
}

bool sandbox_line_json(const struct sandbox_line *r, const char *key, char *out, size_t len)
{
    const char *p = sandbox_line_find(r, key);
    if (!p || *p != '{')
        return false;
    const char *end = sandbox_line_skip(p, 0);
    size_t n = (size_t)(end - p);
    if (n >= len)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

bool sandbox_line_bool(const struct sandbox_line *r, const char *key, bool *out)
{
    const char *p = sandbox_line_find(r, key);
    if (!p || (strncmp(p, "true", 4) && strncmp(p, "false", 5)))
        return false;
    *out = *p == 't';
    return true;
}

bool sandbox_line_u64(const struct sandbox_line *r, const char *key, uint64_t *out)
{
    const char *p = sandbox_line_find(r, key);
    if (!p || (*p != '-' && (*p < '0' || *p > '9')))
        return false;
    double v = strtod(p, NULL);
    if (v < 0 || v != floor(v) || v > 1.8e19)
        return false;
    *out = (uint64_t)v;
    return true;
}
