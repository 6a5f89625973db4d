/*
 * json: see json.h. Every value goes through json_key(), which writes the comma that separates
 * it from the previous value of the same container and, inside an object, its key.
 */
#include "json.h"

#include <math.h>

void json_init(struct json_out *j, FILE *f)
{
    *j = (struct json_out){.f = f};
}

/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when it is not one: a stray
   continuation byte, a cut sequence, an overlong form, a surrogate or a code point past
   U+10FFFF. */
static int utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
            : p[0] >= 0xe0 && p[0] <= 0xef ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                           : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
        (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

void json_write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(p);
        if (n == 0) {
            /* A program's output is any bytes; JSON text is UTF-8. */
            fputs("\\ufffd", f);
            p++;
            continue;
        }
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n;
    }
    fputc('"', f);
}

/* Whether a value may be written: not inside a container opened past JSON_MAX_DEPTH. */
static bool json_key(struct json_out *j, const char *key)
{
    if (j->over)
        return false;
    if (j->comma[j->depth])
        fputc(',', j->f);
    j->comma[j->depth] = true;
    if (key) {
        json_write_escaped(j->f, key);
        fputc(':', j->f);
    }
    return true;
}

static void json_open(struct json_out *j, const char *key, char open, char close)
{
    if (j->over || j->depth == JSON_MAX_DEPTH) {
        j->over++; /* cut off, with everything inside it: what is written stays well formed */
        return;
    }
    if (!json_key(j, key))
        return;
    fputc(open, j->f);
    j->depth++;
    j->comma[j->depth] = false;
    j->closer[j->depth] = close;
}

void json_object(struct json_out *j, const char *key)
{
    json_open(j, key, '{', '}');
}

void json_array(struct json_out *j, const char *key)
{
    json_open(j, key, '[', ']');
}

void json_end(struct json_out *j)
{
    if (j->over) {
        j->over--;
        return;
    }
    if (j->depth == 0)
        return;
    fputc(j->closer[j->depth], j->f);
    j->depth--;
}

void json_string(struct json_out *j, const char *key, const char *s)
{
    if (!json_key(j, key))
        return;
    if (s)
        json_write_escaped(j->f, s);
    else
        fputs("null", j->f);
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
    if (!json_key(j, key))
        return;
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_int(struct json_out *j, const char *key, long long v)
{
    if (!json_key(j, key))
        return;
    fprintf(j->f, "%lld", v);
}

void json_double(struct json_out *j, const char *key, double v, int decimals)
{
    if (!json_key(j, key))
        return;
    if (isfinite(v))
        fprintf(j->f, "%.*f", decimals, v);
    else
        fputs("null", j->f);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
    if (!json_key(j, key))
        return;
    fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
    if (!json_key(j, key))
        return;
    fputs("null", j->f);
}

void json_raw(struct json_out *j, const char *key, const char *json)
{
    if (!json_key(j, key))
        return;
    fputs(json, j->f);
}
