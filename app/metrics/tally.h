/*
 * tally: reads the counter page (iolab_counters.h) into per-program totals.
 *
 * A program's figures are the sum of every slot whose prog is its index: the slots of its live
 * threads, the slots its dead threads left (a later thread of the same program and run keeps
 * adding to one), and its RETIRED slots (where the counts of dead threads go when another
 * program needs their slot), in every process of its tree (forked children inherit the mapping
 * and claim their own slots), across restarts unless a run is asked for. So the totals include
 * every thread and process that has exited, however many there were. Fields are loaded relaxed;
 * a value may be one call behind its writer, never torn, and a move between slots is seen whole
 * or not at all.
 */
#ifndef IOLAB_TALLY_H
#define IOLAB_TALLY_H

#include "iolab_counters.h"

#include <stdbool.h>
#include <stdint.h>

#define TALLY_ANY_RUN UINT32_MAX

struct tally_totals {
    struct iolab_call calls[IOLAB_NCALLS];
    uint64_t requests, bytes, conns_opened, conns_closed, errors;
    uint64_t hist[IOLAB_HIST_BUCKETS];
    /* io_uring figures the demos publish themselves (the shim cannot see inside a ring) */
    uint64_t uring_submissions, uring_completions, uring_enters;
    struct iolab_fdsplit fd; /* calls by kind of descriptor, injected faults */
    uint32_t slots;          /* slots that contributed (live, dead and retired threads' slots) */
    uint32_t max_run;        /* highest run seen among them */
    uint32_t unsettled; /* 1 when moves kept overlapping the read: a move may count 0 or 2 times */
    bool forged;        /* values no shim writes were found (and left out): the figures are wrong */
    /* Gauges (iolab_app.waiting...): summed over the slots of the newest run (max_run) only. */
    uint64_t in_flight, waiting, in_flight_oldest_ns;
    uint64_t in_flight_hist[IOLAB_HIST_BUCKETS];
    uint64_t failed[IOLAB_FAIL_NCALLS][IOLAB_FAIL_NCAUSES];
    uint64_t shed;
};

/*
 * Sums the slots of program prog (and of run `run`, or any run with TALLY_ANY_RUN) of a page
 * mapped with nslots validated slots into *out (overwritten). The overflow slot has no single
 * owner and is never attributed; its use shows in the page's overflow_claims.
 */
void tally_sum(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
               struct tally_totals *out);

/*
 * Claims whose counts are not exact, 0 when every count is: threads that found every slot owned
 * by a live thread (their counts are in the overflow slot, unattributed) plus moves of counts cut
 * short by SIGKILL (one field may count twice).
 */
uint32_t tally_overflow(const struct iolab_page *page);

/* a += b, field by field, for the per-descriptor counts and faults. */
void tally_fd_add(struct iolab_fdsplit *a, const struct iolab_fdsplit *b);

#endif
