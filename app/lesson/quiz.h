/*
 * quiz: the payload of a quiz step (kind_quiz.c) and of a run step's prediction questions
 * (predict.c), as plain C data.
 *
 * A quiz step asks one or more questions; each has answers marked correct or not (several may
 * be correct: the learner must pick exactly the correct ones), feedback per answer (required on
 * a wrong one: it says which misconception that answer stands for) and an explanation shown
 * once the question is answered right. The step is done when every question is answered right.
 *
 * A prediction is asked on a run step before its scenario starts, and judged against what the
 * scenario then measures on this machine, never against a number in the pack: a number within
 * a tolerance of a figure of one mode ("calls:read/request" of read-send), or the mode whose
 * figure is the largest or the smallest ("ctx_per_request": which mode switches most).
 */
#ifndef IOLAB_QUIZ_H
#define IOLAB_QUIZ_H

#include "lesson.h"

#define QUIZ_MAX_ANSWERS 9 /* chosen with the keys 1-9 */

struct lesson_answer {
    char *text;
    bool correct;
    char *feedback; /* why this answer is right or wrong; required when wrong */
};

struct lesson_question {
    char *question;
    struct lesson_answer *answers;
    size_t nanswers;
    size_t ncorrect;   /* at least one */
    char *explanation; /* shown once the question is answered right */
};

struct lesson_quiz {
    struct lesson_question *questions;
    size_t nquestions;
};

/* The quiz of a step, or NULL when its kind is not "quiz". */
const struct lesson_quiz *lesson_step_quiz(const struct lesson_step *step);

extern const struct lesson_kind lesson_kind_quiz;

enum lesson_predict_kind {
    LESSON_PREDICT_NUMBER, /* a number, judged within tolerance of the measured figure */
    LESSON_PREDICT_MOST,   /* the mode whose figure is the largest */
    LESSON_PREDICT_LEAST,  /* the mode whose figure is the smallest */
};

/* One prediction question of a run step (lesson_scenario.predicts). */
struct lesson_predict {
    char *question;
    enum lesson_predict_kind kind;
    /* The figure judged: for a number, one mode's (figure.mode); for a choice, every candidate
       mode's (figure.mode is ignored). */
    struct lesson_expect_side figure;
    /* A number is right within tolerance * measured of the measured figure; a choice is right
       when its figure is within tolerance of the extreme one (near-ties count). */
    double tolerance;
    int *modes; /* a choice's candidate modes (indexes), at least two */
    size_t nmodes;
    char *unit;        /* what the number counts, shown beside it ("read() calls"); may be NULL */
    char *explanation; /* shown beside the measurement once it is judged; may be NULL */
};

#endif
