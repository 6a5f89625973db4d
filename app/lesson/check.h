/*
 * check: whether a run step's checks hold, given what the session measured.
 *
 * The caller (the engine or the TUI) fills a check_facts with one entry per mode it has run:
 * seconds spent in the mode and, per role, the requests and bytes the demos published and the
 * counted calls by label. check_eval() is a pure function of a check and those facts, so that the
 * TUI can show progress ("epoll: 3.2 s of 5 s") as well as the verdict.
 *
 * Which figure a check reads:
 *  - mode set: that mode's entry only (a mode not run yet counts as zero); mode NULL: the sum of
 *    every entry;
 *  - role set: that role's figures; role NULL: for requests and bytes the client's (what the load
 *    saw completed), for calls the sum of both roles. "seconds" has no role.
 */
#ifndef IOLAB_CHECK_H
#define IOLAB_CHECK_H

#include "lesson.h"

#include <iolab_counters.h>
#include <stdbool.h>
#include <stdint.h>

enum check_metric_kind {
    CHECK_METRIC_SECONDS,
    CHECK_METRIC_REQUESTS,
    CHECK_METRIC_BYTES,
    CHECK_METRIC_CALLS, /* "calls:NAME" */
};

struct check_metric {
    enum check_metric_kind kind;
    enum iolab_call_id call; /* CHECK_METRIC_CALLS only */
};

/* Parses "seconds", "requests", "bytes" or "calls:LABEL". 0 or -EINVAL. */
int check_metric_parse(const char *metric, struct check_metric *out);

/* Every metric string check_metric_parse() accepts, by index from 0; NULL past the last. The
 * loader uses it to suggest a spelling. buf holds the result. */
const char *check_metric_name(size_t i, char *buf, size_t len);

struct check_role_facts {
    uint64_t requests;            /* requests completed (iolab_app.requests summed) */
    uint64_t bytes;               /* payload bytes delivered (iolab_app.bytes summed) */
    uint64_t calls[IOLAB_NCALLS]; /* counted calls by enum iolab_call_id */
};

struct check_mode_facts {
    const char *mode; /* the mode's id; NULL when the scenario has no modes */
    double seconds;   /* time the programs ran in this mode */
    struct check_role_facts roles[LESSON_NROLES];
};

struct check_facts {
    const struct check_mode_facts *modes;
    size_t nmodes;
};

struct check_result {
    bool holds;   /* value >= min */
    double value; /* the figure measured so far */
    double min;   /* the figure needed */
};

/* Evaluates one check. 0, or -EINVAL when its metric is not one check_metric_parse() accepts. */
int check_eval(const struct lesson_check *check, const struct check_facts *facts,
               struct check_result *out);

/* Evaluates every check of a scenario into results[sc->nchecks]; returns how many hold. */
size_t check_eval_all(const struct lesson_scenario *sc, const struct check_facts *facts,
                      struct check_result *results);

/* One line of progress: "epoll: 3.2 s of 5 s", "fork: 2 of 1 fork calls". Returns snprintf's. */
int check_describe(const struct lesson_check *check, const struct check_result *r, char *buf,
                   size_t len);

#endif
