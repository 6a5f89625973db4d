/*
 * report: see report.h.
 */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct report {
    cJSON *root;
};

struct report *report_parse(const char *line)
{
    cJSON *root = line ? cJSON_Parse(line) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    struct report *r = malloc(sizeof *r);
    if (!r) {
        cJSON_Delete(root);
        return NULL;
    }
    r->root = root;
    return r;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    cJSON_Delete(r->root);
    free(r);
}

/* The first item named key, depth first. */
static const cJSON *report_find(const cJSON *node, const char *key)
{
    for (const cJSON *c = node ? node->child : NULL; c; c = c->next) {
        if (c->string && !strcmp(c->string, key))
            return c;
        const cJSON *in = cJSON_IsObject(c) ? report_find(c, key) : NULL;
        if (in)
            return in;
    }
    return NULL;
}

bool report_string(const struct report *r, const char *key, char *out, size_t len)
{
    const cJSON *v = r ? report_find(r->root, key) : NULL;
    if (!cJSON_IsString(v))
        return false;
    snprintf(out, len, "%s", v->valuestring);
    return true;
}

bool report_bool(const struct report *r, const char *key, bool *out)
{
    const cJSON *v = r ? report_find(r->root, key) : NULL;
    if (!cJSON_IsBool(v))
        return false;
    *out = cJSON_IsTrue(v);
    return true;
}

bool report_u64(const struct report *r, const char *key, uint64_t *out)
{
    const cJSON *v = r ? report_find(r->root, key) : NULL;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble > 1.8e19)
        return false;
    *out = (uint64_t)v->valuedouble;
    return true;
}
