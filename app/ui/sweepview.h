/*
 * sweepview: the sweep of a run step in the TUI (the run view's hooks call it; stepview_run.c
 * stays a run view). It owns the step's sweep runner while one runs, keeps the last result
 * (restored from the progress record "sweep" when the step opens, saved there when a sweep
 * ends, finished or stopped), and draws it over the right side of the run layout: a chart
 * (chart.h: x the swept value, y the sweep's figure, one series per mode, legend, crossings named
 * under it, then the seed's headline beside this sweep's own ratio, worded as `iolab bench` words
 * it, once both of its modes are measured where it compares them) or a table of the figures,
 * with a progress bar while it runs.
 */
#ifndef IOLAB_SWEEPVIEW_H
#define IOLAB_SWEEPVIEW_H

#include "grade/expect.h"
#include "keys.h"
#include "stepview.h"

struct sweepview;

/* The step's sweep view, or NULL when the step has no sweep (or memory ran out). */
struct sweepview *sweepview_open(const struct stepview_env *env, struct view_ctx *c);
void sweepview_close(struct sweepview *s);

/* w: starts the sweep, or stops it keeping the finished points. */
void sweepview_toggle(struct sweepview *s, struct view_ctx *c);
/* v: chart, table, or back to the counters. */
void sweepview_cycle(struct sweepview *s, struct view_ctx *c);

bool sweepview_shown(const struct sweepview *s); /* draws instead of the program panes */
bool sweepview_running(const struct sweepview *s);
bool sweepview_has_result(const struct sweepview *s); /* a sweep ran to its end (now or before) */

/* Draws over the run layout's program and counters panes. */
void sweepview_draw(struct sweepview *s, struct view_ctx *vc);

/*
 * Expected outcome i of the step judged on the sweep's points at the value a plain run uses
 * (the sweep's default), with its sentence ("sweep at connections=8: ..."); false, and nothing
 * written, while a mode it compares has no measured point there.
 */
bool sweepview_expect(const struct sweepview *s, size_t i, const struct expect_context *ctx,
                      struct expect_verdict *v, char *buf, size_t len);

/* Footer entries (w, v); returns how many. */
size_t sweepview_footer(const struct sweepview *s, struct keys_item *out, size_t max);

/* The scenario a plain run uses (the sweep's default value), or NULL when the step has no sweep. */
const struct lesson_scenario *sweepview_plain_scenario(struct sweepview *s);

#endif
