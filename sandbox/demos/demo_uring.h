/*
 * demo_uring: the few lines every io_uring mode shares, around liburing (from the distribution,
 * optional at build time: IOLAB_HAVE_LIBURING).
 *
 * A ring is two queues in memory shared with the kernel: the program writes submission entries
 * (SQEs: "receive on this socket into this buffer"), the kernel writes completion entries (CQEs:
 * "that receive returned 16"). One io_uring_enter() call hands over every submission written
 * since the last one and waits for a completion, however many connections are busy: that is
 * where the system calls per request go down, and why the shim, which counts calls, cannot see
 * the individual operations. So the modes count their own figures here and publish them on the
 * counter page (struct iolab_app: uring_submissions, uring_completions, uring_enters); iolab
 * labels them as the demo's own.
 */
#ifndef IOLAB_DEMO_URING_H
#define IOLAB_DEMO_URING_H

#include "iolab_counters.h"

#include <stdint.h>

#ifdef IOLAB_HAVE_LIBURING
#include <liburing.h>

struct demo_uring {
    struct io_uring ring;
    struct iolab_app *app; /* where the figures go; NULL without the counting shim */
};

/* io_uring_queue_init() with `entries` slots; 0, or -1 after saying why on stderr. */
int demo_uring_init(const char *prog, struct demo_uring *u, unsigned entries);

/* A free submission entry, submitting what is queued first when the queue is full. */
struct io_uring_sqe *demo_uring_sqe(struct demo_uring *u);

/*
 * Hands every queued submission to the kernel and waits for at least one completion: one
 * io_uring_enter(). 0, or -1 when a signal interrupted the wait (the caller checks demo_stop).
 */
int demo_uring_enter(struct demo_uring *u);

/* Counts `n` reaped completions and marks them seen (io_uring_cq_advance). */
void demo_uring_reaped(struct demo_uring *u, unsigned n);

void demo_uring_exit(struct demo_uring *u);
#endif

/* 1 when this program was built with liburing. */
int demo_uring_built(void);

/*
 * For a program's --mode: when `wanted` (the io_uring mode was chosen) and liburing was not
 * there at build time, says so in one sentence and exits 1.
 */
void demo_uring_check(const char *prog, int wanted);

#endif
