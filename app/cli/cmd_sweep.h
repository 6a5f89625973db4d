/*
 * cmd_sweep: a sweep run headless, for `iolab run` (a step with a sweep) and `iolab bench` (every
 * step: one without a sweep is measured as a sweep of one point). Private to the subcommands.
 */
#ifndef IOLAB_CMD_SWEEP_H
#define IOLAB_CMD_SWEEP_H

#include "engine/sweeprun.h"

struct sweep_cli_opts {
    const struct lesson_scenario *sc; /* has a sweep (or is wrapped by cmd_sweep_wrap) */
    double seconds;                   /* per point; 0: the sweep's */
    const int *modes;                 /* the series; NULL: the sweep's */
    size_t nmodes;
    enum iolab_tier tier;
    bool progress; /* progress on stderr: a line redrawn on a terminal, else a line a point */
};

/*
 * Runs every point on a loop of its own (headless.h) and fills *res (copied out of the runner).
 * Returns 0 when every point ran, 128+signal when SIGINT, SIGTERM or SIGHUP stopped it (res keeps
 * the finished points), 1 when the loop could not be set up.
 */
int cmd_sweep_run(const struct sweep_cli_opts *o, struct sweep_result *res);

/* A scenario without a sweep as a sweep of one point, measured by fig. Keeps pointers into sc. */
struct cmd_sweep_wrap {
    struct lesson_scenario sc;
    struct lesson_sweep sw;
};
void cmd_sweep_wrap(const struct lesson_scenario *sc, enum figure_id fig, struct cmd_sweep_wrap *w);

#endif
