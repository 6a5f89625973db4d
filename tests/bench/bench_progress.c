/*
 * bench_progress: how long progress_load() takes on a large, valid progress file, and how long an
 * import and an instructor's summary of a large export take. Writes files of 50,000 and 400,000
 * "done" records (one pack, 1,000 lessons) into a temporary directory, loads each RUNS times, and
 * prints the median and the ratio of the two medians: a linear load takes about 8x as long for
 * 8x the records, a quadratic one about 64x. Then the same for exports of 50,000 and 200,000
 * steps, each with an exercise record: `iolab progress --import` into an empty store (the merge
 * and the save) and `--summary` of the file.
 *
 * usage: bench_progress [--runs N] [--records A,B] [--steps A,B]
 *        (defaults 5, 50000,400000 and 50000,200000)
 * Not a test: it never fails on a number.
 */
#include "exchange.h"
#include "progress.h"

#include <stdbool.h>
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

/* An export of n steps, each done with an exercise record, as `iolab progress --export` writes
 * it; the text (free it) or NULL. */
static char *bench_export(long n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "{\"iolab_progress\": 1, \"learner\": \"ada\", \"exported_at\": 1764000000, "
               "\"packs\": [{\"id\": \"core\", \"version\": null, \"steps\": [");
    for (long i = 0; i < n; i++)
        fprintf(f,
                "%s\n{\"step\": \"lesson%ld/step%ld\", \"done\": true, \"done_at\": %ld, "
                "\"updated\": %ld, \"fields\": {\"exercise\": {\"attempts\": %ld}}}",
                i ? "," : "", i % 1000, i, 1764000000 + i, 1764000000 + i, i % 7);
    fprintf(f, "]}]}\n");
    return fclose(f) == 0 ? text : (free(text), NULL);
}

/* Median seconds of an import of text (n steps) into an empty store saved under dir, and of a
 * summary of it; -1 when either fails. */
static int bench_exchange(const char *dir, const char *text, long n, int runs, double *imp,
                          double *sum, double *imp_cpu)
{
    double ti[64], ts[64], tc[64];
    char path[256];
    snprintf(path, sizeof path, "%s/imported.json", dir);
    for (int r = 0; r < runs; r++) {
        unlink(path);
        struct progress *p = NULL;
        if (progress_load(path, &p) < 0)
            return -1;
        struct exchange_import_result res;
        char why[512];
        double t0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        struct exchange_import_opts o = {.info = NULL};
        int rc = exchange_import(p, text, strlen(text), &o, &res, why, sizeof why);
        if (rc == 0)
            rc = progress_save(p);
        ti[r] = bench_clock(CLOCK_MONOTONIC) - t0;
        tc[r] = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
        bool ok = rc == 0 && res.added == (size_t)n && p->packs[0].ndone == (size_t)n;
        progress_free(p);
        FILE *devnull = fopen("/dev/null", "w");
        const char *files[] = {"export.json"}, *texts[] = {text};
        t0 = bench_clock(CLOCK_MONOTONIC);
        rc = devnull ? exchange_summary(devnull, files, texts, 1, NULL, 0, false, why, sizeof why)
                     : -1;
        ts[r] = bench_clock(CLOCK_MONOTONIC) - t0;
        if (devnull)
            fclose(devnull);
        if (!ok || rc < 0)
            return -1;
    }
    unlink(path);
    qsort(ti, (size_t)runs, sizeof ti[0], bench_cmp);
    qsort(ts, (size_t)runs, sizeof ts[0], bench_cmp);
    qsort(tc, (size_t)runs, sizeof tc[0], bench_cmp);
    *imp_cpu = tc[runs / 2];
    *imp = ti[runs / 2];
    *sum = ts[runs / 2];
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 5;
    long n[2] = {50000, 400000}, steps[2] = {50000, 200000};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--records") && i + 1 < argc &&
                 sscanf(argv[++i], "%ld,%ld", &n[0], &n[1]) == 2)
            ;
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc &&
                 sscanf(argv[++i], "%ld,%ld", &steps[0], &steps[1]) == 2)
            ;
        else {
            fprintf(stderr, "usage: bench_progress [--runs N] [--records A,B] [--steps A,B]\n");
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
    if (status == 0)
        printf("  ratio %.1fx (cpu %.1fx) for %.0fx the records (linear: about %.0fx)\n",
               med[1] / med[0], cpu[1] / cpu[0], (double)n[1] / (double)n[0],
               (double)n[1] / (double)n[0]);
    double imp[2], sum[2], imp_cpu[2];
    printf("an export's --import into an empty store (merge and save) and its --summary, median "
           "of %d\n",
           runs);
    for (int k = 0; k < 2; k++) {
        char *text = bench_export(steps[k]);
        if (!text || bench_exchange(dir, text, steps[k], runs, &imp[k], &sum[k], &imp_cpu[k]) < 0) {
            fprintf(stderr, "bench_progress: an export of %ld steps could not be imported\n",
                    steps[k]);
            status = 1;
        } else {
            printf("  %7ld steps: import %8.3f s (cpu %.3f s), summary %8.3f s\n", steps[k], imp[k],
                   imp_cpu[k], sum[k]);
        }
        free(text);
    }
    if (status == 0)
        printf("  ratio import %.1fx, summary %.1fx for %.0fx the steps (linear: about %.0fx)\n",
               imp[1] / imp[0], sum[1] / sum[0], (double)steps[1] / (double)steps[0],
               (double)steps[1] / (double)steps[0]);
    rmdir(dir);
    return status;
}
