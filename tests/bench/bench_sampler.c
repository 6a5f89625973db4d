/*
 * bench_sampler: what the /proc sampler costs as a scenario grows. For each case it starts a
 * load of N processes or one process of N threads, each waking every 50 ms (so context
 * switches and CPU keep moving, as a served connection's do), samples it at --hz for --seconds
 * the way iolab does (sampler_sample, nothing else), and prints:
 *   - cpu%: the sampling process's own CPU time (CLOCK_PROCESS_CPUTIME_ID: user + kernel) over
 *     the wall time, as % of one core; the load runs in other processes and is not in it;
 *   - tick median / p99: wall time of one sampler_sample() call, in ms;
 *   - age max: the oldest /proc figure a snapshot showed (snapshot_prog.proc_age_s), in ms;
 *   - all read: how long after the sampler opened every process and thread had been read once
 *     (the measurement starts then, after one more second);
 *   - seen: the processes and threads the last snapshot counted.
 * Runs alternate the cases round by round (--runs rounds) and print medians.
 *
 * usage: bench_sampler [--runs R] [--seconds S] [--hz H] [--case procs:256,procs:1000,threads:1000]
 *        bench_sampler --load procs|threads N   (the load alone, until killed: for bench_tui.sh)
 * Not a test: it never fails on a number.
 */
#include "metrics/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_CASES 8
#define BENCH_MAX_RUNS  64

static double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One member of the load: wakes every 50 ms, for ever. */
static void *bench_wake(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The load: n processes (this one and n - 1 children) or one process of n threads. Says
   "ready" on stdout (and on ready_fd when >= 0) once all exist, then runs until killed. */
static void bench_load(bool threads, int n, int ready_fd)
{
    if (threads) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (int i = 1; i < n; i++) {
            pthread_t t;
            if (pthread_create(&t, &attr, bench_wake, NULL) != 0) {
                fprintf(stderr, "bench_sampler: thread %d: %s\n", i, strerror(errno));
                _exit(3);
            }
        }
    } else {
        for (int i = 1; i < n; i++) {
            pid_t p = fork();
            if (p < 0) {
                fprintf(stderr, "bench_sampler: fork %d: %s\n", i, strerror(errno));
                _exit(3);
            }
            if (p == 0) {
                if (ready_fd >= 0)
                    close(ready_fd);
                bench_wake(NULL);
            }
        }
    }
    printf("ready: %d %s\n", n, threads ? "threads" : "processes");
    fflush(stdout);
    if (ready_fd >= 0) {
        (void)!write(ready_fd, "r", 1);
        close(ready_fd);
    }
    bench_wake(NULL);
}

struct bench_case {
    bool threads;
    int n;
    double cpu_pct[BENCH_MAX_RUNS], tick_med_ms[BENCH_MAX_RUNS], tick_p99_ms[BENCH_MAX_RUNS],
        age_max_ms[BENCH_MAX_RUNS], first_read_s[BENCH_MAX_RUNS];
    uint32_t procs, nthreads;
};

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    int i = (int)(q * (n - 1) + 0.5);
    return n ? v[i] : 0;
}

static int bench_one(struct bench_case *c, int run, double seconds, double hz)
{
    int ready[2];
    if (pipe(ready) < 0)
        return -errno;
    pid_t load = fork();
    if (load < 0)
        return -errno;
    if (load == 0) {
        setpgid(0, 0);
        close(ready[0]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        bench_load(c->threads, c->n, ready[1]);
        _exit(0);
    }
    setpgid(load, load);
    close(ready[1]);
    char ch;
    bool ok = read(ready[0], &ch, 1) == 1;
    close(ready[0]);
    int rc = 0;
    struct sampler *s = NULL;
    if (!ok || sampler_open(&s, "/proc", 1, hz, bench_clock(CLOCK_MONOTONIC)) < 0) {
        rc = -EIO;
        goto out;
    }
    sampler_set_prog(s, 0, "load", LESSON_ROLE_SERVER);
    sampler_set_root(s, 0, load, 1);
    /* Warm-up: the first sight of every process is a one-off cost (its files are opened), and
       the budget spreads it over several ticks. Measured from when every member was read once
       (at most 30 s; then the measurement starts anyway). */
    double period = 1.0 / hz, next = bench_clock(CLOCK_MONOTONIC), t_open = next;
    int ticks = (int)(seconds * hz), warm = (int)hz;
    const struct snapshot *snap = NULL;
    for (int i = 0; i < 30 * (int)hz; i++) {
        next += period;
        struct timespec ts = {(time_t)next, (long)((next - (double)(time_t)next) * 1e9)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        snap = sampler_sample(s, bench_clock(CLOCK_MONOTONIC));
        if (snap->progs[0].f.proc_unread == 0 && snap->progs[0].f.nthreads >= (uint32_t)c->n)
            break;
    }
    c->first_read_s[run] = bench_clock(CLOCK_MONOTONIC) - t_open;
    double *tick = calloc((size_t)ticks, sizeof *tick), cpu0 = 0, wall0 = 0, age = 0;
    if (!tick) {
        rc = -ENOMEM;
        goto out;
    }
    for (int i = -warm; i < ticks; i++) {
        next += period;
        struct timespec ts = {(time_t)next, (long)((next - (double)(time_t)next) * 1e9)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (i == 0) {
            cpu0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
            wall0 = bench_clock(CLOCK_MONOTONIC);
        }
        double t0 = bench_clock(CLOCK_MONOTONIC);
        snap = sampler_sample(s, t0);
        double t1 = bench_clock(CLOCK_MONOTONIC);
        if (i >= 0) {
            tick[i] = (t1 - t0) * 1000;
            if (snap->progs[0].f.proc_age_s > age)
                age = snap->progs[0].f.proc_age_s;
        }
    }
    double cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - cpu0,
           wall = bench_clock(CLOCK_MONOTONIC) - wall0;
    c->cpu_pct[run] = cpu / wall * 100;
    c->tick_p99_ms[run] = bench_quantile(tick, ticks, 0.99);
    c->tick_med_ms[run] = bench_quantile(tick, ticks, 0.5);
    c->age_max_ms[run] = age * 1000;
    c->procs = snap->progs[0].f.nprocs;
    c->nthreads = snap->progs[0].f.nthreads;
    free(tick);
out:
    sampler_close(s);
    kill(-load, SIGKILL);
    while (waitpid(load, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc;
}

static int bench_parse_case(const char *spec, struct bench_case *c)
{
    char kind[16];
    int n;
    if (sscanf(spec, "%15[a-z]:%d", kind, &n) != 2 || n < 1 || n > 100000 ||
        (strcmp(kind, "procs") && strcmp(kind, "threads")))
        return -EINVAL;
    *c = (struct bench_case){.threads = !strcmp(kind, "threads"), .n = n};
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 5;
    double seconds = 10, hz = 10;
    const char *cases = "procs:256,procs:1000,threads:1000";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--load") && i + 2 < argc) {
            bench_load(!strcmp(argv[i + 1], "threads"), atoi(argv[i + 2]), -1);
            return 0;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--hz") && i + 1 < argc) {
            hz = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            cases = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_sampler [--runs R] [--seconds S] [--hz H] [--case "
                            "procs:N,threads:N,...] | --load procs|threads N\n");
            return 2;
        }
    }
    if (runs < 1 || runs > BENCH_MAX_RUNS || seconds <= 0 || hz < 1 || hz > 100) {
        fprintf(stderr, "bench_sampler: --runs 1..%d, --seconds > 0, --hz 1..100\n",
                BENCH_MAX_RUNS);
        return 2;
    }
    /* The sampler keeps /proc files open: as iolab does (cli.c), take the hard limit. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct bench_case c[BENCH_MAX_CASES];
    int nc = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cases);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (nc == BENCH_MAX_CASES || bench_parse_case(tok, &c[nc]) < 0) {
            fprintf(stderr, "bench_sampler: bad case '%s' (procs:N or threads:N)\n", tok);
            return 2;
        }
        nc++;
    }
    printf("round  case           cpu%%_of_core  tick_median_ms  tick_p99_ms  age_max_ms  "
           "all_read_s  seen\n");
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < nc; k++) {
            int rc = bench_one(&c[k], r, seconds, hz);
            if (rc < 0) {
                fprintf(stderr, "bench_sampler: %s:%d failed: %s\n",
                        c[k].threads ? "threads" : "procs", c[k].n, strerror(-rc));
                return 1;
            }
            printf("%5d  %-7s %5d  %12.2f  %14.3f  %11.3f  %10.0f  %10.1f  %u procs, %u threads\n",
                   r + 1, c[k].threads ? "threads" : "procs", c[k].n, c[k].cpu_pct[r],
                   c[k].tick_med_ms[r], c[k].tick_p99_ms[r], c[k].age_max_ms[r],
                   c[k].first_read_s[r], c[k].procs, c[k].nthreads);
            fflush(stdout);
        }
    printf("medians over %d rounds, %g s each at %g Hz:\n", runs, seconds, hz);
    for (int k = 0; k < nc; k++)
        printf("  %-7s %5d: %.2f%% of one core, %.3f ms a tick (p99 %.3f), oldest figure %.0f ms, "
               "all read once after %.1f s\n",
               c[k].threads ? "threads" : "procs", c[k].n, bench_quantile(c[k].cpu_pct, runs, 0.5),
               bench_quantile(c[k].tick_med_ms, runs, 0.5),
               bench_quantile(c[k].tick_p99_ms, runs, 0.5),
               bench_quantile(c[k].age_max_ms, runs, 0.5),
               bench_quantile(c[k].first_read_s, runs, 0.5));
    printf("reproduce: build/bin/bench_sampler --runs %d --seconds %g --hz %g --case %s\n", runs,
           seconds, hz, cases);
    return 0;
}
