/*
 * kind_quiz: a step of questions (quiz.h). The loader half of the row: every problem an author
 * can make is reported at its file:line:col, so that a quiz that lints is one a learner can
 * finish: at least one question, two to nine answers each, at least one of them correct,
 * feedback on every wrong answer (a bare "no" teaches nothing), an explanation for every
 * question. The UI half is ui/stepview_quiz.c.
 */
#include "kind.h"
#include "record.h"
#include "load.h"
#include "quiz.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
