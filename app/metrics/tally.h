/*
 * tally: reads the counter page (iolab_counters.h) into per-program totals.
 *
 * A program's figures are the sum of every slot whose prog is its index: one slot per thread
 * that ever made a counted call, in every process of its tree (forked children inherit the
 * mapping and claim their own slots), across restarts unless a run is asked for. Slots are never
 * reused, so the totals include threads and processes that have exited. Fields are loaded
 * relaxed; a value may be one call behind its writer, never torn.
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
    uint32_t slots;   /* slots that contributed: threads that made a counted call */
    uint32_t max_run; /* highest run seen among them */
    bool forged;      /* values no shim writes were found (and left out): the figures are wrong */
};

/*
 * Sums the slots of program prog (and of run `run`, or any run with TALLY_ANY_RUN) of a page
 * mapped with nslots validated slots into *out (overwritten). The overflow slot has no single
 * owner and is never attributed; its use shows in the page's overflow_claims.
 */
void tally_sum(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
               struct tally_totals *out);

/* Threads that found the page full (their counts are in the overflow slot, unattributed). */
uint32_t tally_overflow(const struct iolab_page *page);

#endif
