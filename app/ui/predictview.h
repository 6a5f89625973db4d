/*
 * predictview: a run step's prediction questions in the TUI (lesson/quiz.h; judged by
 * grade/prediction.h). Before the scenario first starts, Enter asks each unanswered question in
 * the counters pane (nothing is measured yet, so nothing there is hidden): a number is typed and
 * confirmed with Enter, a mode is chosen with its key, Esc skips the rest and starts. Under the
 * step's text, each prediction then stands beside what this machine measures, marked right or
 * wrong once the modes it needs have run. Predictions and verdicts are kept in the progress
 * store (field "predict"), so a prediction is asked once and its verdict survives a restart.
 *
 * stepview_run.c holds a predictview (NULL when the step has no predictions; every function
 * accepts NULL and then does nothing).
 */
#ifndef IOLAB_PREDICTVIEW_H
#define IOLAB_PREDICTVIEW_H

#include "metrics/figure.h"
#include "metrics/snapshot.h"
#include "stepview.h"
#include "widgets.h"

struct predictview;

struct predictview *predictview_new(const struct stepview_env *env, struct view_ctx *c,
                                    const struct lesson_scenario *sc);
void predictview_free(struct predictview *pv);

/* Enter was pressed to start: true when the questions are asked first (the scenario starts
   when they are answered or skipped, through predictview_key's return). */
bool predictview_ask(struct predictview *pv);

/* A key while the questions are asked: 0 taken, 1 taken and the scenario should start now, -1
   not taken (nothing is being asked). */
int predictview_key(struct predictview *pv, int key);

/* Draws the question being asked over r (the counters pane); false when none is asked. */
bool predictview_draw_ask(struct predictview *pv, struct view_ctx *c, struct layout_rect r);

/* Rows wanted under the step's text, and drawing them at the bottom of r, leaving others rows
   above for the checks and outcomes when r has them: returns what is left of r above. modes:
   the grader's span of each mode (grade/session.h). */
int predictview_foot_rows(const struct predictview *pv);
struct layout_rect predictview_draw_foot(struct predictview *pv, struct view_ctx *c,
                                         struct layout_rect r, int others,
                                         const struct mode_span *modes, size_t nmodes);

/* The predictions whole, for the run step's results box (a): a heading, then each one's
   question, its verdict with what was said and measured, and its explanation once judged. */
void predictview_sheet(const struct predictview *pv, struct widgets_sheet *s,
                       const struct screen_caps *c, const struct mode_span *modes, size_t nmodes);

/* After every snapshot: keeps a verdict that changed in the progress store. */
void predictview_update(struct predictview *pv, const struct mode_span *modes, size_t nmodes);

#endif
