/*
 * record_exercise: the exercise kind's progress record (record.h), {"attempts":3,
 * "first_pass":T,"solution_viewed":false,"solution_before_pass":false}: builds that count as
 * attempts, when it first passed (absent: never), and whether the solution was shown, before
 * the first pass or after, and the best score reached (record_score.c): exercise/exercise.c
 * applies the events, exercise_record_score() the score; the instructor's summary counts it.
 */
#include "record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2^53: the largest count a JSON number (a double) holds exactly. */
#define RECORD_EXERCISE_MAX_ATTEMPTS 9007199254740992LL

int exercise_record_parse(const char *json, struct exercise_record *r, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    if (!json)
        return 0;
    cJSON *o = cJSON_Parse(json);
    if (!cJSON_IsObject(o)) {
        snprintf(why, len, "an exercise record is a JSON object");
        cJSON_Delete(o);
        return -EINVAL;
    }
    /* Members are found as they always were (cJSON_GetObjectItem: case aside), so that a
       record written by any earlier iolab reads the same. */
    const cJSON *a = cJSON_GetObjectItem(o, "attempts");
    const cJSON *fp = cJSON_GetObjectItem(o, "first_pass");
    /* A count: a fraction (a file edited by hand) is cut to its whole part, and a count past
       what a JSON number holds exactly stops there. */
    if (cJSON_IsNumber(a) && a->valuedouble >= RECORD_EXERCISE_MAX_ATTEMPTS)
        r->attempts = RECORD_EXERCISE_MAX_ATTEMPTS;
    else if (cJSON_IsNumber(a) && a->valuedouble > 0)
        r->attempts = (long long)a->valuedouble;
    r->passed = cJSON_IsNumber(fp);
    r->first_pass = r->passed ? fp->valuedouble : 0;
    r->solution_viewed = cJSON_IsTrue(cJSON_GetObjectItem(o, "solution_viewed"));
    r->solution_before_pass = cJSON_IsTrue(cJSON_GetObjectItem(o, "solution_before_pass"));
    record_score_parse(o, &r->best);
    cJSON_Delete(o);
    return 0;
}

char *exercise_record_write(const struct exercise_record *r)
{
    cJSON *n = cJSON_CreateObject();
    bool ok = n && cJSON_AddNumberToObject(n, "attempts", (double)r->attempts) &&
              (!r->passed || cJSON_AddNumberToObject(n, "first_pass", r->first_pass)) &&
              cJSON_AddBoolToObject(n, "solution_viewed", r->solution_viewed) &&
              cJSON_AddBoolToObject(n, "solution_before_pass", r->solution_before_pass) &&
              record_score_write(n, &r->best);
    char *text = ok ? cJSON_PrintUnformatted(n) : NULL;
    cJSON_Delete(n);
    return text;
}

int exercise_record_score(const char *old, const struct record_score *score, char *out, size_t len)
{
    struct exercise_record r;
    char why[160];
    /* A record that is not an exercise's starts afresh, as exercise_progress() does. */
    if (exercise_record_parse(old, &r, why, sizeof why) < 0)
        exercise_record_parse(NULL, &r, why, sizeof why);
    record_score_keep(&r.best, score);
    char *text = exercise_record_write(&r);
    if (!text)
        return -ENOMEM;
    int rc = snprintf(out, len, "%s", text) >= (int)len ? -ENAMETOOLONG : 0;
    free(text);
    return rc;
}

static const char *record_exercise_misfit(const struct lesson_step *step, const cJSON *record,
                                          char *buf, size_t len)
{
    const struct lesson_exercise *ex = lesson_step_exercise(step);
    if (ex)
        return record_score_misfit(record, ex->sc ? ex->sc->nchecks : 0, buf, len);
    snprintf(buf, len, "it holds exercise attempts, and the step is a %s step",
             lesson_step_kind_name(step));
    return buf;
}

static long long record_exercise_tries(const cJSON *record)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(record, "attempts");
    return cJSON_IsNumber(a) && a->valuedouble > 0 ? (long long)a->valuedouble : 0;
}

static bool record_exercise_solution_viewed(const cJSON *record)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(record, "solution_viewed");
    return cJSON_IsTrue(v) || (cJSON_IsNumber(v) && v->valuedouble > 0);
}

static bool record_exercise_score(const cJSON *record, double *points, double *of)
{
    struct record_score s;
    record_score_parse(record, &s);
    *points = s.points;
    *of = s.of;
    return s.has;
}

const struct lesson_record lesson_record_exercise = {
    .score = record_exercise_score,
    .field = EXERCISE_RECORD_FIELD,
    .misfit = record_exercise_misfit,
    .tries = record_exercise_tries,
    .solution_viewed = record_exercise_solution_viewed,
};
