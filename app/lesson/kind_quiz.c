/*
 * kind_quiz: a step of questions (quiz.h). The loader half of the row: every problem an author
 * can make is reported at its file:line:col, so that a quiz that lints is one a learner can
 * finish: at least one question, two to nine answers each, at least one of them correct,
 * feedback on every wrong answer (a bare "no" teaches nothing), an explanation for every
 * question. Its progress record's codec is here too (below). The UI half is ui/stepview_quiz.c.
 */
#include "kind.h"
#include "record.h"
#include "load.h"
#include "quiz.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { QUIZ_QUESTIONS, QUIZ_NFIELDS };
static const struct load_field kind_quiz_fields[] = {
    [QUIZ_QUESTIONS] = {"questions", LOAD_ARRAY, 1},
};

enum { Q_QUESTION, Q_ANSWERS, Q_EXPLANATION, Q_NFIELDS };
static const struct load_field kind_quiz_question_fields[] = {
    [Q_QUESTION] = {"question", LOAD_TEXT, 1},
    [Q_ANSWERS] = {"answers", LOAD_ARRAY, 1},
    [Q_EXPLANATION] = {"explanation", LOAD_TEXT, 1},
};

enum { A_TEXT, A_CORRECT, A_FEEDBACK, A_NFIELDS };
static const struct load_field kind_quiz_answer_fields[] = {
    [A_TEXT] = {"text", LOAD_TEXT, 1},
    [A_CORRECT] = {"correct", LOAD_BOOL, 0},
    [A_FEEDBACK] = {"feedback", LOAD_TEXT, 0},
};

static void kind_quiz_answers(struct load *ld, const cJSON *arr, struct lesson_question *q)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n < 2 || n > QUIZ_MAX_ANSWERS) {
        load_diag(ld, arr, 0,
                  "a question needs 2 to %d answers (keys 1-%d choose them); it has %zu.",
                  QUIZ_MAX_ANSWERS, QUIZ_MAX_ANSWERS, n);
        if (n > QUIZ_MAX_ANSWERS)
            n = QUIZ_MAX_ANSWERS;
    }
    if (!n)
        return;
    q->answers = calloc(n, sizeof *q->answers);
    if (!q->answers) {
        ld->nomem = 1;
        return;
    }
    bool unsure = false; /* an answer's "correct" is not a boolean: already reported */
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        if (q->nanswers == n)
            break;
        const cJSON *f[A_NFIELDS];
        struct lesson_answer *a = &q->answers[q->nanswers++];
        load_fields(ld, obj, kind_quiz_answer_fields, A_NFIELDS, "an answer", NULL, f);
        a->text = load_text(ld, f[A_TEXT]);
        a->correct = f[A_CORRECT] && cJSON_IsTrue(f[A_CORRECT]);
        a->feedback = load_text(ld, f[A_FEEDBACK]);
        q->ncorrect += a->correct;
        bool bad_flag = cJSON_IsObject(obj) && !f[A_CORRECT] &&
                        cJSON_GetObjectItemCaseSensitive(obj, "correct");
        unsure |= bad_flag;
        if (cJSON_IsObject(obj) && !a->correct && !bad_flag && (!a->feedback || !a->feedback[0]))
            load_diag(ld, obj, 0,
                      "this wrong answer has no \"feedback\"; say which misconception it stands "
                      "for, so that a learner who picks it learns why it is wrong.");
        for (size_t k = 0; a->text && k + 1 < q->nanswers; k++)
            if (q->answers[k].text && !strcmp(q->answers[k].text, a->text)) {
                load_diag(ld, f[A_TEXT], 0,
                          "answer %zu repeats answer %zu; make each answer differ.", q->nanswers,
                          k + 1);
                break;
            }
    }
    if (!q->ncorrect && !unsure)
        load_diag(ld, arr, 0,
                  "no answer of this question is marked \"correct\": true; mark at least one, or "
                  "the question can never be answered right.");
}

/*
 * The number of questions the step's text announces ("Two questions on ..."), or -1 when it
 * names none: a count word or a number right before "question" or "questions".
 */
static int kind_quiz_announced(const char *text, const char **said, size_t *said_len)
{
    static const char *const words[] = {"no",  "one",   "two",   "three", "four", "five",
                                        "six", "seven", "eight", "nine",  "ten"};
    for (const char *q = text ? strcasestr(text, " question") : NULL; q;
         q = strcasestr(q + 1, " question")) {
        const char *end = q, *start = q;
        while (start > text && isalnum((unsigned char)start[-1]))
            start--;
        size_t n = (size_t)(end - start);
        char c = q[9]; /* after "question": a word ends there or continues as "questions" */
        if (!n || (c && c != 's' && isalpha((unsigned char)c)))
            continue;
        for (size_t k = 0; k < sizeof words / sizeof *words; k++)
            if (strlen(words[k]) == n && !strncasecmp(start, words[k], n)) {
                *said = start;
                *said_len = n + 9 + (c == 's');
                return (int)k;
            }
        if (strspn(start, "0123456789") == n && n < 4) {
            *said = start;
            *said_len = n + 9 + (c == 's');
            return atoi(start);
        }
    }
    return -1;
}

static void kind_quiz_parse(struct load *ld, const cJSON *const *f, struct lesson_step *step)
{
    struct lesson_quiz *quiz = calloc(1, sizeof *quiz);
    if (!quiz) {
        ld->nomem = 1;
        return;
    }
    step->data = quiz;
    const cJSON *arr = f[QUIZ_QUESTIONS];
    if (!arr)
        return;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n) {
        load_diag(ld, arr, 0, "\"questions\" is empty; a quiz needs at least one question.");
        return;
    }
    quiz->questions = calloc(n, sizeof *quiz->questions);
    if (!quiz->questions) {
        ld->nomem = 1;
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *qf[Q_NFIELDS];
        struct lesson_question *q = &quiz->questions[quiz->nquestions++];
        load_fields(ld, obj, kind_quiz_question_fields, Q_NFIELDS, "a question", NULL, qf);
        q->question = load_text(ld, qf[Q_QUESTION]);
        q->explanation = load_text(ld, qf[Q_EXPLANATION]);
        if (qf[Q_ANSWERS])
            kind_quiz_answers(ld, qf[Q_ANSWERS], q);
    }
    /* "Two questions" over four is a promise the quiz breaks; an author adding a question
       rarely rereads the intro. */
    const char *said = NULL;
    size_t said_len = 0;
    int announced = kind_quiz_announced(step->text, &said, &said_len);
    if (announced >= 0 && (size_t)announced != quiz->nquestions)
        load_diag(ld, arr, 0,
                  "the step's text says \"%.*s\" and the quiz has %zu; make them agree (or let "
                  "the text not count them).",
                  (int)said_len, said, quiz->nquestions);
}

static void kind_quiz_free(void *data)
{
    struct lesson_quiz *quiz = data;
    if (!quiz)
        return;
    for (size_t i = 0; i < quiz->nquestions; i++) {
        struct lesson_question *q = &quiz->questions[i];
        for (size_t k = 0; k < q->nanswers; k++) {
            free(q->answers[k].text);
            free(q->answers[k].feedback);
        }
        free(q->answers);
        free(q->question);
        free(q->explanation);
    }
    free(quiz->questions);
    free(quiz);
}

/* ---- the progress record (record.h) ---- */

/*
 * The record: the quiz kind's progress record (record.h), {"questions":[{"chosen":[0,2],
 * "tries":1,"right":true}]}: per question, the answers chosen at the last check (indexes from 0),
 * how many checks, and whether the last one was right. Written by the quiz view, checked by an
 * import against the installed quiz, counted by the instructor's summary.
 */
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

static const struct lesson_record *const kind_quiz_records[] = {&lesson_record_quiz, NULL};

const struct lesson_kind lesson_kind_quiz = {
    .name = "quiz",
    .fields = kind_quiz_fields,
    .nfields = QUIZ_NFIELDS,
    .parse = kind_quiz_parse,
    .free = kind_quiz_free,
    .records = kind_quiz_records,
};

const struct lesson_quiz *lesson_step_quiz(const struct lesson_step *step)
{
    return step && step->kind == &lesson_kind_quiz ? step->data : NULL;
}
