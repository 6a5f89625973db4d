/*
 * hold: launchers that join the jail are iolab's children, not the holder's, so the holder
 * learns that they are gone through a file lock they hold shared: taking it exclusively
 * succeeds once the last one has exited (after killing its subtree). Only then is removing the
 * leftover IPC objects and the work directory safe the work directory safe from a program that is
 * still creating them.
 */
#include "hold.h"

#include "cgroup.h"
#include "ns.h"
#include "leftovers.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_LOCK_WAIT_MS 900

int hold_lock_open(const char *workdir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.iolab-jail.lock", workdir);
    return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

static uid_t hold_chown_uid;
static gid_t hold_chown_gid;

static int hold_chown_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    /* Best effort, entry by entry: one that cannot be handed over (removed meanwhile) stays
       as it is, and the walk goes on to the others (nftw stops at a non-zero return). */
    int rc = lchown(path, hold_chown_uid, hold_chown_gid);
    (void)rc;
    return 0;
}

/* The work directory and its private tmp/, usable by the uid the programs will run as. */
int hold_prepare_workdir(const struct cfg *c)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/tmp", c->workdir);
    if (mkdir(tmp, 01777) < 0 && errno != EEXIST)
        return -errno;
    chmod(tmp, 01777);
    if (c->root && c->run_uid != 0) {
        hold_chown_uid = c->run_uid;
        hold_chown_gid = c->run_gid;
        if (nftw(c->workdir, hold_chown_one, 16, FTW_PHYS) < 0)
            return -errno;
    }
    return 0;
}

/*
 * The jail's own budget, before the namespaces: a cgroup where one can be had; as root without
 * one, a uid of its own; else the per-process limits alone, which the probe's budget field and
 * the missing list say (one line on stderr too, unless --quiet).
 */
void hold_budget(struct cfg *c, struct probe *p)
{
    char why[300];
    static int uid_lock = -1; /* held until exit: the uid stays this jail's */
    bool made = cgroup_create(&c->cgroup, c->jail_pids, c->memory_mb, why, sizeof why) == 0;
    /* A cgroup with a memory cap but no pids.max still leaves the process count shared. */
    p->cgroup.pids = made && c->cgroup.pids_max > 0;
    p->cgroup.memory = made && c->cgroup.memory_mb > 0;
    p->budget = probe_budget(p, c->tier);
    if (p->budget == PROBE_BUDGET_CGROUP)
        return;
    unsigned uid;
    if (p->budget == PROBE_BUDGET_UID && c->run_uid == 65534 &&
        cgroup_take_uid(&uid, &uid_lock) == 0) {
        c->run_uid = (uid_t)uid;
        c->run_gid = (gid_t)uid;
        return;
    }
    if (p->budget == PROBE_BUDGET_UID)
        p->budget = PROBE_BUDGET_PROCESS; /* every uid of the range is taken, or --uid given */
}

/* Blocks until EOF (or an error) on the life pipe, or SIGTERM/SIGINT/SIGHUP; reaps meanwhile. */
static void hold_wait_life(int life_fd)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    struct pollfd pfd[2] = {{.fd = life_fd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    for (;;) {
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents) {
            char buf[64];
            ssize_t n = read(life_fd, buf, sizeof buf);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                break;
        }
        if (pfd[1].revents) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) == sizeof si && si.ssi_signo != SIGCHLD)
                break;
            while (waitpid(-1, NULL, WNOHANG) > 0) {
            }
        }
    }
    close(sfd);
}

/* Takes the lock exclusively, waiting at most HOLD_LOCK_WAIT_MS for joined launchers. */
static void hold_wait_launchers(int lock)
{
    for (int ms = 0; ms < HOLD_LOCK_WAIT_MS; ms += 5) {
        if (flock(lock, LOCK_EX | LOCK_NB) == 0)
            return;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
}

static void hold_report(const struct cfg *c, const struct probe *p, pid_t pid)
{
    char sandbox[4096], cgroup[8400], line[12800];
    probe_json(p, c->tier, sandbox, sizeof sandbox);
    cgroup_json(&c->cgroup, cgroup, sizeof cgroup);
    /* "uid": who the programs run as (a jail's own uid when it has no cgroup, as root);
       "cgroup": where each --join launcher puts its program. */
    int n =
        snprintf(line, sizeof line,
                 "{\"pid\":%d,\"port\":%d,\"session\":\"%s\",\"uid\":%u,\"cgroup\":%s,"
                 "\"sandbox\":%s}\n",
                 pid, c->port, c->session ? c->session : "", (unsigned)c->run_uid, cgroup, sandbox);
    if (write(c->status_fd, line, (size_t)n) < 0) {
        /* iolab is gone already; the life pipe's EOF ends the jail. */
    }
    close(c->status_fd);
}

/*
 * Three processes: this one stays in the host's namespaces (so it can still see and remove the
 * work directory, which the private /tmp hides), a child builds the namespaces, and its child
 * is PID 1 of the scenario's PID namespace: when it exits, the kernel kills everything in it.
 */
static int hold_full(struct cfg *c, const struct probe *p)
{
    struct ns_fs fs = {.workdir = c->workdir, .tmp_mb = c->tmp_mb, .ro = c->ro, .nro = c->nro};
    pid_t builder = fork();
    if (builder < 0)
        return 1;
    if (builder == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int rc = ns_create(c->root, &fs);
        if (rc < 0) {
            fprintf(stderr, "iolab-sandbox: cannot build the namespaces: %s\n", strerror(-rc));
            _exit(1);
        }
        /* The init's parent is outside its namespace (getppid() is 0): a pidfd tells if the
         * builder is gone before PR_SET_PDEATHSIG took effect. */
        int self_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
        pid_t init = ns_fork_init();
        if (init < 0)
            _exit(1);
        if (init == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (self_fd >= 0 && poll(&(struct pollfd){.fd = self_fd, .events = POLLIN}, 1, 0) != 0)
                _exit(1);
            prctl(PR_SET_NAME, "iolab-jail-init");
            hold_wait_life(c->life_fd);
            _exit(0);
        }
        hold_report(c, p, init);
        close(c->life_fd);
        int st;
        while (waitpid(init, &st, 0) < 0 && errno == EINTR) {
        }
        _exit(0);
    }
    close(c->status_fd);
    close(c->life_fd);
    int st;
    while (waitpid(builder, &st, 0) < 0 && errno == EINTR) {
    }
    /* The programs' launchers end with the holder's init, a moment later: whatever is still in
       the jail's cgroup is killed there before it goes. */
    cgroup_destroy(&c->cgroup);
    if (c->remove_workdir)
        leftovers_tree(c->workdir);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int hold_other(struct cfg *c, const struct probe *p)
{
    struct leftovers reg;
    leftovers_begin(&reg, c->workdir);
    int lock = hold_lock_open(c->workdir);
    hold_report(c, p, getpid());
    hold_wait_life(c->life_fd);
    if (lock >= 0)
        hold_wait_launchers(lock);
    cgroup_destroy(&c->cgroup);
    leftovers_ipc(&reg, c->root ? c->run_uid : getuid(), c->session);
    if (c->remove_workdir)
        leftovers_tree(c->workdir);
    return 0;
}

int hold_run(struct cfg *c, const struct probe *probe)
{
    if (!c->workdir) {
        fprintf(stderr, "iolab-sandbox: --hold needs --workdir\n");
        return 2;
    }
    /* Before the work directory is handed over: the uid may be the jail's own. */
    struct probe copy = *probe, *p = &copy;
    hold_budget(c, p);
    int rc = hold_prepare_workdir(c);
    if (rc < 0) {
        fprintf(stderr, "iolab-sandbox: cannot prepare %s: %s\n", c->workdir, strerror(-rc));
        cgroup_destroy(&c->cgroup);
        return 1;
    }
    prctl(PR_SET_NAME, "iolab-jail");
    return c->tier == IOLAB_TIER_FULL ? hold_full(c, p) : hold_other(c, p);
}
