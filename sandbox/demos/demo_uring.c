/* demo_uring: see demo_uring.h. */
#include "demo_uring.h"
#include "demo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int demo_uring_built(void)
{
#ifdef IOLAB_HAVE_LIBURING
    return 1;
#else
    return 0;
#endif
}

void demo_uring_check(const char *prog, int wanted)
{
    if (wanted && !demo_uring_built()) {
        fprintf(stderr,
                "%s: the io_uring mode is not in this build: liburing (liburing-dev) was "
                "missing when it was compiled.\n",
                prog);
        exit(1);
    }
}

#ifdef IOLAB_HAVE_LIBURING
int demo_uring_init(const char *prog, struct demo_uring *u, unsigned entries)
{
    u->app = iolab_app();
    /* One thread uses the ring (SINGLE_ISSUER), and the kernel finishes its completions when
       that thread enters to wait (DEFER_TASKRUN) instead of interrupting it for each: fewer
       wake-ups per batch. Kernels before 6.1 refuse these flags; then the plain ring. */
    int err = io_uring_queue_init(entries, &u->ring,
                                  IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
    if (err == -EINVAL)
        err = io_uring_queue_init(entries, &u->ring, 0);
    if (err < 0) {
        /* ENOSYS/EPERM: a kernel built without it, kernel.io_uring_disabled, or a filter. */
        fprintf(stderr, "%s: io_uring_setup: %s: this kernel does not let us use io_uring.\n", prog,
                strerror(-err));
        return -1;
    }
    return 0;
}

struct io_uring_sqe *demo_uring_sqe(struct demo_uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    while (!sqe) { /* the submission queue is full: hand it over now, without waiting */
        int n = io_uring_submit(&u->ring);
        if (u->app) {
            iolab_add(&u->app->uring_enters, 1);
            if (n > 0)
                iolab_add(&u->app->uring_submissions, (uint64_t)n);
        }
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

int demo_uring_enter(struct demo_uring *u)
{
    /* One io_uring_enter(): submit everything queued, and sleep until a completion exists. */
    int n = io_uring_submit_and_wait(&u->ring, 1);
    if (u->app) {
        iolab_add(&u->app->uring_enters, 1);
        if (n > 0)
            iolab_add(&u->app->uring_submissions, (uint64_t)n);
    }
    return n < 0 && n != -ETIME && n != -EBUSY ? -1 : 0;
}

void demo_uring_reaped(struct demo_uring *u, unsigned n)
{
    io_uring_cq_advance(&u->ring, n);
    if (u->app)
        iolab_add(&u->app->uring_completions, n);
}

void demo_uring_exit(struct demo_uring *u)
{
    io_uring_queue_exit(&u->ring);
}
#endif
