/*
 * counterview: the counters pane and the comparison view of a run step, drawn from a snapshot
 * and the comparison rows the run view keeps. Pure drawing: it reads nothing else.
 */
#ifndef IOLAB_COUNTERVIEW_H
#define IOLAB_COUNTERVIEW_H

#include "layout.h"
#include "metrics/snapshot.h"
#include "screen.h"

#include <stdbool.h>

/* The counters pane; s NULL before the first sample (started: a scenario is starting).
   missing: what the sandbox tier lacks, or NULL. */
void counterview_draw(const struct screen_caps *c, struct layout_rect r, bool focused,
                      const struct snapshot *s, bool started, const char *missing);

/* The comparison of the modes tried: one row each; now_id marks the mode running now. */
void counterview_compare(const struct screen_caps *c, struct layout_rect r,
                         const struct snapshot_mode_row *rows, uint32_t nrows, const char *now_id);

#endif
