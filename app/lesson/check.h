/*
 * check: whether a step's checks hold, given what was measured.
 *
 * The grader (grade.h) fills a check_facts with its span of each mode it has seen run
 * (struct mode_span, metrics/figure.h): seconds spent in the mode and, per role, the requests
 * and bytes the demos published, the counted calls by label and the kernel's counts. A check
 * reads its figure over the span of its modes through the figure table. check_eval() is a pure
 * function of a typed check (lesson.h) and those facts, so that progress ("epoll: 3.2 s of 5 s")
 * can be shown as well as the verdict.
 *
 * Which figure a check reads:
 *  - mode set: that mode's entry only (a mode not run yet counts as zero); mode -1: the sum of
 *    every entry;
 *  - role set: that role's figures; role -1: for requests and bytes the client's (what the load
 *    saw completed), for calls the sum of both roles. "seconds" has no role. In an exercise the
 *    requests and bytes are those of the role's programs the learner did not write (the grader's
 *    session fills them so): a program's own published figures prove nothing.
 * A check with a maximum ("no fork": calls:fork, max 0) holds only once its mode has run: a
 * server that has not started has not shown that it makes no fork.
 */
#ifndef IOLAB_CHECK_H
#define IOLAB_CHECK_H

#include "lesson.h"

#include <iolab_counters.h>
#include <stdbool.h>
#include <stdint.h>

/* Parses a check's "metric", the name of the figure it reads: "seconds", "requests", "bytes",
   "calls:LABEL" (call set for the last), or an exercise's: "exit", "output", "syscr", "syscw",
   "bytes_per_syscr", "peak_procs", "peak_threads", "zombies", "spawns". 0, -EINVAL. */
int check_figure_parse(const char *name, enum figure_id *figure, unsigned *call);

/* Every figure name check_figure_parse() accepts, by index from 0; NULL past the last. The
 * loader uses it to suggest a spelling. buf holds the result. */
const char *check_figure_name(size_t i, char *buf, size_t len);

/*
 * Parses a check's "fd" for call `call`: a kind ("file", "socket", "pipe", "other") or, for a
 * call between two descriptors (sendfile, splice, copy_file_range), "SOURCE>DESTINATION".
 * Sets c->fd_kind and c->fd_to. 0; -EINVAL for an unknown kind (why says what is known);
 * -ENOTSUP for a call not counted by descriptor, or a pair on a one-descriptor call.
 */
int check_fd_parse(const char *text, unsigned call, struct lesson_check *c);

/* How long a "zombies" check with only a maximum watches before it is decided with the rest: a
   child counts as left unreaped once it has been a zombie for a second (the sampler's
   SAMPLER_ZOMBIE_S), and the first children of a run take a while to end. */
#define CHECK_ZOMBIE_WATCH_S 2.5

/* What the grader saw of a program beyond the counters, per check (exit and output checks):
   lines that matched, or the exit status. */
struct check_observed {
    double value;    /* output: matching lines; exit: the status */
    bool seen;       /* exit: the program has exited (in the check's mode) */
    char first[160]; /* output: the first matching line (cut), quoted when a maximum fails */
    uint32_t wrong;  /* output with "digest": lines that matched with a digest not the file's */
    char wrong_first[160]; /* the first of them (cut), quoted when the check fails */
};

struct check_facts {
    const struct mode_span *modes;
    size_t nmodes;
    const struct check_observed *observed; /* one per check of the scenario, or NULL */
    bool over;                             /* the run is over: every check is decided */
};

struct check_result {
    bool holds;     /* the bounds hold (and, with a maximum, the mode has run) */
    double value;   /* the figure measured so far */
    double seconds; /* how long the check's mode (or every mode) has run */
    /* The verdict cannot change any more: a count reached its minimum or passed its maximum, a
       program exited, the check's "within" ran out, or the run is over. Deciding early lets a
       check end as soon as its figure is known. */
    bool decided;
    /* The figure has no value (yet): a ratio over nothing, such as bytes per byte served
       before a byte was served. */
    bool undefined;
};

/* Evaluates one check. 0, or -EINVAL when the check's figure or role is out of range. */
int check_eval(const struct lesson_check *check, const struct check_facts *facts,
               struct check_result *out);

/* Evaluates every check of a scenario into results[sc->nchecks]; returns how many hold. Exit and
   output checks read facts->observed[i]. */
size_t check_eval_all(const struct lesson_scenario *sc, const struct check_facts *facts,
                      struct check_result *results);

/* One line of progress: "epoll: 3.2 s of 5 s", "fork: 2 of 1 fork calls", "thread: 0 fork
   calls, at most 0". sc names the mode. Returns snprintf's. */
int check_describe(const struct lesson_check *check, const struct lesson_scenario *sc,
                   const struct check_result *r, char *buf, size_t len);

/* Whether a check's figure only grows (counts, seconds): then a minimum reached or a maximum
   passed is final. */
bool check_monotonic(const struct lesson_check *check);

/* The sentence of a check that is decided and does not hold, for the learner: what was expected,
   what was seen with its figure, the time limit when there is one, and the check's "fail" (where
   to look). "yours: 0 of 20 requests in 2.0 s; expected at least 20 within 2 s: see TODO 1". */
int check_explain(const struct lesson_check *check, const struct lesson_scenario *sc,
                  const struct check_result *r, char *buf, size_t len);

#endif
