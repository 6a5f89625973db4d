/*
 * record_quiz: the quiz kind's progress record (record.h), {"questions":[{"chosen":[0,2],
 * "tries":1,"right":true}]}: per question, the answers chosen at the last check (indexes from 0),
 * how many checks, and whether the last one was right. Written by the quiz view, checked by an
 * import against the installed quiz, counted by the instructor's summary.
 */
#include "quiz.h"
#include "record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int quiz_record_parse(const char *json, struct quiz_record *r, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    if (!json)
        return 0;
    cJSON *root = cJSON_Parse(json);
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(root, "questions");
    if (!cJSON_IsObject(root) || (qs && !cJSON_IsArray(qs))) {
        snprintf(why, len, "a quiz record is an object whose \"questions\" is an array");
        cJSON_Delete(root);
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(qs);
    if (n && !(r->questions = calloc(n, sizeof *r->questions))) {
        cJSON_Delete(root);
        return -ENOMEM;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, qs)
    {
        struct quiz_record_answer *q = &r->questions[r->nquestions++];
        const cJSON *tries = cJSON_GetObjectItemCaseSensitive(e, "tries");
        q->tries =
            cJSON_IsNumber(tries) && tries->valuedouble >= 0 ? (unsigned)tries->valuedouble : 0;
        const cJSON *k;
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(e, "chosen"))
        {
            /* An index past the answers a quiz can have is left out, as a view would. */
            if (cJSON_IsNumber(k) && k->valuedouble >= 0 && k->valuedouble < QUIZ_MAX_ANSWERS)
                q->chosen |= 1u << (unsigned)k->valuedouble;
        }
        q->right = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "right"));
    }
    cJSON_Delete(root);
    return 0;
}

char *quiz_record_write(const struct quiz_record *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *qs = cJSON_AddArrayToObject(root, "questions");
    bool ok = qs != NULL;
    for (size_t i = 0; ok && i < r->nquestions; i++) {
        const struct quiz_record_answer *q = &r->questions[i];
        cJSON *e = cJSON_CreateObject();
        cJSON *chosen = cJSON_AddArrayToObject(e, "chosen");
        for (unsigned k = 0; chosen && k < QUIZ_MAX_ANSWERS; k++)
            if (q->chosen & (1u << k))
                ok = ok && cJSON_AddItemToArray(chosen, cJSON_CreateNumber(k));
        ok = ok && chosen && cJSON_AddNumberToObject(e, "tries", q->tries) &&
             cJSON_AddBoolToObject(e, "right", q->right);
        if (!cJSON_AddItemToArray(qs, e)) {
            cJSON_Delete(e);
            ok = false;
        }
    }
    char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return json;
}

void quiz_record_free(struct quiz_record *r)
{
    free(r->questions);
    memset(r, 0, sizeof *r);
}

static const char *record_quiz_misfit(const struct lesson_step *step, const cJSON *quiz, char *buf,
                                      size_t len)
{
    const struct lesson_quiz *qz = lesson_step_quiz(step);
    if (!qz || !qz->nquestions) {
        snprintf(buf, len, "it holds quiz answers, and the step is a %s step, not a quiz",
                 lesson_step_kind_name(step));
        return buf;
    }
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(quiz, "questions");
    size_t nq = (size_t)cJSON_GetArraySize(qs);
    if (nq > qz->nquestions) {
        snprintf(buf, len, "it answers %zu questions, and the quiz has %zu", nq, qz->nquestions);
        return buf;
    }
    size_t qi = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, qs)
    {
        size_t nanswers = qz->questions[qi].nanswers;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(q, "chosen"))
        {
            /* Indexes count from 0; the learner counts the answers from 1 (keys 1-9). */
            if (!cJSON_IsNumber(c) || c->valuedouble < 0 ||
                c->valuedouble != (double)(long long)c->valuedouble ||
                c->valuedouble >= (double)nanswers) {
                char chosen[32] = "?";
                if (cJSON_IsNumber(c))
                    snprintf(chosen, sizeof chosen, "%g", c->valuedouble + 1);
                snprintf(buf, len, "question %zu chose answer %s, and the question has %zu", qi + 1,
                         chosen, nanswers);
                return buf;
            }
        }
        qi++;
    }
    return NULL;
}

/* The quiz's checks over its questions. */
static long long record_quiz_tries(const cJSON *quiz)
{
    long long n = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(quiz, "questions"))
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(q, "tries");
        if (cJSON_IsNumber(t) && t->valuedouble > 0)
            n += (long long)t->valuedouble;
    }
    return n;
}

const struct lesson_record lesson_record_quiz = {
    .field = QUIZ_RECORD_FIELD,
    .misfit = record_quiz_misfit,
    .tries = record_quiz_tries,
};
