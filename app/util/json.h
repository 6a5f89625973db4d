/*
 * json: the one JSON writer of iolab's output (`iolab run --json`, `iolab list --json`, and the
 * commands after them). What iolab reads as JSON (packs, progress, records) it reads with cJSON;
 * output is streamed to a FILE as it is produced, so a large report never sits in memory.
 *
 * Model: a stack of open containers. Each value is written with its key (inside an object) or
 * with key NULL (inside an array, or as the root); the writer puts the commas and escapes the
 * strings, so a caller never writes punctuation by hand. Nesting deeper than JSON_MAX_DEPTH is a
 * programming error: the container opened past it is left out with all it holds, and the output
 * stays well formed.
 */
#ifndef IOLAB_JSON_H
#define IOLAB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_out {
    FILE *f;
    unsigned depth;                  /* containers open now */
    bool comma[JSON_MAX_DEPTH + 1];  /* the container at this depth has a value already */
    char closer[JSON_MAX_DEPTH + 1]; /* '}' or ']' for the container at this depth */
    unsigned over;                   /* containers opened past JSON_MAX_DEPTH, not written */
};

void json_init(struct json_out *j, FILE *f);

/* Opens an object or an array as the value of key (NULL in an array or at the root). */
void json_object(struct json_out *j, const char *key);
void json_array(struct json_out *j, const char *key);
/* Closes the innermost open container. */
void json_end(struct json_out *j);

void json_string(struct json_out *j, const char *key, const char *s); /* NULL writes null */
void json_u64(struct json_out *j, const char *key, uint64_t v);
void json_int(struct json_out *j, const char *key, long long v);
/* A number with the given printf precision after the point ("%.*f"); NaN and infinities, which
   JSON cannot hold, are written as null. */
void json_double(struct json_out *j, const char *key, double v, int decimals);
void json_bool(struct json_out *j, const char *key, bool v);
void json_null(struct json_out *j, const char *key);
/* A value already in JSON form (for example one produced by another component). */
void json_raw(struct json_out *j, const char *key, const char *json);

/* Writes s as a JSON string literal: quotes, backslash and control characters escaped, UTF-8
   passed through and each byte that is not part of well-formed UTF-8 written as U+FFFD. For callers
   that build JSON text piecewise (json_raw's producers). */
void json_write_escaped(FILE *f, const char *s);

#endif
