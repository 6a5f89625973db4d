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

void json_write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_key(struct json_out *j, const char *key)
{
    if (j->comma[j->depth])
        fputc(',', j->f);
    j->comma[j->depth] = true;
    if (key) {
        json_write_escaped(j->f, key);
        fputc(':', j->f);
    }
}

static void json_open(struct json_out *j, const char *key, char open, char close)
{
    json_key(j, key);
    fputc(open, j->f);
    if (j->depth < JSON_MAX_DEPTH) {
        j->depth++;
        j->comma[j->depth] = false;
        j->closer[j->depth] = close;
    }
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
    if (j->depth == 0)
        return;
    fputc(j->closer[j->depth], j->f);
    j->depth--;
}

void json_string(struct json_out *j, const char *key, const char *s)
{
    json_key(j, key);
    if (s)
        json_write_escaped(j->f, s);
    else
        fputs("null", j->f);
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
    json_key(j, key);
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_int(struct json_out *j, const char *key, long long v)
{
    json_key(j, key);
    fprintf(j->f, "%lld", v);
}

void json_double(struct json_out *j, const char *key, double v, int decimals)
{
    json_key(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.*f", decimals, v);
    else
        fputs("null", j->f);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
    json_key(j, key);
    fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
    json_key(j, key);
    fputs("null", j->f);
}

void json_raw(struct json_out *j, const char *key, const char *json)
{
    json_key(j, key);
    fputs(json, j->f);
}
