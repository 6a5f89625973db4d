/*
 * supervise: one loop over poll() on a signalfd (and the holder's pidfd), so that signals, child
 * exits, the jail's end and the two deadlines
 * are handled in one place without handlers racing the main flow. SIGPWR is the launcher's
 * parent-death signal in the subreaper shape: iolab is gone, kill everything now.
 */
#include "supervise.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Why a program died, for the one line the learner reads. */
struct supervise_cause {
    const char *text; /* printf format taking the matching limit */
    size_t offset;    /* of the long limit in struct cfg, or 0 */
};

static const struct supervise_cause supervise_causes[NSIG] = {
    [SIGXCPU] = {.text = "it used up its CPU time limit (%ld s)",
                 .offset = offsetof(struct cfg, cpu_s)},
    [SIGXFSZ] = {.text = "it wrote past the file size limit (%ld MiB)",
                 .offset = offsetof(struct cfg, fsize_mb)},
    [SIGSEGV] = {.text = "it crashed (SIGSEGV; the address-space limit is %ld MiB)",
                 .offset = offsetof(struct cfg, as_mb)},
    [SIGBUS] = {.text = "it crashed (SIGBUS)"},
    [SIGABRT] = {.text = "it aborted (SIGABRT; the address-space limit is %ld MiB)",
                 .offset = offsetof(struct cfg, as_mb)},
    [SIGFPE] = {.text = "it crashed (SIGFPE)"},
    [SIGILL] = {.text = "it crashed (SIGILL)"},
};

/* How often the outer launcher reads the jail's pids.events while the program runs: a limit is
   then known to iolab within this long, for the cost of one small read. */
#define SUPERVISE_WATCH_S 0.1

static const int supervise_forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static double supervise_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void supervise_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGPWR);
    for (size_t i = 0; i < sizeof supervise_forwarded / sizeof *supervise_forwarded; i++)
        sigaddset(set, supervise_forwarded[i]);
}

void supervise_block(sigset_t *old)
{
    sigset_t set;
    supervise_set(&set);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* The children listed by /proc for every thread of ours; returns how many were signalled. */
static int supervise_kill_children(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", getpid());
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int n = 0, pid;
    while (fscanf(f, "%d", &pid) == 1) {
        /* Our own unreaped children cannot be recycled, so their pids are safe to signal. */
        kill(pid, SIGKILL);
        n++;
    }
    fclose(f);
    return n;
}

/* wait4(), with what the reaped process cost added to rep: its rusage, and its io read while
   it is still a zombie (after the reap it is folded into ours, with our own). */
static pid_t supervise_reap(pid_t pid, int *st, int flags, struct cost *rep)
{
    siginfo_t si = {0};
    if (rep &&
        waitid(pid > 0 ? P_PID : P_ALL, pid > 0 ? (id_t)pid : 0, &si,
               WEXITED | WNOWAIT | (flags & WNOHANG)) == 0 &&
        si.si_pid > 0) {
        pid = si.si_pid; /* reap exactly the one whose io was read */
        cost_add_io(rep, pid);
    }
    struct rusage ru;
    pid_t p = wait4(pid, st, flags, &ru);
    if (p > 0 && rep)
        cost_add(rep, &ru);
    return p;
}

void supervise_kill_all(struct cost *rep)
{
    for (;;) {
        supervise_kill_children();
        /* Reaping one victim re-parents its children to us; list again after each. */
        if (supervise_reap(-1, NULL, 0, rep) < 0 && errno == ECHILD)
            return;
    }
}

static bool supervise_is_forwarded(int sig)
{
    for (size_t i = 0; i < sizeof supervise_forwarded / sizeof *supervise_forwarded; i++)
        if (supervise_forwarded[i] == sig)
            return true;
    return false;
}

static void supervise_report(const struct cfg *c, int st)
{
    if (c->quiet || !WIFSIGNALED(st))
        return;
    const struct supervise_cause *why = &supervise_causes[WTERMSIG(st)];
    if (!why->text)
        return;
    char text[200];
    long limit = why->offset ? *(const long *)((const char *)c + why->offset) : 0;
    snprintf(text, sizeof text, why->text, limit);
    fprintf(stderr, "iolab-sandbox: %s was stopped: %s.\n", c->argv[0], text);
}

int supervise_run(const struct cfg *c, pid_t child, enum supervise_shape shape, bool subreaper,
                  struct cost *rep)
{
    /* The outer launcher of the full tier forks only the init, a helper, not the program. */
    bool helper = shape == SUPERVISE_OUTER && !subreaper;
    sigset_t set;
    supervise_set(&set);
    double start = supervise_now();
    double wall = shape == SUPERVISE_OUTER && c->timeout_s > 0 ? start + c->timeout_s : INFINITY;
    double kill_at = INFINITY;
    /* The jail's process limit is told on the report descriptor as soon as pids.events rises,
       not only in the final line: a program that reached it and went on (a failed fork ignored)
       may run for a long while, and iolab must be able to name the limit meanwhile. Once. */
    bool watch = shape == SUPERVISE_OUTER && c->report_fd >= 0 && c->cgroup.dir[CGROUP_PIDS] >= 0;
    double watch_at = watch ? start + SUPERVISE_WATCH_S : INFINITY;
    bool timed_out = false, killed = false, done = false;
    int status = 0;
    /* A signalfd, so that the holder's pidfd can be waited for in the same poll(). */
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    while (!done) {
        double now = supervise_now(), until = fmin(fmin(wall, kill_at), watch_at);
        int ms = isinf(until) ? -1 : (int)ceil((until - now > 0 ? until - now : 0) * 1000);
        struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN},
                                {.fd = c->holder_fd, .events = POLLIN}};
        int sig = 0;
        if (poll(pfd, c->holder_fd >= 0 ? 2 : 1, ms) > 0) {
            struct signalfd_siginfo si;
            if (pfd[0].revents && read(sfd, &si, sizeof si) == sizeof si)
                sig = (int)si.ssi_signo;
            else if (c->holder_fd >= 0 && pfd[1].revents)
                sig = SIGPWR; /* the jail is gone: so must the program be */
        }
        if (sig == SIGCHLD || sig == 0) {
            int st;
            pid_t p;
            siginfo_t si = {0};
            /* Its own figures are read while it is a zombie: after the reap they are gone. */
            if (helper && rep &&
                waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == child)
                cost_sub_helper(rep, child);
            while ((p = supervise_reap(-1, &st, WNOHANG, rep)) > 0)
                if (p == child) {
                    status = st;
                    done = true;
                }
        } else if (sig == SIGPWR) {
            kill(child, SIGKILL);
            killed = true;
        } else if (supervise_is_forwarded(sig)) {
            kill(child, sig);
            if (shape == SUPERVISE_OUTER && isinf(kill_at) &&
                (sig == SIGTERM || sig == SIGINT || sig == SIGHUP))
                kill_at = supervise_now() + c->grace_s;
        }
        now = supervise_now();
        if (!done && now >= watch_at) {
            struct cgroup_events ev;
            cgroup_events(&c->cgroup, &ev);
            if (ev.pids_max > c->pids_max_before) {
                cost_write_interim(c->report_fd, cgroup_limit_name(CGROUP_LIMIT_PIDS));
                watch_at = INFINITY;
            } else {
                watch_at = now + SUPERVISE_WATCH_S;
            }
        }
        if (!done && now >= wall && !timed_out) {
            timed_out = true;
            if (!c->quiet)
                fprintf(stderr, "iolab-sandbox: %s was stopped: it ran past its timeout (%g s).\n",
                        c->argv[0], c->timeout_s);
            kill(child, SIGTERM);
            kill_at = now + c->grace_s;
        }
        if (!done && now >= kill_at && !killed) {
            killed = true;
            if (!c->quiet)
                fprintf(stderr,
                        "iolab-sandbox: %s was killed: it was still running %g s after SIGTERM.\n",
                        c->argv[0], c->grace_s);
            kill(child, SIGKILL);
            if (subreaper)
                supervise_kill_children();
        }
    }
    close(sfd);
    if (shape == SUPERVISE_INIT || subreaper)
        supervise_report(c, status);
    if (subreaper)
        supervise_kill_all(rep);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
