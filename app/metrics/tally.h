/*
 * tally: reads a counter page (iolab_counters.h) into a program's totals.
 *
 * iolab gives each start of each program a page of its own (app/engine/engine.c), so a page's
 * figures are its program's, whatever its slots say: tally_page() sums every claimed slot of the
 * page and never looks at the prog field a program writes itself (a program could write another
 * program's index there, or every index). Those are the slots of its live threads, the slots its
 * dead threads left (a later thread keeps adding to one), and its RETIRED slots, in every process
 * of its tree (forked children inherit the mapping and claim their own slots). So the totals
 * include every thread and process of that start that has exited, however many there were. The
 * starts before it are the sampler's to add (each finished page's last totals, tally_add()).
 * Fields are loaded relaxed; a value may be one call behind its writer, never torn, and a move
 * between slots is seen whole or not at all.
 *
 * tally_sum() is the same scan restricted to one (prog, run) pair: the shim's own tests put
 * several pairs on one page to exercise slot reuse. iolab never attributes counts that way.
 */
#ifndef IOLAB_TALLY_H
#define IOLAB_TALLY_H

#include "iolab_counters.h"

#include <stdbool.h>
#include <stdint.h>

#define TALLY_ANY_RUN  UINT32_MAX
#define TALLY_ANY_PROG UINT32_MAX

/*
 * Call sites summed over a program's pages (iolab_counters.h, "Call sites"): merged by (object
 * name, offset, call), since each page names its objects in its own order.
 */
#define TALLY_SITES 128

struct tally_site {
    uint64_t offset; /* in the object: return address minus its load bias */
    uint32_t object; /* index into tally_sites.objects */
    uint32_t call;   /* enum iolab_call_id */
    uint64_t count;  /* calls made from here */
};

struct tally_sites {
    uint32_t n;        /* sites[0, n) */
    uint32_t nobjects; /* objects[0, nobjects) */
    struct tally_site site[TALLY_SITES];
    struct iolab_object objects[IOLAB_OBJECTS]; /* names copied from the pages, NUL-terminated */
    uint64_t other[IOLAB_NCALLS]; /* calls of each call from sites that found no room */
};

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
    uint32_t lost;      /* the page's tally_overflow(): claims whose counts are not exact */
    /* Gauges (iolab_app.waiting...): summed over the slots of the newest run (max_run) only. */
    uint64_t in_flight, waiting, in_flight_oldest_ns;
    uint64_t in_flight_hist[IOLAB_HIST_BUCKETS];
    uint64_t failed[IOLAB_FAIL_NCALLS][IOLAB_FAIL_NCAUSES];
    uint64_t shed;
    struct tally_sites sites; /* where the counted calls were made */
};

/*
 * Sums every claimed slot of a page mapped with nslots validated slots into *out (overwritten):
 * the totals of the program the page was given to. The overflow slot has no single owner and is
 * never added; its use shows in out->lost. A NULL page gives zeros.
 */
void tally_page(const struct iolab_page *page, uint32_t nslots, struct tally_totals *out);

/*
 * tally_page() restricted to the slots of program prog (TALLY_ANY_PROG: any) and run `run`
 * (TALLY_ANY_RUN: any), for tests that share one page between several (prog, run) pairs.
 */
void tally_sum(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
               struct tally_totals *out);

/*
 * Adds the totals of a finished page b into a (a program's earlier starts): counts, bytes,
 * histograms, failures and the lost and forged marks. Not the gauges (in_flight, waiting,
 * in_flight_oldest_ns, in_flight_hist): they describe the newest start only, so a keeps its own.
 */
void tally_add(struct tally_totals *a, const struct tally_totals *b);

/*
 * Claims whose counts are not exact, 0 when every count is: threads that found every slot owned
 * by a live thread (their counts are in the overflow slot, unattributed) plus moves of counts cut
 * short by SIGKILL (one field may count twice).
 */
uint32_t tally_overflow(const struct iolab_page *page);

/* The calls of `call` counted at sites (its sites' counts plus other[call]). */
uint64_t tally_sites_calls(const struct tally_sites *t, unsigned call);

/* a += b, field by field, for the per-descriptor counts and faults. */
void tally_fd_add(struct iolab_fdsplit *a, const struct iolab_fdsplit *b);

#endif
