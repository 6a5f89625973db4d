/*
 * headless: the one driver of a headless command's libuv loop (run, check, bench, sweeps, pack
 * builds). It owns the loop, the signals that stop a command (SIGINT, SIGTERM, SIGHUP), an
 * optional deadline and the drain at the end; the command puts its own work (an engine, a
 * sweep, a build) on headless.loop and is told through callbacks when to stop it.
 *
 * Model: headless_init() -> the command starts its work on h->loop -> headless_run() runs the
 * loop until the command's own handles are done (the driver's signal handles and deadline timer
 * never keep it alive), calls on_end, closes the driver's handles, runs the loop until every close
 * callback ran, and closes the loop; a handle still open then is reported on stderr as
 * "iolab: internal: handles left open WHAT" (nothing when what is NULL).
 *
 * A signal sets the status to 128+signal (the first one counts) and calls on_signal once per
 * signal: the command stops its work there (engine_stop(), sweeprun_stop(), build_cancel()),
 * and the loop then ends when that work has wound down. The deadline, when set, calls
 * on_deadline once, deadline_s after headless_run() began.
 */
#ifndef IOLAB_HEADLESS_H
#define IOLAB_HEADLESS_H

#include <stdbool.h>
#include <uv.h>

struct headless_options {
    void *data;                             /* passed back to the callbacks */
    void (*on_signal)(void *data, int sig); /* stop the work; NULL: nothing to stop */
    double deadline_s;                      /* 0: none */
    void (*on_deadline)(void *data);
    /* The work is done (the loop ran out of it): close the command's own handles (a timer it
       keeps), which the drain then sees closed. NULL: nothing to close. */
    void (*on_end)(void *data);
    const char *what; /* ends the sentence about handles left open; NULL: say nothing */
};

struct headless {
    uv_loop_t loop;
    int status; /* 0, or 128+signal once a signal stopped the command */
    /* private */
    struct headless_options o;
    uv_signal_t sig[3];
    uv_timer_t deadline;
    bool ready;
};

/* Sets the loop and the signal handlers up. 0, or a negative errno (nothing to free). */
int headless_init(struct headless *h, const struct headless_options *o);

/* Runs the command's work to its end, drains and closes the loop. Returns h->status. */
int headless_run(struct headless *h);

/* Closes the loop without running the work (it could not be set up); drains like run. */
void headless_abandon(struct headless *h);

#endif
