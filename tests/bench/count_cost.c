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
 *   count_cost [--pairs P] [--block K] [--cpu N] [--threaded 1]
 *   (defaults 4000, 256, the CPU it starts on, one thread)
 *
 * --threaded 1 first starts a thread that sleeps until the end: in a process with threads libc
 * and the shim make read() a cancellation point (shim.c, "Direct calls"), so this measures the
 * path a threaded program takes.
 *
 * Prints one line: "pairs=P block=K calls=N diff_ns=D lo_ns=L hi_ns=H plain_ns=T", where T is
 * the median cost of one uncounted call (for scale) and N the counted calls made (P*K).
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

int main(int argc, char **argv)
{
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
    }
    if (pairs < 20 || pairs > 1000000 || block < 1 || block > 100000) {
        fprintf(stderr, "usage: count_cost [--pairs 20..1000000] [--block 1..100000] [--cpu N] "
                        "[--threaded 1]\n");
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
    ssize_t (*plain)(int, void *, size_t) = libc ? dlsym(libc, "read") : NULL;
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (!plain || fd < 0) {
        fprintf(stderr, "count_cost: no libc read or no /dev/zero\n");
        return 1;
    }
    double *diff = malloc((size_t)pairs * sizeof *diff),
           *base = malloc((size_t)pairs * sizeof *base);
    if (!diff || !base)
        return 1;
    char buf[1];
    /* Warm both paths (the shim claims its slot on its first counted call). */
    for (long k = 0; k < block; k++) {
        (void)read(fd, buf, 0);
        (void)plain(fd, buf, 0);
    }
    long counted = block;
    for (long p = 0; p < pairs; p++) {
        double t[3];
        int counted_first = !(p & 1);
        t[0] = cost_now_ns();
        for (long k = 0; k < block; k++)
            (void)(counted_first ? read(fd, buf, 0) : plain(fd, buf, 0));
        t[1] = cost_now_ns();
        for (long k = 0; k < block; k++)
            (void)(counted_first ? plain(fd, buf, 0) : read(fd, buf, 0));
        t[2] = cost_now_ns();
        double a = t[1] - t[0], b = t[2] - t[1];
        double with = counted_first ? a : b, without = counted_first ? b : a;
        diff[p] = (with - without) / (double)block;
        base[p] = without / (double)block;
        counted += block;
    }
    qsort(diff, (size_t)pairs, sizeof *diff, cost_cmp);
    qsort(base, (size_t)pairs, sizeof *base, cost_cmp);
    /* The median's 95% interval: order statistics n/2 -+ 1.96 sqrt(n)/2. */
    long half = (long)ceil(1.96 * sqrt((double)pairs) / 2);
    long mid = pairs / 2, lo = mid - half, hi = mid + half;
    if (lo < 0)
        lo = 0;
    if (hi >= pairs)
        hi = pairs - 1;
    printf("pairs=%ld block=%ld calls=%ld diff_ns=%.2f lo_ns=%.2f hi_ns=%.2f plain_ns=%.1f\n",
           pairs, block, counted, diff[mid], diff[lo], diff[hi], base[mid]);
    return 0;
}
