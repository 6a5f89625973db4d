/*
 * sandbox_line: see sandbox_line.h.
 */
#include "sandbox_line.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sandbox_line {
    cJSON *root;
};

struct sandbox_line *sandbox_line_parse(const char *line)
{
    cJSON *root = line ? cJSON_Parse(line) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    struct sandbox_line *r = malloc(sizeof *r);
    if (!r) {
        cJSON_Delete(root);
        return NULL;
    }
    r->root = root;
    return r;
}

void sandbox_line_free(struct sandbox_line *r)
{
    if (!r)
        return;
    cJSON_Delete(r->root);
    free(r);
}

/* The item at path ("a.b.c": member c of member b of member a of the root), or NULL. */
static const cJSON *sandbox_line_find(const cJSON *root, const char *path)
{
    const cJSON *node = root;
    for (const char *k = path; node && k;) {
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k) : strlen(k);
        const cJSON *c = cJSON_IsObject(node) ? node->child : NULL;
        while (c && !(c->string && strlen(c->string) == n && !strncmp(c->string, k, n)))
            c = c->next;
        node = c;
        k = dot ? dot + 1 : NULL;
    }
    return node == root ? NULL : node;
}

bool sandbox_line_json(const struct sandbox_line *r, const char *key, char *out, size_t len)
{
    const cJSON *v = r ? sandbox_line_find(r->root, key) : NULL;
    char *text = cJSON_IsObject(v) ? cJSON_PrintUnformatted(v) : NULL;
    if (!text)
        return false;
    int n = snprintf(out, len, "%s", text);
    cJSON_free(text);
    return n >= 0 && (size_t)n < len;
}

bool sandbox_line_string(const struct sandbox_line *r, const char *key, char *out, size_t len)
{
    const cJSON *v = r ? sandbox_line_find(r->root, key) : NULL;
    if (!cJSON_IsString(v))
        return false;
    snprintf(out, len, "%s", v->valuestring);
    return true;
}

bool sandbox_line_bool(const struct sandbox_line *r, const char *key, bool *out)
{
    const cJSON *v = r ? sandbox_line_find(r->root, key) : NULL;
    if (!cJSON_IsBool(v))
        return false;
    *out = cJSON_IsTrue(v);
    return true;
}

bool sandbox_line_u64(const struct sandbox_line *r, const char *key, uint64_t *out)
{
    const cJSON *v = r ? sandbox_line_find(r->root, key) : NULL;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble > 1.8e19)
        return false;
    *out = (uint64_t)v->valuedouble;
    return true;
}
