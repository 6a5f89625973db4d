/*
 * record_score: the points a step's record keeps (record.h, "score"), shared by the exercise's
 * and the quiz's records: {"points":1,"of":6,"at":T,"checks":[{"points":1,"of":1},
 * {"points":0,"of":5}]}. Only a decided check that holds earns its points (an exercise's check
 * in grade_state PASS, a quiz question checked right), so a score never counts what was not
 * measured.
 *
 * The record keeps the best score the learner reached, not the last one: a learner who passed
 * and then tried something else in the workspace (or answered a question again, wrongly) keeps
 * what they showed they could do, as the step stays done. Of two equal scores the earlier is
 * kept, so "at" says when the best was first reached.
 */
#include "record.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A number a score may hold: finite and not negative. */
static bool record_score_number(const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return false;
    *out = v->valuedouble;
    return true;
}

void record_score_parse(const cJSON *record, struct record_score *s)
{
    memset(s, 0, sizeof *s);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(record, RECORD_SCORE_FIELD);
    if (!cJSON_IsObject(o) ||
        !record_score_number(cJSON_GetObjectItemCaseSensitive(o, "points"), &s->points) ||
        !record_score_number(cJSON_GetObjectItemCaseSensitive(o, "of"), &s->of))
        return;
    s->has = true;
    record_score_number(cJSON_GetObjectItemCaseSensitive(o, "at"), &s->at);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(o, "checks"))
    {
        if (s->nchecks == RECORD_SCORE_MAX_CHECKS)
            break;
        double got = 0, of = 0;
        record_score_number(cJSON_GetObjectItemCaseSensitive(c, "points"), &got);
        record_score_number(cJSON_GetObjectItemCaseSensitive(c, "of"), &of);
        s->got[s->nchecks] = got;
        s->weight[s->nchecks++] = of;
    }
}

bool record_score_write(cJSON *record, const struct record_score *s)
{
    if (!s->has)
        return true;
    cJSON *o = cJSON_AddObjectToObject(record, RECORD_SCORE_FIELD);
    bool ok = o && cJSON_AddNumberToObject(o, "points", s->points) &&
              cJSON_AddNumberToObject(o, "of", s->of) &&
              (!s->at || cJSON_AddNumberToObject(o, "at", s->at));
    cJSON *arr = ok && s->nchecks ? cJSON_AddArrayToObject(o, "checks") : NULL;
    ok = ok && (!s->nchecks || arr);
    for (size_t i = 0; ok && i < s->nchecks; i++) {
        cJSON *c = cJSON_CreateObject();
        ok = c && cJSON_AddItemToArray(arr, c) && cJSON_AddNumberToObject(c, "points", s->got[i]) &&
             cJSON_AddNumberToObject(c, "of", s->weight[i]);
        if (c && !ok && !c->prev)
            cJSON_Delete(c);
    }
    return ok;
}

bool record_score_keep(struct record_score *best, const struct record_score *now)
{
    if (!now->has || (best->has && now->points <= best->points))
        return false;
    *best = *now;
    return true;
}

const char *record_score_misfit(const cJSON *record, size_t nchecks, char *buf, size_t len)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(record, RECORD_SCORE_FIELD);
    if (!o)
        return NULL;
    struct record_score s;
    record_score_parse(record, &s);
    double sum = 0;
    bool over = false;
    for (size_t i = 0; i < s.nchecks; i++) {
        sum += s.got[i];
        over |= s.got[i] > s.weight[i];
    }
    if (!s.has)
        snprintf(buf, len, "its score is not {\"points\": N, \"of\": M}");
    else if (s.points > s.of)
        snprintf(buf, len, "its score is %g of %g points", s.points, s.of);
    else if (s.nchecks > nchecks ||
             (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "checks")) > nchecks)
        snprintf(buf, len, "its score counts %zu checks, and the step has %zu", s.nchecks, nchecks);
    else if (over)
        snprintf(buf, len, "its score gives a check more points than the check weighs");
    else if (s.nchecks && fabs(sum - s.points) > 1e-9)
        snprintf(buf, len, "its score of %g points is not the sum of its checks' (%g)", s.points,
                 sum);
    else
        return NULL;
    return buf;
}
