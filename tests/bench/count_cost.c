/*
 * count_cost: what the counting path adds to one call, measured inside one process. bench_counting
 * runs it under the shim with a counter page (and once without the shim, as the control).
 *
 * The cheapest counted call is a zero-length read() of /dev/zero: the kernel returns at once, so
 * what varies is the path around it. The program calls it two ways in blocks of K calls, the
 * blocks alternating (and which goes first alternating too, so drift and cache effects hit both
 * alike): through `read`, which the dynamic linker binds to the shim's wrapper when the shim is
 * preloaded, and through libc's own read, looked up in libc.so.6 itself, which the shim never
 * sees. Each pair of blocks gives one difference per call; the figure is the median of the pairs'
 * differences with a 95% confidence interval of that median (order statistics, no assumption
 * about the noise's shape). Without the shim both ways are libc's, and the difference is the
 * measurement's own bias, which should be zero within its interval.
 *
 *   count_cost [--pairs P] [--block K] [--cpu N] [--threaded 1] [--copy FILE]
 *   (defaults 4000, 256, the CPU it starts on, one thread, the zero-length read)
 *
 * --copy FILE times a copy loop instead: read() 4 KiB of FILE (from the page cache, rewound at
 * its end) and write() them to /dev/null, the loop of `dd bs=4096` and of the copy lesson, so
 * that the end-to-end figure is measured the same interleaved way; the line then also gives
 * "ratio=", the median of the pairs' uncounted/counted time (the copy's speed counted, as a
 * fraction of its speed uncounted) with its interval.
 *
 * --threaded 1 first starts a thread that sleeps until the end: in a process with threads libc
 * and the shim make read() a cancellation point (shim.c, "Direct calls"), so this measures the
 * path a threaded program takes.
 *
 * Prints one line: "pairs=P block=K calls=N diff_ns=D lo_ns=L hi_ns=H plain_ns=T ratio=R
 * ratio_lo=RL ratio_hi=RH", where T is the median cost of one uncounted iteration (for scale)
 * and N the counted reads made (P*K, and the warm-up's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static double cost_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The second thread of --threaded: it only exists. */
static void *cost_idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static int cost_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static ssize_t (*plain_read)(int, void *, size_t);
static ssize_t (*plain_write)(int, const void *, size_t);
static int op_fd = -1, op_null = -1, op_copy;
static char op_buf[4096];

/* One iteration of the timed loop, through the shim (counted) or straight to libc. */
static inline void cost_op(int counted)
{
    if (!op_copy) {
        (void)(counted ? read(op_fd, op_buf, 0) : plain_read(op_fd, op_buf, 0));
        return;
    }
    ssize_t n =
        counted ? read(op_fd, op_buf, sizeof op_buf) : plain_read(op_fd, op_buf, sizeof op_buf);
    if (n <= 0) {
        lseek(op_fd, 0, SEEK_SET);
        return;
    }
    (void)(counted ? write(op_null, op_buf, (size_t)n) : plain_write(op_null, op_buf, (size_t)n));
}

int main(int argc, char **argv)
{
    const char *copy = NULL;
    long pairs = 4000, block = 256, cpu = -1, threaded = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pairs"))
            pairs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--block"))
            block = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu"))
            cpu = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--threaded"))
            threaded = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--copy"))
            copy = argv[i + 1];
    }
    if (pairs < 20 || pairs > 1000000 || block < 1 || block > 100000) {
        fprintf(stderr, "usage: count_cost [--pairs 20..1000000] [--block 1..100000] [--cpu N] "
                        "[--threaded 1] [--copy FILE]\n");
        return 2;
    }
    pthread_t idle;
    if (threaded && pthread_create(&idle, NULL, cost_idle, NULL) != 0) {
        fprintf(stderr, "count_cost: cannot start the second thread\n");
        return 1;
    }
    /* One CPU: a migration in the middle of a block would cost both ways alike, but adds noise. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu >= 0 ? (int)cpu : sched_getcpu(), &set);
    sched_setaffinity(0, sizeof set, &set);

    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    plain_read = libc ? dlsym(libc, "read") : NULL;
    plain_write = libc ? dlsym(libc, "write") : NULL;
    op_copy = copy != NULL;
    op_fd = open(copy ? copy : "/dev/zero", O_RDONLY | O_CLOEXEC);
    op_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (!plain_read || !plain_write || op_fd < 0 || op_null < 0) {
        fprintf(stderr, "count_cost: no libc read, or cannot open %s or /dev/null\n",
                copy ? copy : "/dev/zero");
        return 1;
    }
    double *diff = malloc((size_t)pairs * sizeof *diff),
           *base = malloc((size_t)pairs * sizeof *base),
           *ratio = malloc((size_t)pairs * sizeof *ratio);
    if (!diff || !base || !ratio)
        return 1;
    /* Warm both paths (the shim claims its slot on its first counted call) and, for a copy,
       the file's pages. */
    for (long k = 0; k < block; k++) {
        cost_op(1);
        cost_op(0);
    }
    long counted = block;
    for (long p = 0; p < pairs; p++) {
        double t[3];
        int counted_first = !(p & 1);
        t[0] = cost_now_ns();
        for (long k = 0; k < block; k++)
            cost_op(counted_first);
        t[1] = cost_now_ns();
        for (long k = 0; k < block; k++)
            cost_op(!counted_first);
        t[2] = cost_now_ns();
        double a = t[1] - t[0], b = t[2] - t[1];
        double with = counted_first ? a : b, without = counted_first ? b : a;
        diff[p] = (with - without) / (double)block;
        base[p] = without / (double)block;
        ratio[p] = with > 0 ? without / with : 0;
        counted += block;
    }
    qsort(diff, (size_t)pairs, sizeof *diff, cost_cmp);
    qsort(base, (size_t)pairs, sizeof *base, cost_cmp);
    qsort(ratio, (size_t)pairs, sizeof *ratio, cost_cmp);
    /* The median's 95% interval: order statistics n/2 -+ 1.96 sqrt(n)/2. */
    long half = (long)ceil(1.96 * sqrt((double)pairs) / 2);
    long mid = pairs / 2, lo = mid - half, hi = mid + half;
    if (lo < 0)
        lo = 0;
    if (hi >= pairs)
        hi = pairs - 1;
    printf("pairs=%ld block=%ld calls=%ld diff_ns=%.2f lo_ns=%.2f hi_ns=%.2f plain_ns=%.1f "
           "ratio=%.4f ratio_lo=%.4f ratio_hi=%.4f\n",
           pairs, block, counted, diff[mid], diff[lo], diff[hi], base[mid], ratio[mid], ratio[lo],
           ratio[hi]);
    return 0;
}
