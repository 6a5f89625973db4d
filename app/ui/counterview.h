/*
 * counterview: the counters pane and the comparison view of a run step, drawn from a snapshot
 * and the comparison rows the run view keeps. Pure drawing: it reads nothing else.
 */
#ifndef IOLAB_COUNTERVIEW_H
#define IOLAB_COUNTERVIEW_H

#include "layout.h"
#include "lesson/lesson.h"
#include "metrics/figure.h"
#include "metrics/snapshot.h"
#include "screen.h"

#include <stdbool.h>

/* What the counters pane shows. */
struct counterview_in {
    const struct snapshot *s;     /* the latest sample; NULL before the first */
    const struct snapshot *base;  /* the sample the current mode started at; NULL: show totals */
    bool started;                 /* a scenario is starting (before the first sample) */
    const char *missing;          /* what the sandbox tier lacks, or NULL */
    bool has_role[LESSON_NROLES]; /* the step has a program of that role: its block is drawn */
    const char *unit;             /* what the load completes: "requests", "copies" */
    const char *mode_name;        /* the current mode's id; NULL without modes */
    const unsigned *watch;        /* the calls the step is about (enum iolab_call_id), first */
    size_t nwatch;
    /* The connections the load keeps open (its --connections) in a step about holding them;
       0: no such line. The pane then says how many the load holds now, from its own count. */
    uint64_t conns_want;
};

/* The counters pane: per role, CPU, context switches, the kernel's read/write counts beside the
   library's, and the calls since the mode started (or the totals), the step's watched calls
   first and all of them at any size, then throughput and latency: each of those only once the
   client has published it (a program that completes no requests has no requests/s line). */
void counterview_draw(const struct screen_caps *c, struct layout_rect r, bool focused,
                      const struct counterview_in *in);

/* The comparison of the modes tried: one row each, over the grader's span of each mode (the
   figures the checks and expected outcomes read, through the figure table); now_id marks the mode
   running now. unit names what the load completes ("requests", "copies"); calls per request are
   those of the role of the program under study, named study. */
void counterview_compare(const struct screen_caps *c, struct layout_rect r,
                         const struct lesson_scenario *sc, const struct mode_span *modes,
                         size_t nmodes, const char *now_id, const char *unit,
                         enum lesson_role study_role, const char *study, bool latency);

/* The legend: what every figure and mark of the counters pane and the comparison means, wrapped
   to the terminal and drawn from its row *top, which is clamped to the rows there are. Returns
   the rows it shows at once (a page, for scrolling). */
int counterview_legend(const struct screen_caps *c, int *top);

/*
 * How fresh a role's /proc figures are, as the counters pane says it after the role's header:
 * "" when every figure was read within the last tick (tick_hz), else "  oldest 1.2 s" and/or
 * "  3 unread" (processes and threads not read yet: their figures are missing from the sums).
 */
void counterview_age(char *buf, size_t len, const struct snapshot_figures *f, double tick_hz);

#endif
