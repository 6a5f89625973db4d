/*
 * expect: a step's expected outcomes (lesson_expect) judged against what the runs measured in
 * each mode (the grader's span of the mode, mode_span), with one sentence each: what was
 * seen beside what the lesson expects and, when this run disagrees, what on this machine may
 * explain it (its cores, its load, the sandbox tier). An outcome is undecided until the modes it
 * compares have run for long enough and, for per-request figures, answered requests; for latencies
 * (p50_ms, p99_ms, the comparison's figures), requests answered or still waiting.
 */
#ifndef IOLAB_EXPECT_H
#define IOLAB_EXPECT_H

#include "lesson/lesson.h"
#include "metrics/figure.h"

#include <stdbool.h>
#include <stddef.h>

#define EXPECT_MIN_SECONDS 0.5 /* a mode must have run this long to be compared */

enum expect_state {
    EXPECT_UNDECIDED, /* a mode it compares has not run (long enough) yet */
    EXPECT_AGREES,
    EXPECT_DIFFERS,
};

/* What may explain a difference: the machine the run was on. */
struct expect_context {
    unsigned ncpus;   /* online CPUs; 0: unknown */
    double loadavg;   /* 1-minute load average; < 0: unknown */
    const char *tier; /* sandbox tier in force; NULL: unknown */
};

struct expect_verdict {
    enum expect_state state;
    double left, right; /* the two figures compared (right: the value for a fixed bound) */
    /* Undecided because a side's calls are not counted: its role made no counted call while
       spending this mode's system time (the mode's id, and its system CPU in % of a core). */
    bool uncounted;
    int uncounted_mode;
    double uncounted_sys_pct;
};

/* The figure a side names, through the figure table over its mode's span (modes: the grader's,
   session.h); false when it cannot be computed yet. */
bool expect_figure(const struct lesson_scenario *sc, const struct lesson_expect_side *side,
                   const struct mode_span *modes, size_t nmodes, double *out);

/*
 * A side's figure from a source other than the modes' spans: a sweep's points at the value a plain
 * run uses (ui/sweepview.c). false when the source has none for that side (yet).
 */
typedef bool (*expect_figure_fn)(void *data, const struct lesson_expect_side *side, double *out);
/* Judges one outcome on such a source: the same comparison as expect_judge(). */
struct expect_verdict expect_judge_with(const struct lesson_expect *e, expect_figure_fn figure,
                                        void *data);

/* Judges one outcome. */
struct expect_verdict expect_judge(const struct lesson_scenario *sc, const struct lesson_expect *e,
                                   const struct mode_span *modes, size_t nmodes);

/* The sentence for a verdict: "epoll 182k requests/s > fork 90.1k requests/s", or the same with
   "not this time", what on this machine may explain it and the outcome's why, or what is still to
   run. Returns snprintf's. */
int expect_describe(const struct lesson_scenario *sc, const struct lesson_expect *e,
                    const struct expect_verdict *v, const struct expect_context *ctx, char *buf,
                    size_t len);

#endif
