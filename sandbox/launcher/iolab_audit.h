/*
 * iolab_audit: the page on which the launcher's tracer publishes the system calls it counted on
 * the kernel's side (audit.c), read by iolab's engine while the program runs. It is iolab's
 * memfd, handed to the launcher only (--audit-fd), mapped there and closed before anything of
 * the program runs: the program never holds it, so whatever it writes into its counter page,
 * this page says what the kernel saw it do.
 *
 * One writer (the tracer, single-threaded) and readers that only read: each figure is one
 * aligned 64-bit word, so a reader may see one figure newer than another, never a torn one.
 */
#ifndef IOLAB_AUDIT_H
#define IOLAB_AUDIT_H

#include "iolab_counters.h"

#include <stdint.h>

#define IOLAB_AUDIT_MAGIC 0x696f6c6162617564ULL /* "iolabaud" */

enum iolab_audit_state {
    IOLAB_AUDIT_WAITING = 0, /* the program has not started yet */
    IOLAB_AUDIT_TRACING = 1, /* its calls are being counted */
    IOLAB_AUDIT_REFUSED = 2, /* it runs without the audit: `why` says what refused it */
};

/* The kernel's count of one counted call label (iolab_call_info): every system call of its
   family the program and its descendants made (audit.c lists the families). */
struct iolab_audit_call {
    uint64_t count; /* calls entered, failed ones included */
    uint64_t bytes; /* what the calls that move data returned, summed over those that succeeded */
    uint64_t kind[IOLAB_NFDKINDS];                 /* by the kind of their (source) descriptor */
    uint64_t pair[IOLAB_NFDKINDS][IOLAB_NFDKINDS]; /* two-descriptor calls: [source][dest] */
};

struct iolab_audit_page {
    uint64_t magic;   /* IOLAB_AUDIT_MAGIC, written by iolab when it makes the page */
    uint32_t state;   /* enum iolab_audit_state */
    uint32_t audited; /* bit per call id below 32, then the next word: which labels are traced */
    uint64_t audited_hi;
    uint64_t updates; /* bumps with every counted call */
    char why[256];    /* IOLAB_AUDIT_REFUSED: a sentence */
    struct iolab_audit_call calls[IOLAB_MAX_CALLS];
};

static inline int iolab_audit_traced(const struct iolab_audit_page *p, unsigned id)
{
    return id < 32 ? (int)((p->audited >> id) & 1u) : (int)((p->audited_hi >> (id - 32)) & 1u);
}

#endif
