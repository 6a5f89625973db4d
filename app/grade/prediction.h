/*
 * prediction: a learner's prediction (lesson/quiz.h, struct lesson_predict) judged against what
 * the step's runs measured on this machine (the grader's span of each mode), never against a number
 * in the pack. A number is right within the author's tolerance of the measured figure; a choice
 * of mode is right when that mode's figure is the largest (or smallest) of the candidates, or
 * within the tolerance of it. Undecided until the modes involved have run long enough
 * (EXPECT_MIN_SECONDS) and, for per-request figures, answered requests; a number that counts
 * calls per request, until enough requests are done that the one under way cannot move it by
 * half the tolerance. A count is shown as the question asks it ("16,385", "1.02"), a rate with
 * an SI suffix ("182k"). Pure: no curses, no progress store, so the TUI and the tests judge
 * alike.
 */
#ifndef IOLAB_PREDICTION_H
#define IOLAB_PREDICTION_H

#include "expect.h"
#include "lesson/quiz.h"

/* What the learner predicted. */
struct prediction {
    bool given;    /* answered (false: not asked yet, or skipped) */
    double number; /* LESSON_PREDICT_NUMBER */
    int mode;      /* LESSON_PREDICT_MOST/LEAST: the mode index chosen */
};

struct prediction_verdict {
    enum expect_state state; /* EXPECT_AGREES: right; EXPECT_DIFFERS: wrong */
    double measured;         /* the number's figure, or the chosen mode's */
    int best;                /* a choice: the mode whose figure is the extreme one; -1 */
    double best_value;
};

struct prediction_verdict prediction_judge(const struct lesson_scenario *sc,
                                           const struct lesson_predict *p,
                                           const struct prediction *a,
                                           const struct mode_span *modes, size_t nmodes);

/* One line: "you said 16, measured 16.2: right (within 25% counts)", "you chose fork; the most
   here: fork 5.1 ctx/request (epoll 0.02): right", or what still has to run. */
int prediction_describe(const struct lesson_scenario *sc, const struct lesson_predict *p,
                        const struct prediction *a, const struct prediction_verdict *v, char *buf,
                        size_t len);

#endif
