/*
 * record_run: the run kind's progress records (record.h). "predict" holds the answers to a run
 * step's prediction questions, {"predictions":[{"number":16,"verdict":"right","measured":16.2},
 * {"mode":"fork"}, {}]}: one entry per question in the step's order, empty when it was not
 * answered, with the verdict and the figure it was judged against once the scenario has run.
 * "sweep" holds a finished sweep, whose shape engine/sweepio.c writes: read back here into a
 * typed record (struct sweep_record) that sweepio_parse() turns into the engine's result, so
 * that the JSON is parsed only in lesson/; an import only asks that the step has a sweep.
 */
#include "quiz.h"
#include "record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void predict_record_free(struct predict_record *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->entries[i].mode);
    free(r->entries);
    memset(r, 0, sizeof *r);
}

int predict_record_parse(const char *json, struct predict_record *r, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    if (!json)
        return 0;
    cJSON *root = cJSON_Parse(json);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "predictions");
    if (!cJSON_IsObject(root) || (arr && !cJSON_IsArray(arr))) {
        snprintf(why, len, "a predictions record is an object whose \"predictions\" is an array");
        cJSON_Delete(root);
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n && !(r->entries = calloc(n, sizeof *r->entries))) {
        cJSON_Delete(root);
        return -ENOMEM;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        struct predict_record_entry *a = &r->entries[r->n++];
        const cJSON *num = cJSON_GetObjectItemCaseSensitive(e, "number");
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(e, "mode");
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(e, "verdict");
        const cJSON *measured = cJSON_GetObjectItemCaseSensitive(e, "measured");
        if ((a->has_number = cJSON_IsNumber(num)))
            a->number = num->valuedouble;
        if (cJSON_IsString(mode) && !(a->mode = strdup(mode->valuestring))) {
            predict_record_free(r);
            cJSON_Delete(root);
            return -ENOMEM;
        }
        if (cJSON_IsString(verdict)) {
            a->verdict = !strcmp(verdict->valuestring, "right") ? PREDICT_RECORD_RIGHT
                                                                : PREDICT_RECORD_WRONG;
            a->measured = cJSON_IsNumber(measured) ? measured->valuedouble : 0;
        }
    }
    cJSON_Delete(root);
    return 0;
}

char *predict_record_write(const struct predict_record *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(root, "predictions");
    bool ok = arr != NULL;
    for (size_t i = 0; ok && i < r->n; i++) {
        const struct predict_record_entry *a = &r->entries[i];
        cJSON *e = cJSON_CreateObject();
        if (a->has_number)
            ok = cJSON_AddNumberToObject(e, "number", a->number) != NULL;
        else if (a->mode)
            ok = cJSON_AddStringToObject(e, "mode", a->mode) != NULL;
        if (ok && a->verdict != PREDICT_RECORD_UNJUDGED)
            ok = cJSON_AddStringToObject(e, "verdict",
                                         a->verdict == PREDICT_RECORD_RIGHT ? "right" : "wrong") &&
                 cJSON_AddNumberToObject(e, "measured", a->measured);
        if (!cJSON_AddItemToArray(arr, e)) {
            cJSON_Delete(e);
            ok = false;
        }
    }
    char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return json;
}

void sweep_record_free(struct sweep_record *r)
{
    for (size_t i = 0; i < r->nmodes; i++)
        free(r->modes[i]);
    for (size_t i = 0; i < r->npoints; i++) {
        struct sweep_record_point *p = &r->points[i];
        free(p->mode);
        free(p->value);
        free(p->problem);
        for (size_t k = 0; k < p->nnums; k++)
            free(p->nums[k].key);
        free(p->nums);
    }
    free(r->modes);
    free(r->points);
    free(r->tier);
    memset(r, 0, sizeof *r);
}

/* A copy of item's string, or NULL (*ok false when it was a string that could not be copied). */
static char *record_run_string(const cJSON *item, bool *ok)
{
    if (!cJSON_IsString(item))
        return NULL;
    char *s = strdup(item->valuestring);
    *ok = *ok && s;
    return s;
}

/* One point object into p: its strings, its flag and every number it holds. */
static bool record_run_point(const cJSON *o, struct sweep_record_point *p)
{
    bool ok = true;
    p->mode = record_run_string(cJSON_GetObjectItemCaseSensitive(o, "mode"), &ok);
    p->value = record_run_string(cJSON_GetObjectItemCaseSensitive(o, "value"), &ok);
    p->problem = record_run_string(cJSON_GetObjectItemCaseSensitive(o, "problem"), &ok);
    p->measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "measured"));
    size_t n = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, o) n += cJSON_IsNumber(m) && m->string;
    if (n && !(p->nums = calloc(n, sizeof *p->nums)))
        return false;
    cJSON_ArrayForEach(m, o)
    {
        if (!cJSON_IsNumber(m) || !m->string)
            continue;
        struct sweep_record_num *x = &p->nums[p->nnums++];
        x->v = m->valuedouble;
        ok = ok && (x->key = strdup(m->string));
    }
    return ok;
}

int sweep_record_parse(const char *json, struct sweep_record *r, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(root, "modes");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(root, "points");
    if (!cJSON_IsObject(root) || !cJSON_IsArray(modes) || !cJSON_IsArray(points)) {
        snprintf(why, len, "a sweep record is an object with the arrays \"modes\" and \"points\"");
        cJSON_Delete(root);
        return -EINVAL;
    }
    bool ok = true;
    size_t nm = (size_t)cJSON_GetArraySize(modes), np = (size_t)cJSON_GetArraySize(points);
    if ((nm && !(r->modes = calloc(nm, sizeof *r->modes))) ||
        (np && !(r->points = calloc(np, sizeof *r->points))))
        ok = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, modes)
    {
        if (ok && cJSON_IsString(m))
            ok = (r->modes[r->nmodes++] = strdup(m->valuestring)) != NULL;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, points)
    {
        if (ok)
            ok = record_run_point(p, &r->points[r->npoints++]);
    }
    r->tier = record_run_string(cJSON_GetObjectItemCaseSensitive(root, "tier"), &ok);
    const cJSON *secs = cJSON_GetObjectItemCaseSensitive(root, "seconds_per_point");
    r->seconds_per_point = cJSON_IsNumber(secs) ? secs->valuedouble : 0;
    r->stopped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "stopped"));
    cJSON_Delete(root);
    return ok ? 0 : -ENOMEM;
}

bool sweep_record_num(const struct sweep_record_point *p, const char *key, double *v)
{
    for (size_t i = 0; i < p->nnums; i++)
        if (!strcmp(p->nums[i].key, key)) {
            *v = p->nums[i].v;
            return true;
        }
    return false;
}

static const char *record_predict_misfit(const struct lesson_step *step, const cJSON *record,
                                         char *buf, size_t len)
{
    const struct lesson_scenario *sc = lesson_step_scenario(step);
    size_t asks = sc ? sc->npredicts : 0;
    size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(record, "predictions"));
    if (!asks) {
        snprintf(buf, len, "it holds predictions, and the step asks for none");
        return buf;
    }
    if (n > asks) {
        snprintf(buf, len, "it holds %zu predictions, and the step asks for %zu", n, asks);
        return buf;
    }
    return NULL;
}

const struct lesson_record lesson_record_predict = {
    .field = PREDICT_RECORD_FIELD,
    .misfit = record_predict_misfit,
};

static const char *record_sweep_misfit(const struct lesson_step *step, const cJSON *record,
                                       char *buf, size_t len)
{
    (void)record;
    const struct lesson_scenario *sc = lesson_step_scenario(step);
    if (sc && sc->sweep)
        return NULL;
    snprintf(buf, len, "it holds a sweep, and the step has none");
    return buf;
}

const struct lesson_record lesson_record_sweep = {
    .field = SWEEP_RECORD_FIELD,
    .misfit = record_sweep_misfit,
};
