/*
 * sweep: a run step's sweep and headline, as plain data (the run kind's "sweep" and "headline"
 * keys; lessons/README.md documents both).
 *
 * A sweep names a parameter ("size") that the step's program and mode arguments use as a
 * placeholder ("{size}"), the values it takes (each kept as written, which is what the program
 * gets, and as a number for the chart's x axis), the figure a point is measured by (the y axis),
 * how long each point runs and which modes take part. A point is one value in one mode: the
 * scenario with the placeholder replaced (sweep_derive() builds that scenario), run for `seconds`.
 *
 * A headline is what the step's seed reported, as data: "sendfile 1.94x faster than read+send"
 * is {seed, text, mode: sendfile, base: read-send, figure: bytes_per_s, ratio: 1.94, why}.
 * `iolab bench` and the TUI's sweep view set it beside this machine's ratio, with `why` when the
 * two differ (engine/benchmath.h words it for both).
 *
 * Invariants after a load without diagnostics: 1 <= nvalues <= SWEEP_MAX_VALUES, every x > 0,
 * the x are in increasing order; modes[] are valid mode indices (every mode when the sweep names
 * none; one pseudo-mode -1 when the step has no modes); the parameter is used by at least one
 * argument and is not a built-in placeholder. A sweep step's headline has the sweep's figure (the
 * only one its points measure), at the same call for calls:NAME/request.
 */
#ifndef IOLAB_SWEEP_H
#define IOLAB_SWEEP_H

#include "lesson.h"

#include <stdbool.h>
#include <stddef.h>

#define SWEEP_MAX_VALUES 32
#define SWEEP_MAX_MODES  16
#define SWEEP_MAX_TABLE  3 /* figures the table shows under the sweep's own */

struct lesson_sweep {
    char *param;                  /* "size": used as {size} in arguments */
    size_t nvalues;               /* points per mode */
    char *text[SWEEP_MAX_VALUES]; /* each value as written: "4K", "1000" (the labels); the
                                     programs get the number: "4096" */
    double x[SWEEP_MAX_VALUES];   /* and as a number: 4096, 1000 */
    enum figure_id figure;        /* the y axis */
    unsigned call;                /* enum iolab_call_id for FIGURE_ONE_CALL_PER_REQ */
    int role;                     /* whose calls the per-request figures count (server) */
    double seconds;               /* each point's length */
    int modes[SWEEP_MAX_MODES];   /* the modes swept, in order; -1: the step has none */
    size_t nmodes;
    bool log_x;           /* the x axis is logarithmic */
    bool bytes_x;         /* the values are sizes: label them 4K, 1M */
    size_t default_value; /* the value a plain run (Enter, `iolab run`) uses */
    /* The figures the TUI's table shows under the sweep's own, in order: the ones the step's
       text sends the learner to ("table"). has_table false: the table's own choice (p99, and
       the bytes per read call where the kernel counted reads). */
    enum figure_id table[SWEEP_MAX_TABLE];
    size_t ntable;
    bool has_table;
};

struct lesson_headline {
    char *seed; /* "000": the seed file's number */
    char *text; /* "sendfile 1.94x faster than read+send" */
    int mode;   /* the mode the claim is about */
    int base;   /* the mode it is compared with */
    enum figure_id figure;
    unsigned call;
    double ratio; /* the seed's mode / base */
    char *why;    /* the sentence that explains a difference; may be NULL */
    int at;       /* for a sweep step: the value index compared; -1 every point's median */
};

/* The sweep of a step, or NULL. */
const struct lesson_sweep *lesson_step_sweep(const struct lesson_step *step);
/* The headline of a step, or NULL. */
const struct lesson_headline *lesson_step_headline(const struct lesson_step *step);

/* What a sweep shows, for a title: "requests/s by connections", "read calls per request by
   size" (never the lesson's keys or its placeholder's braces); into buf. */
const char *sweep_title(const struct lesson_sweep *sw, char *buf, size_t len);

/*
 * The scenario that runs one value of the sweep: the same scenario with {param} replaced by the
 * value's text in every program's and mode's arguments, and no sweep of its own. It borrows
 * everything else from the original (which must outlive it); free it with sweep_derived_free().
 */
struct sweep_derived {
    struct lesson_scenario sc;
    struct lesson_program *programs;
    struct lesson_mode *modes;
};
int sweep_derive(const struct lesson_scenario *sc, size_t value, struct sweep_derived *out);
void sweep_derived_free(struct sweep_derived *d);

/* "4K", "64K", "1M" for a byte count, the number otherwise ("1000"); into buf. */
const char *sweep_x_label(const struct lesson_sweep *sw, double x, char *buf, size_t len);

/* The run kind's hooks (kind_run.c): parse "sweep" and "headline", free them. */
struct load;
struct cJSON;
struct lesson_sweep *sweep_parse(struct load *ld, const struct cJSON *v);
/* After the programs and modes are known: resolves mode names, checks the parameter is used. */
void sweep_resolve(struct load *ld, const struct cJSON *v, struct lesson_sweep *sw,
                   const struct lesson_scenario *sc);
struct lesson_headline *sweep_headline_parse(struct load *ld, const struct cJSON *v,
                                             const struct lesson_scenario *sc,
                                             const struct lesson_sweep *sw);
void sweep_free(struct lesson_sweep *sw);
void sweep_headline_free(struct lesson_headline *h);

#endif
