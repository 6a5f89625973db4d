/*
 * bench_sandbox: what the jail costs. (1) Start-up per program: fork+exec of /bin/true directly,
 * through `iolab-sandbox --join` into a held jail (what the engine does for every program), and
 * through a standalone `iolab-sandbox -- /bin/true` (probe + jail + program), in every tier this
 * machine provides; and bwrap when it is installed. (2) echo-demo throughput with server and
 * client inside one jail vs both outside, alternated run by run. Medians of many runs; the
 * machine is shared and noisy, so only same-run ratios mean much. Never pass/fail.
 *
 * Built and run by bench_sandbox.sh: bench_sandbox BUILD_DIR [STARTS] [ROUNDS]
 */
#include "engine/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs argv to completion with output discarded; returns wall ms, or -1. */
static double timed_run(char *const *argv)
{
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now_ms() - t0;
}

static double median_of(char *const *argv, int n)
{
    double *v = calloc((size_t)n, sizeof *v);
    int k = 0;
    for (int i = 0; i < n; i++) {
        double t = timed_run(argv);
        if (t >= 0)
            v[k++] = t;
    }
    double m = k ? median(v, k) : -1;
    free(v);
    return m;
}

/* Starts argv with stdout into a pipe; returns the pid and the read end in *out. */
static pid_t spawn(char *const *argv, int *out)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    *out = p[0];
    return pid;
}

static void read_all(int fd, char *buf, size_t len)
{
    size_t used = 0;
    ssize_t n;
    while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
        used += (size_t)n;
    buf[used] = 0;
    close(fd);
}

/* One echo run: server (mode epoll) and client for `seconds`; returns requests/s or -1. */
static double echo_once(struct jail *j, const char *libexec, int port, const char *seconds)
{
    char server[512], client[512], portstr[16];
    snprintf(server, sizeof server, "%s/echo-server", libexec);
    snprintf(client, sizeof client, "%s/echo-client", libexec);
    snprintf(portstr, sizeof portstr, "%d", port);
    char *sargv[] = {server, "--port", portstr, "--mode", "epoll", NULL};
    char *cargv[] = {client, "--port",    portstr,         "--connections",
                     "8",    "--seconds", (char *)seconds, "--size",
                     "16",   NULL};
    char **sj = j ? jail_argv(j, sargv, NULL, 0) : NULL,
         **cj = j ? jail_argv(j, cargv, NULL, 0) : NULL;
    int sfd, cfd;
    pid_t sp = spawn(sj ? sj : sargv, &sfd);
    char line[256] = "";
    ssize_t n = read(sfd, line, sizeof line - 1); /* "listening on ..." */
    (void)n;
    pid_t cp = spawn(cj ? cj : cargv, &cfd);
    char out[4096];
    read_all(cfd, out, sizeof out);
    waitpid(cp, NULL, 0);
    kill(sp, SIGTERM);
    waitpid(sp, NULL, 0);
    close(sfd);
    jail_argv_free(sj);
    jail_argv_free(cj);
    const char *r = strstr(out, "req_per_s=");
    return r ? atof(r + 10) : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sandbox BUILD_DIR [STARTS] [ROUNDS]\n");
        return 2;
    }
    int starts = argc > 2 ? atoi(argv[2]) : 200, rounds = argc > 3 ? atoi(argv[3]) : 5;
    char sandbox[512], libexec[512];
    snprintf(sandbox, sizeof sandbox, "%s/bin/iolab-sandbox", argv[1]);
    snprintf(libexec, sizeof libexec, "%s/libexec/iolab", argv[1]);
    char *direct[] = {"/bin/true", NULL};
    double base = median_of(direct, starts);
    printf("start-up, median of %d (ms): /bin/true directly %.3f\n", starts, base);
    static const char *const tiers[] = {"full", "reduced", "minimal"};
    static const enum iolab_tier tier_ids[] = {IOLAB_TIER_FULL, IOLAB_TIER_REDUCED,
                                               IOLAB_TIER_MINIMAL};
    for (int t = 0; t < 3; t++) {
        char wd[] = "/tmp/iolab-bench-XXXXXX";
        if (!mkdtemp(wd))
            return 1;
        struct jail_options o = {.sandbox_path = sandbox, .workdir = wd, .tier = tier_ids[t]};
        struct jail *j;
        char why[256];
        if (jail_open(&j, &o, why, sizeof why) < 0 || jail_tier(j) != tier_ids[t]) {
            printf("  tier %-8s not available here\n", tiers[t]);
            continue;
        }
        char **jargv = jail_argv(j, direct, NULL, 0);
        double joined = median_of(jargv, starts);
        jail_argv_free(jargv);
        char *alone[] = {sandbox, "--tier", (char *)tiers[t], "--", "/bin/true", NULL};
        double standalone = median_of(alone, starts);
        printf("  tier %-8s --join %.3f (+%.3f)   standalone %.3f (+%.3f)\n", tiers[t], joined,
               joined - base, standalone, standalone - base);
        jail_close(j);
        char rm[128];
        snprintf(rm, sizeof rm, "rm -rf %s", wd);
        if (system(rm) != 0) {
        }
    }
    if (access("/usr/bin/bwrap", X_OK) == 0) {
        char *bw[] = {"/usr/bin/bwrap", "--ro-bind",         "/",         "/", "--dev", "/dev",
                      "--unshare-all",  "--die-with-parent", "/bin/true", NULL};
        double b = median_of(bw, starts);
        printf("  bwrap --unshare-all %.3f (+%.3f)\n", b, b - base);
    } else {
        printf("  bwrap: not installed (FACTS.md: 4.3 ms here)\n");
    }

    char wd[] = "/tmp/iolab-bench-XXXXXX";
    if (!mkdtemp(wd))
        return 1;
    struct jail_options o = {.sandbox_path = sandbox, .workdir = wd, .tier = IOLAB_TIER_AUTO};
    struct jail *j;
    char why[256];
    if (jail_open(&j, &o, why, sizeof why) < 0) {
        printf("echo: no jail: %s\n", why);
        return 1;
    }
    double in[64], out[64];
    int outside_port = 18000 + getpid() % 1000;
    for (int r = 0; r < rounds && r < 64; r++) {
        out[r] = echo_once(NULL, libexec, outside_port, "2");
        in[r] = echo_once(j, libexec, jail_port(j), "2");
    }
    double mi = median(in, rounds), mo = median(out, rounds);
    printf("echo epoll, 8 connections, 16 B, %d alternating rounds of 2 s (req/s medians):\n"
           "  outside %.0f   inside (%s tier) %.0f   inside/outside %.3f\n",
           rounds, mo, iolab_tier_name(jail_tier(j)), mi, mi / mo);
    jail_close(j);
    return 0;
}
