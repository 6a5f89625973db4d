/*
 * prog: RLIMIT_NPROC counts every thread of the uid outside a user namespace, so the limit is
 * set relative to what the uid already runs (its threads), measured by the parent before the
 * fork; inside the full tier's user namespace the count starts afresh. Root ignores RLIMIT_NPROC
 * altogether, hence the drop to an unprivileged uid when iolab runs as root (CI). A jail with a
 * cgroup of its own needs none of this: its pids.max counts that jail alone.
 */
#include "prog.h"

#include "audit.h"

#include "cgroup.h"
#include "landlock.h"
#include "seccomp.h"
#include "leftovers.h"

#include <iolab_counters.h>
#include <iolab_ipclog.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The rlimits, as data: which field of cfg feeds which resource, in which unit. */
struct prog_limit {
    int resource;
    size_t offset; /* of a long in struct cfg; 0 or less: unlimited */
    long unit;
};

static const struct prog_limit prog_limits[] = {
    {.resource = RLIMIT_AS, .offset = offsetof(struct cfg, as_mb), .unit = 1L << 20},
    {.resource = RLIMIT_CPU, .offset = offsetof(struct cfg, cpu_s), .unit = 1},
    {.resource = RLIMIT_FSIZE, .offset = offsetof(struct cfg, fsize_mb), .unit = 1L << 20},
    {.resource = RLIMIT_NOFILE, .offset = offsetof(struct cfg, nofile), .unit = 1},
};

/* The threads of one process (/proc/PID/stat field 20): RLIMIT_NPROC counts every one. */
static long prog_threads(int procfd, const char *pid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "%s/stat", pid);
    int fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    long threads = 1;
    /* After the name: state is field 3, num_threads field 20. */
    if (!p ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
               &threads) != 1 ||
        threads < 1)
        return 1;
    return threads;
}

long prog_nproc_limit(const struct cfg *c, enum iolab_tier tier)
{
    if (tier == IOLAB_TIER_FULL && !c->root)
        return c->nproc + 8; /* a fresh count in the user namespace; 8 for the jail's own */
    uid_t uid = c->root ? c->run_uid : getuid();
    long n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return c->nproc + 64;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
            fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_uid == uid)
            n += prog_threads(dirfd(d), e->d_name); /* the kernel counts threads, not processes */
    }
    closedir(d);
    return n + c->nproc;
}

/*
 * Where the launcher's own messages go from the program's process: stderr, or, once stderr (a
 * terminal) has been replaced by /dev/null, a close-on-exec copy of it, so that a program that
 * cannot start still says why and the program itself never holds the terminal.
 */
static int prog_err_fd = 2;

/* The launcher's pipe for why the program could not start (cfg.h setup_fd); -1: none. */
static int prog_setup_fd = -1;

static _Noreturn void prog_fail(const char *what, const char *prog, int err)
{
    dprintf(prog_err_fd, "iolab-sandbox: cannot run %s: %s: %s\n", prog, what, strerror(err));
    if (prog_setup_fd >= 0 && write(prog_setup_fd, &err, sizeof err) < 0) {
        /* The launcher then only sees the exit status 127. */
    }
    _exit(127);
}

/*
 * A limit above the hard limit this user may raise to (EPERM without CAP_SYS_RESOURCE): the
 * program runs at the hard limit instead, and says so, so that what it later hits ("the sandbox
 * allows N open files") is the value in force. 0, or -1 when even that fails.
 */
static int prog_limit_clamp(int resource, rlim_t want, const char *prog)
{
    struct rlimit cur;
    if (errno != EPERM || getrlimit(resource, &cur) < 0 || cur.rlim_max >= want)
        return -1;
    if (setrlimit(resource, &(struct rlimit){cur.rlim_max, cur.rlim_max}) < 0)
        return -1;
    dprintf(prog_err_fd,
            "iolab-sandbox: %s: asked for a limit of %llu (resource %d), but this user may have at "
            "most %llu: running with %llu\n",
            prog, (unsigned long long)want, resource, (unsigned long long)cur.rlim_max,
            (unsigned long long)cur.rlim_max);
    return 0;
}

static int prog_open_path(const char *name, char *path, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return open(path, O_PATH | O_CLOEXEC);
    }
    const char *dirs = getenv("PATH");
    if (!dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    while (*dirs) {
        size_t n = strcspn(dirs, ":");
        snprintf(path, len, "%.*s/%s", (int)n, dirs, name);
        if (access(path, X_OK) == 0)
            return open(path, O_PATH | O_CLOEXEC);
        dirs += n + (dirs[n] == ':');
    }
    errno = ENOENT;
    return -1;
}

static int prog_take_shim(void);
static int prog_preload(int *fds, int *nfds);

/*
 * Opens the program and its LD_PRELOAD libraries before any namespace is entered: inside the
 * jail the mount namespace may hide their directories (a private /tmp hides an install under
 * /tmp), and an unprivileged uid may not be allowed to read them.
 */
int prog_open(struct cfg *c)
{
    c->exe_fd = prog_open_path(c->argv[0], c->exe_path, sizeof c->exe_path);
    if (c->exe_fd < 0)
        return -errno;
    int rc = prog_take_shim();
    return rc < 0 ? rc : prog_preload(c->preload_fd, &c->npreload);
}

/*
 * Rewrites LD_PRELOAD so that each library is read through a descriptor opened here, as
 * /proc/self/fd/N: neither the jail's mounts nor the unprivileged uid stand between the program
 * and the library. The descriptors stay open across exec (and in every child) on purpose.
 */
static int prog_preload(int *fds, int *nfds)
{
    const char *pre = getenv("LD_PRELOAD");
    *nfds = 0;
    if (!pre || !*pre)
        return 0;
    char out[1024] = "", *save = NULL, *copy = strdup(pre);
    if (!copy)
        return -ENOMEM;
    for (char *lib = strtok_r(copy, ": ", &save); lib; lib = strtok_r(NULL, ": ", &save)) {
        int fd = lib[0] == '/' && *nfds < CFG_MAX_PRELOAD ? open(lib, O_RDONLY) : -1;
        char item[300];
        if (fd >= 0) {
            fds[(*nfds)++] = fd;
            snprintf(item, sizeof item, "%s/proc/self/fd/%d", *out ? ":" : "", fd);
        } else {
            snprintf(item, sizeof item, "%s%s", *out ? ":" : "", lib);
        }
        strncat(out, item, sizeof out - strlen(out) - 1);
    }
    free(copy);
    return setenv("LD_PRELOAD", out, 1) < 0 ? -errno : 0;
}

/*
 * iolab names the counting shim in IOLAB_PRELOAD, not LD_PRELOAD, so that this launcher is never
 * counted as part of the program: the shim joins LD_PRELOAD here, right before the exec.
 */
static int prog_take_shim(void)
{
    const char *shim = getenv(IOLAB_ENV_PRELOAD);
    if (!shim || !*shim)
        return 0;
    const char *pre = getenv("LD_PRELOAD");
    char buf[2048];
    int n =
        snprintf(buf, sizeof buf, "%s%s%s", pre && *pre ? pre : "", pre && *pre ? ":" : "", shim);
    if (n < 0 || (size_t)n >= sizeof buf)
        return -ENAMETOOLONG;
    unsetenv(IOLAB_ENV_PRELOAD);
    return setenv("LD_PRELOAD", buf, 1) < 0 ? -errno : 0;
}

static int prog_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Closes every descriptor above 2 that is not in keep (sorted here). */
static void prog_close_others(int *keep, int n)
{
    qsort(keep, (size_t)n, sizeof *keep, prog_cmp);
    int lo = 3;
    for (int i = 0; i < n; i++) {
        if (keep[i] < lo)
            continue;
        if (keep[i] > lo)
            close_range((unsigned)lo, (unsigned)keep[i] - 1, 0);
        lo = keep[i] + 1;
    }
    close_range((unsigned)lo, ~0U, 0);
}

/*
 * The terminal is the person's: the program gets a session of its own, so it has no controlling
 * terminal (/dev/tty answers ENXIO, and no terminal signals it), and every descriptor it would
 * inherit on a terminal (0, 1, 2 or a kept one) becomes /dev/null. Without this, a pack's build
 * started from a shell could open /dev/tty and push keystrokes into that shell.
 */
static void prog_leave_terminal(const struct cfg *c, const char *name)
{
    if (setsid() < 0)
        prog_fail("a session of its own", name, errno);
    int fds[3 + CFG_MAX_KEEP], n = 0, null = -1;
    for (int fd = 0; fd <= 2; fd++)
        fds[n++] = fd;
    for (int i = 0; i < c->nkeep; i++)
        fds[n++] = c->keep[i];
    int err = isatty(2) ? fcntl(2, F_DUPFD_CLOEXEC, 3) : -1;
    if (err >= 0)
        prog_err_fd = err;
    for (int i = 0; i < n; i++) {
        if (!isatty(fds[i]))
            continue;
        if (null < 0 && (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
            prog_fail("/dev/null", name, errno);
        if (null != fds[i] && dup2(null, fds[i]) < 0)
            prog_fail("replacing a terminal descriptor", name, errno);
    }
    /* Opened into a closed 0, 1 or 2, it stays there: better /dev/null than a hole. */
    if (null > 2)
        close(null);
}

_Noreturn void prog_exec(const struct cfg *c, enum iolab_tier tier, pid_t parent)
{
    const char *name = c->argv[0];
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(137);

    int exe = c->exe_fd;
    const char *path = c->exe_path;
    bool drop = c->root && c->run_uid != 0;
    int keep[CFG_MAX_KEEP + CFG_MAX_PRELOAD + 2], nkeep = 0;
    for (int i = 0; i < c->npreload; i++)
        keep[nkeep++] = c->preload_fd[i];
    for (int i = 0; i < c->nkeep; i++)
        keep[nkeep++] = c->keep[i];
    keep[nkeep++] = exe;
    /* Close-on-exec: open until the exec, so that a failure on the way can say why. */
    prog_setup_fd = c->setup_fd;
    if (prog_setup_fd >= 0)
        keep[nkeep++] = prog_setup_fd;
    prog_close_others(keep, nkeep);
    prog_leave_terminal(c, name);

    const char *wd = c->workdir ? c->workdir : ".";
    if (c->workdir && chdir(c->workdir) < 0)
        prog_fail("work directory", name, errno);
    if (c->workdir) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s/tmp", c->workdir);
        setenv("TMPDIR", tier == IOLAB_TIER_FULL ? "/tmp" : tmp, 1);
    }
    if (c->session)
        setenv("IOLAB_SESSION", c->session, 1);
    /* Where the shim records the IPC objects the programs create, for the lower tiers' removal
     * of leftovers (leftovers.c); the full tier's IPC namespace dies with the jail and needs no
     * record. */
    char log[4096];
    if (tier != IOLAB_TIER_FULL && leftovers_log_env(log, sizeof log) == 0)
        setenv(IOLAB_ENV_IPC_LOG, log, 1);
    else
        unsetenv(IOLAB_ENV_IPC_LOG);

    setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
    for (size_t i = 0; i < sizeof prog_limits / sizeof *prog_limits; i++) {
        long v = *(const long *)((const char *)c + prog_limits[i].offset);
        if (v > 0) {
            rlim_t r = (rlim_t)v * (rlim_t)prog_limits[i].unit;
            /* At the hard CPU limit the kernel sends SIGKILL, which says nothing; one second
             * more lets SIGXCPU (the soft limit) be the cause the learner sees. */
            rlim_t hard = prog_limits[i].resource == RLIMIT_CPU ? r + 1 : r;
            if (setrlimit(prog_limits[i].resource, &(struct rlimit){r, hard}) < 0 &&
                prog_limit_clamp(prog_limits[i].resource, r, name) < 0)
                prog_fail("setrlimit", name, errno);
        }
    }
    /* With the jail's own pids.max, RLIMIT_NPROC would only add the uid's shared count, which
     * other sessions move: it is left as it is. */
    char jail_pids[32];
    snprintf(jail_pids, sizeof jail_pids, "%ld", c->cgroup.pids_max);
    if (c->cgroup.pids_max > 0)
        setenv(CGROUP_ENV_PIDS, jail_pids, 1);
    else
        unsetenv(CGROUP_ENV_PIDS);
    if (c->nproc > 0 && c->cgroup.pids_max == 0) {
        rlim_t r = (rlim_t)c->nproc_limit;
        if (setrlimit(RLIMIT_NPROC, &(struct rlimit){r, r}) < 0)
            prog_fail("setrlimit", name, errno);
    } else if (c->cgroup.pids_max > 0 && c->root) {
        /* Root's own RLIMIT_NPROC would follow the programs to the shared uid: the jail's
           pids.max is the one process limit in force. */
        setrlimit(RLIMIT_NPROC, &(struct rlimit){RLIM_INFINITY, RLIM_INFINITY});
    }
    if (drop && (setgroups(0, NULL) < 0 || setresgid(c->run_gid, c->run_gid, c->run_gid) < 0 ||
                 setresuid(c->run_uid, c->run_uid, c->run_uid) < 0))
        prog_fail("dropping to the unprivileged uid", name, errno);
    if (tier != IOLAB_TIER_MINIMAL) {
        int rc = landlock_apply(wd, tier == IOLAB_TIER_FULL && c->workdir, c->port,
                                tier == IOLAB_TIER_REDUCED);
        if (rc < 0 && !(tier == IOLAB_TIER_FULL && rc == -EOPNOTSUPP))
            prog_fail("Landlock", name, -rc);
    }
    /* Last, so that nothing above runs under it; in every tier, since the minimal one has no
       other wall. A kernel without seccomp filters runs the program without it (the probe
       lists it as missing); any other failure stops the program rather than run it unguarded. */
    /* The graded run's audit: the tracer stays here, the program goes on in a child. */
    audit_fork(c);
    int rc = seccomp_tty_apply();
    if (rc < 0 && rc != -EOPNOTSUPP)
        prog_fail("the terminal ioctl filter", name, -rc);
    if ((rc = audit_filter_apply(c)) < 0)
        prog_fail("the audit's filter", name, -rc);
    extern char **environ;
    syscall(SYS_execveat, exe, "", c->argv, environ, AT_EMPTY_PATH);
    /* A script run through an O_PATH descriptor cannot name itself to its interpreter. */
    if (errno == ENOENT)
        execv(path, c->argv);
    prog_fail("exec", name, errno);
}
