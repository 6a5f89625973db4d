/*
 * bench_progress: how long progress_load() takes on a large, valid progress file. Writes files of
 * 50,000 and 400,000 "done" records (one pack, 1,000 lessons) into a temporary directory, loads
 * each RUNS times, and prints the median and the ratio of the two medians: a linear load takes
 * about 8x as long for 8x the records, a quadratic one about 64x.
 *
 * usage: bench_progress [--runs N] [--records A,B]   (defaults 5 and 50000,400000)
 * Not a test: it never fails on a number.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A progress file of n done records, as iolab would write it; 0 or -1. */
static int bench_write(const char *path, long n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"format\": 1, \"packs\": {\"core\": {\"done\": [");
    for (long i = 0; i < n; i++)
        fprintf(f, "%s\"lesson%ld/step%ld\"", i ? ", " : "", i % 1000, i);
    fprintf(f, "], \"answers\": {}, \"last\": {\"lesson\": \"lesson0\", \"step\": \"step0\"}}}}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/*
 * Median seconds of runs loads of path, wall-clock and CPU (the CPU time is steadier on a shared
 * machine), or -1 when a load fails or is incomplete.
 */
static double bench_load(const char *path, long n, int runs, double *cpu)
{
    double t[64], c[64];
    for (int r = 0; r < runs; r++) {
        struct progress *p = NULL;
        double t0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        int rc = progress_load(path, &p);
        t[r] = bench_clock(CLOCK_MONOTONIC) - t0;
        c[r] = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
        int ok = rc == 0 && !p->damaged && p->npacks == 1 && p->packs[0].ndone == (size_t)n;
        progress_free(p);
        if (!ok)
            return -1;
    }
    qsort(t, (size_t)runs, sizeof t[0], bench_cmp);
    qsort(c, (size_t)runs, sizeof c[0], bench_cmp);
    *cpu = c[runs / 2];
    return t[runs / 2];
}

int main(int argc, char **argv)
{
    int runs = 5;
    long n[2] = {50000, 400000};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--records") && i + 1 < argc &&
                 sscanf(argv[++i], "%ld,%ld", &n[0], &n[1]) == 2)
            ;
        else {
            fprintf(stderr, "usage: bench_progress [--runs N] [--records A,B]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > 64)
        runs = 5;
    char dir[] = "/tmp/iolab-bench-progress-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_progress: mkdtemp");
        return 1;
    }
    double med[2], cpu[2];
    int status = 0;
    printf("progress_load() of one pack's done records, median of %d loads\n", runs);
    for (int k = 0; k < 2; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/progress-%ld.json", dir, n[k]);
        if (bench_write(path, n[k]) < 0 || (med[k] = bench_load(path, n[k], runs, &cpu[k])) < 0) {
            fprintf(stderr, "bench_progress: %ld records could not be written or loaded\n", n[k]);
            status = 1;
        } else {
            printf("  %7ld records: %8.3f s (cpu %.3f s)\n", n[k], med[k], cpu[k]);
        }
        unlink(path);
    }
    rmdir(dir);
    if (status == 0)
        printf("  ratio %.1fx (cpu %.1fx) for %.0fx the records (linear: about %.0fx)\n",
               med[1] / med[0], cpu[1] / cpu[0], (double)n[1] / (double)n[0],
               (double)n[1] / (double)n[0]);
    return status;
}
