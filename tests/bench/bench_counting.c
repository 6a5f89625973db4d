/*
 * bench_counting: what counting costs. Runs the same workload without the shim (A) and with it
 * and a counter page (B), alternating A B A B so that the machine's drift hits both alike, and
 * prints the medians and the median of the pairs' ratios B/A.
 *
 *   echo: echo-server --mode epoll and echo-client --connections 8 --size 16 --seconds S; the
 *         figure is the client's own req_per_s (the shim counts in both programs).
 *   copy: dd bs=4096 copying a cached file to /dev/null; the figure is bytes per second. Then
 *         the same loop inside one process (count_cost --copy), counted and uncounted blocks
 *         interleaved as for the path: whole runs of dd spread by 15% here, the interleaved
 *         blocks by a fraction of a percent.
 *   path: count_cost (count_cost.c) inside one process: zero-length reads through the shim and
 *         through libc directly, interleaved in blocks, enough of them that the median
 *         difference per call is known to well under a nanosecond; the same program without
 *         the shim is the control (its difference should be 0). The counted reads are then
 *         summed from the page and must equal the number made: counts stay exact. Measured
 *         twice: in a process with one thread and in one with two, where the call is also a
 *         cancellation point (shim.c, "Direct calls").
 *
 * usage: bench_counting [--runs N] [--seconds S] [--copy-mib M] [--pairs P]
 *                       [--only path|echo|copy]
 *        (defaults 5, 2, 256, 20000; N runs of each workload, the path included; --only runs
 *        one workload)
 * Not a test: it never fails on a number. Build dir is found from the executable's location.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iolab_page.h"

static char bench_build[PATH_MAX];
static int bench_page_fd = -1;

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts argv with stdout into *out_fd (if out_fd), counted when `counted`. */
static pid_t bench_spawn(char *const argv[], int counted, int *out_fd)
{
    int p[2] = {-1, -1};
    if (out_fd && pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (out_fd)
            dup2(p[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (!out_fd)
            dup2(null, 1);
        dup2(null, 2);
        if (counted) {
            char shim[PATH_MAX + 64], fd[16];
            snprintf(shim, sizeof shim, "%s/lib/iolab/libiolab-count.so", bench_build);
            snprintf(fd, sizeof fd, "%d", bench_page_fd);
            setenv("LD_PRELOAD", shim, 1);
            setenv("IOLAB_COUNTERS_FD", fd, 1);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    if (out_fd) {
        close(p[1]);
        *out_fd = p[0];
    }
    return pid;
}

static ssize_t bench_read_all(int fd, char *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    return (ssize_t)got;
}

/* One echo run: requests per second reported by the client, or -1. */
static double bench_echo(int counted, int seconds)
{
    char server[PATH_MAX + 64], client[PATH_MAX + 64], secs[16], line[4096], port[16];
    snprintf(server, sizeof server, "%s/libexec/iolab/echo-server", bench_build);
    snprintf(client, sizeof client, "%s/libexec/iolab/echo-client", bench_build);
    snprintf(secs, sizeof secs, "%d", seconds);
    char *sargv[] = {server, "--port", "0", "--mode", "epoll", NULL};
    int sfd;
    pid_t spid = bench_spawn(sargv, counted, &sfd);
    /* The server prints "listening on 127.0.0.1:PORT mode=epoll" and flushes it. */
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof line && (n = read(sfd, line + got, sizeof line - 1 - got)) > 0) {
        got += (size_t)n;
        line[got] = '\0';
        if (strstr(line, " mode="))
            break;
    }
    line[got] = '\0';
    char *colon = strstr(line, "listening on ") ? strchr(strstr(line, "listening on "), ':') : NULL;
    double rate = -1;
    if (colon && sscanf(colon + 1, "%15[0-9]", port) == 1) {
        char *cargv[] = {client,      "--port", port, "--connections", "8", "--size", "16",
                         "--seconds", secs,     NULL};
        int cfd;
        pid_t cpid = bench_spawn(cargv, counted, &cfd);
        bench_read_all(cfd, line, sizeof line);
        close(cfd);
        waitpid(cpid, NULL, 0);
        char *r = strstr(line, "req_per_s=");
        if (r)
            rate = strtod(r + 10, NULL);
    }
    kill(spid, SIGTERM);
    waitpid(spid, NULL, 0);
    close(sfd);
    return rate;
}

/* One copy run: MiB/s of dd bs=4096 from a cached file to /dev/null. */
static double bench_copy(int counted, const char *file, int mib)
{
    char in[PATH_MAX + 8], count[32];
    snprintf(in, sizeof in, "if=%s", file);
    snprintf(count, sizeof count, "count=%d", mib * 256);
    char *argv[] = {"/bin/dd", in, "of=/dev/null", "bs=4096", count, NULL};
    double t0 = bench_now();
    pid_t pid = bench_spawn(argv, counted, NULL);
    int st;
    waitpid(pid, &st, 0);
    double t = bench_now() - t0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? mib / t : -1;
}

/* One count_cost run (counted: under the shim as program 7 of the page); its line, parsed. */
struct bench_path {
    long calls;
    double diff, lo, hi, plain, ratio, ratio_lo, ratio_hi;
};

/* copy: the file of the in-process copy loop, or NULL for the zero-length read. */
static int bench_path_run(int counted, int threaded, long pairs, const char *copy,
                          struct bench_path *out)
{
    char prog[PATH_MAX + 64], np[32], line[512];
    snprintf(prog, sizeof prog, "%s/bin/count_cost", bench_build);
    snprintf(np, sizeof np, "%ld", pairs);
    char *argv[] = {prog,
                    "--pairs",
                    np,
                    "--threaded",
                    threaded ? "1" : "0",
                    "--block",
                    copy ? "64" : "256",
                    copy ? "--copy" : NULL,
                    (char *)copy,
                    NULL};
    setenv("IOLAB_PROG", "7", 1);
    int fd;
    pid_t pid = bench_spawn(argv, counted, &fd);
    unsetenv("IOLAB_PROG");
    bench_read_all(fd, line, sizeof line);
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    char *l = strstr(line, "calls=");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !l ||
        sscanf(l,
               "calls=%ld diff_ns=%lf lo_ns=%lf hi_ns=%lf plain_ns=%lf ratio=%lf ratio_lo=%lf "
               "ratio_hi=%lf",
               &out->calls, &out->diff, &out->lo, &out->hi, &out->plain, &out->ratio,
               &out->ratio_lo, &out->ratio_hi) != 8)
        return -1;
    return 0;
}

/* read() calls counted on the page for program 7 (count_cost), all its slots. */
static uint64_t bench_page_reads(const struct iolab_page *page)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i + 1 < page->nslots; i++) {
        const struct iolab_slot *s = iolab_page_slot(page, page->nslots, i);
        if (s && s->prog == 7)
            n += iolab_slot_calls(s, IOLAB_CALL_READ);
    }
    return n;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* `runs` runs of count_cost under the shim, each followed by its control (the same program
   without the shim): per run the counted figure (copy: the speed ratio; else the ns added per
   call), the control's and the uncounted cost; the figures' range and the widest interval. */
struct bench_runs {
    double fig[50], ctl[50], plain[50], lo, hi, width;
    long calls;
};

static int bench_path_runs(int threaded, long pairs, const char *copy, int runs,
                           struct bench_runs *out)
{
    out->calls = 0;
    out->width = 0;
    for (int r = 0; r < runs; r++) {
        struct bench_path c, u;
        if (bench_path_run(1, threaded, pairs, copy, &c) < 0 ||
            bench_path_run(0, threaded, pairs, copy, &u) < 0) {
            fprintf(stderr, "bench_counting: count_cost failed (is it built?)\n");
            return -1;
        }
        out->fig[r] = copy ? c.ratio : c.diff;
        out->ctl[r] = copy ? u.ratio : u.diff;
        out->plain[r] = c.plain;
        out->calls += c.calls;
        double w = copy ? c.ratio_hi - c.ratio_lo : c.hi - c.lo;
        out->width = w > out->width ? w : out->width;
        out->lo = r == 0 || out->fig[r] < out->lo ? out->fig[r] : out->lo;
        out->hi = r == 0 || out->fig[r] > out->hi ? out->fig[r] : out->hi;
    }
    return 0;
}

/* The counting path's cost per call, measured in one process, with the control beside it: `runs`
   runs of each, alternated, since the machine's state moves the figure between runs far more
   than the spread inside one. */
static int bench_path(const struct iolab_page *page, long pairs, int runs)
{
    for (int threaded = 0; threaded < 2; threaded++) {
        struct bench_runs b;
        uint64_t before = bench_page_reads(page);
        if (bench_path_runs(threaded, pairs, NULL, runs, &b) < 0)
            return -1;
        uint64_t counted = bench_page_reads(page) - before;
        printf("path  %s: the counting path adds %.2f ns per call (median of %d runs, %.2f to "
               "%.2f;\n      each run %ld pairs of 256 calls, 95%% interval at most %.2f ns wide), "
               "around a zero-length\n      read() that costs %.1f ns uncounted; control without "
               "the shim: %.2f ns\n",
               threaded ? "two threads" : "one thread", bench_median(b.fig, runs), runs, b.lo, b.hi,
               pairs, b.width, bench_median(b.plain, runs), bench_median(b.ctl, runs));
        printf("path  counts: %llu read() calls counted of %ld made: %s\n",
               (unsigned long long)counted, b.calls,
               counted == (uint64_t)b.calls ? "exact" : "WRONG");
    }
    return 0;
}

/* The 4 KiB copy loop inside one process, counted and uncounted blocks interleaved (count_cost
   --copy): its speed counted as a fraction of its speed uncounted, run by run, with the control
   (the same program without the shim, whose "ratio" should be 1). */
static int bench_copy_loop(const char *file, long pairs, int runs)
{
    struct bench_runs b;
    if (bench_path_runs(0, pairs, file, runs, &b) < 0)
        return -1;
    printf("loop  4 KiB read()+write() copy loop in one process, counted and uncounted blocks "
           "interleaved:\n      counted/uncounted speed %.4f (median of %d runs, %.4f to %.4f; "
           "each run %ld pairs of 64 copies,\n      95%% interval at most %.4f wide), a copy "
           "costing %.0f ns uncounted; control without the shim: %.4f\n",
           bench_median(b.fig, runs), runs, b.lo, b.hi, pairs, b.width, bench_median(b.plain, runs),
           bench_median(b.ctl, runs));
    return 0;
}

static void bench_report(const char *what, const char *unit, double *a, double *b, int n)
{
    printf("%-5s runs:", what);
    for (int i = 0; i < n; i++)
        printf(" A %.0f B %.0f", a[i], b[i]);
    /* The ratio of each A B pair, taken a few seconds apart, shares the machine's state of the
       moment; its median is the figure to quote when the runs spread (they do here). */
    double r[n];
    for (int i = 0; i < n; i++)
        r[i] = a[i] > 0 ? b[i] / a[i] : 0;
    double ma = bench_median(a, n), mb = bench_median(b, n), mr = bench_median(r, n);
    printf("\n%-5s median uncounted %.0f %s, counted %.0f %s; median of the pairs' "
           "counted/uncounted %.3f\n",
           what, ma, unit, mb, unit, mr);
}

int main(int argc, char **argv)
{
    int runs = 5, seconds = 2, mib = 256;
    const char *only = NULL; /* --only: one workload of path, echo, copy */
    long pairs = 20000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds"))
            seconds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--copy-mib"))
            mib = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pairs"))
            pairs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
    }
    int bad_only = only && strcmp(only, "path") && strcmp(only, "echo") && strcmp(only, "copy");
    if (runs < 1 || runs > 50 || seconds < 1 || mib < 1 || pairs < 20 || bad_only) {
        fprintf(stderr, "usage: bench_counting [--runs N] [--seconds S] [--copy-mib M] "
                        "[--pairs P] [--only path|echo|copy]\n");
        return 2;
    }
    /* <build>/bin/bench_counting -> <build> */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return 1;
    self[n] = '\0';
    snprintf(bench_build, sizeof bench_build, "%s", dirname(dirname(self)));

    struct iolab_page *page;
    int fd;
    if (iolab_page_create(256, &fd, &page) < 0) {
        fprintf(stderr, "bench_counting: cannot create a counter page\n");
        return 1;
    }
    bench_page_fd = fcntl(fd, F_DUPFD, 100); /* inheritable: the page's own fd is CLOEXEC */

    if ((!only || !strcmp(only, "path")) && bench_path(page, pairs, runs) < 0)
        return 1;
    double a[50], b[50];
    if (!only || !strcmp(only, "echo")) {
        for (int i = 0; i < runs; i++) {
            a[i] = bench_echo(0, seconds);
            b[i] = bench_echo(1, seconds);
        }
        bench_report("echo", "req/s", a, b, runs);
    }
    if (!only || !strcmp(only, "copy")) {
        char file[] = "/tmp/iolab-bench-XXXXXX";
        int tfd = mkstemp(file);
        static char block[1 << 20];
        memset(block, 'x', sizeof block);
        for (int i = 0; i < mib; i++)
            if (write(tfd, block, sizeof block) != (ssize_t)sizeof block)
                return 1;
        close(tfd);
        bench_copy(0, file, mib); /* warm the page cache */
        for (int i = 0; i < runs; i++) {
            a[i] = bench_copy(0, file, mib);
            b[i] = bench_copy(1, file, mib);
        }
        bench_report("copy", "MiB/s", a, b, runs);
        if (bench_copy_loop(file, pairs / 10 < 20 ? 20 : pairs / 10, runs) < 0)
            return 1;
        unlink(file);
    }
    printf("page: %u slots claimed\n", page->next_slot);
    return 0;
}
