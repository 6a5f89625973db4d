/*
 * record_run: the run kind's progress records (record.h). "predict" holds the answers to a run
 * step's prediction questions, {"predictions":[{"number":16,"verdict":"right","measured":16.2},
 * {"mode":"fork"}, {}]}: one entry per question in the step's order, empty when it was not
 * answered, with the verdict and the figure it was judged against once the scenario has run.
 * "sweep" holds a finished sweep, whose shape engine/sweepio.c owns; an import only asks that
 * the step has a sweep.
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
