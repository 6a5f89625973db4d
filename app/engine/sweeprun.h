/*
 * sweeprun: runs a step's sweep (lesson/sweep.h) on the caller's libuv loop, one point at a time:
 * for each value, each chosen mode in turn (so a machine that drifts affects every mode alike),
 * a fresh engine on the step derived for that value, measured from the first snapshot with the
 * mode's server ready to the last one before `seconds` have passed, then stopped. The TUI,
 * `iolab run` and `iolab bench` drive the same runner, so a point means the same everywhere.
 *
 * A point's figures are the growth between those two snapshots, as `iolab run` computes a
 * segment's: requests and bytes of the client role, calls of the sweep's role, the kernel's
 * syscr of that role, context switches and CPU of every program, the client's latency
 * histogram, and the errors every program counted (refused or reset connections, failed
 * verifications). A point that could not start, or whose programs died, keeps its reason.
 *
 * Stopping keeps every finished point; the result says how many there are and that the sweep was
 * stopped. Callbacks run on the loop thread.
 */
#ifndef IOLAB_SWEEPRUN_H
#define IOLAB_SWEEPRUN_H

#include "jail.h"
#include "lesson/sweep.h"
#include "metrics/figure.h"
#include "metrics/snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/*
 * The figures a point keeps besides its y value, as the figure table computed them over the
 * point's span (the sweep's role's calls), in the order its JSON and CSV write them under their
 * stored keys. A point read back from a sweep's JSON has these and no span to compute over.
 */
struct sweep_kept {
    enum figure_id id;
    const char *key; /* the stored key: the figure's name, but "rchar_per_byte" */
    int decimals;    /* in the JSON and the CSV */
    bool of_role;    /* computed for the sweep's role only */
    bool in_csv;     /* the CSV has a column of it */
};
extern const struct sweep_kept sweep_kept[];
extern const size_t sweep_nkept;

struct sweep_point {
    bool measured;     /* ran its full length (or as long as its load lasted) */
    bool has_figure;   /* figure is defined (per-request figures need requests) */
    double figure;     /* the sweep's figure (the y axis) */
    double seconds;    /* measured time */
    uint64_t requests; /* the load's completed requests */
    uint64_t bytes;    /* the load's payload bytes */
    uint64_t errors;   /* errors every program counted: refused, reset, failed checks */
    uint64_t conns;    /* connections the clients opened */
    uint64_t waiting;  /* requests of the clients unanswered for 100 ms or more at the point's
                          end (waiting their turn); every unanswered one is in p50/p99 for as
                          long as it waited, at most the point's length (metrics/waits.h) */
    uint64_t failed;   /* calls that failed and cost a connection (accept, fork, pthread_create,
                          socket), every program, and connections shed at a limit */
    /*
     * The kept figures (sweep_kept) by id: has[id] says whether fig[id] is defined (a ratio
     * over no request is not; fig[id] is 0 then). Among them, FIGURE_RCHAR_PER_BYTE is the
     * role's bytes through the kernel's read calls per payload byte: near 1 when its read calls
     * (sendfile and copy_file_range among them) moved the bytes, near 0 when they went another
     * way (splice, a mapping), where bytes per read call means nothing; not had in a result
     * saved before it was kept.
     */
    double fig[FIGURE_NIDS];
    bool has[FIGURE_NIDS];
    char problem[200]; /* why the point is not clean, or did not run; "" when clean */
};

/* A kept figure of a point, 0 when it has none. */
static inline double sweep_point_fig(const struct sweep_point *p, enum figure_id id)
{
    return (unsigned)id < FIGURE_NIDS && p->has[id] ? p->fig[id] : 0;
}

struct sweep_result {
    const struct lesson_sweep *sw;
    size_t nmodes;              /* series: sw->modes, or the modes a caller picked */
    int modes[SWEEP_MAX_MODES]; /* scenario mode index of each series (-1: no modes) */
    char mode_ids[SWEEP_MAX_MODES][SNAPSHOT_NAME_LEN]; /* "" without modes */
    size_t nvalues;
    struct sweep_point points[SWEEP_MAX_MODES][SWEEP_MAX_VALUES]; /* [series][value] */
    size_t done;    /* points finished, in run order (value-major) */
    bool stopped;   /* stopped before the last point */
    bool finished;  /* every point ran */
    double seconds; /* each point's length */
    char tier[16];  /* sandbox tier the points ran in */
};

/* Pure: the point measured between two snapshots of the same run (unit-tested). */
void sweep_point_measure(const struct lesson_sweep *sw, const struct snapshot *first,
                         const struct snapshot *last, struct sweep_point *out);

/*
 * Pure: the figure an expected outcome's side names (lesson.h), looked up in a measured point's
 * kept figures (however short the point); false when the point does not have it: a figure the
 * table left undefined, one a point does not keep, one of another role than the sweep's, and
 * one call's count unless it is the sweep's figure.
 */
bool sweep_point_expect_figure(const struct lesson_sweep *sw, const struct sweep_point *p,
                               const struct lesson_expect_side *side, double *out);

struct sweeprun_options {
    double seconds;   /* each point's length; 0: the sweep's */
    const int *modes; /* the series, scenario mode indices; NULL: the sweep's */
    size_t nmodes;
    double tick_hz; /* 0: 10 */
    enum iolab_tier tier;
};

struct sweeprun_callbacks {
    void *data;
    /* A point finished (measured or not): result->done grew by one. */
    void (*on_point)(void *data, const struct sweep_result *res, size_t series, size_t value);
    /* The sweep ended: every point ran, or it was stopped (res->stopped). */
    void (*on_done)(void *data, const struct sweep_result *res);
    /* The running point has a new snapshot (for a live figure); may be NULL. */
    void (*on_tick)(void *data, const struct snapshot *snap);
};

struct sweeprun;

int sweeprun_create(struct sweeprun **out, uv_loop_t *loop, const struct lesson_scenario *sc,
                    const struct sweeprun_options *opts, const struct sweeprun_callbacks *cb);
int sweeprun_start(struct sweeprun *r);
/* Stops the running point (its figures are dropped) and ends the sweep; the finished points are
   kept. on_done follows. */
void sweeprun_stop(struct sweeprun *r);
bool sweeprun_running(const struct sweeprun *r);
const struct sweep_result *sweeprun_result(const struct sweeprun *r);
/* 0..1: finished points and the running point's share of its length. */
double sweeprun_progress(const struct sweeprun *r);
/*
 * Pure: the seconds a sweep still needs, from its own pace: `done` of `total` points took
 * `done_s` seconds of wall time from the start to the end of the last one (start-up, measuring
 * and stopping included: a point of 1 s may take 4), and the running point has run `running_s`
 * since. With no point done yet there is no pace: the points' length alone, a lower bound
 * (*at_least set). A point running past the pace adds nothing until it ends, rather than
 * making the estimate go down faster than the clock.
 */
double sweeprun_estimate(size_t done, size_t total, double done_s, double running_s, double point_s,
                         bool *at_least);
/* The same for a running sweep, now; false when it does not run. */
bool sweeprun_time_left(const struct sweeprun *r, double *seconds, bool *at_least);
/* The series and value running now; false when none. */
bool sweeprun_current(const struct sweeprun *r, size_t *series, size_t *value);
/* Frees it (stops a running point at once); keep running the loop until uv_run() returns. */
void sweeprun_free(struct sweeprun *r);

#endif
