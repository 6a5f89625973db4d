/*
 * iolab-sandbox: jails one program (or, with --hold and --join, every program of one scenario)
 * and passes its fate back: the exit status is the program's, or 128+signal.
 *
 * Processes, in the full tier:  iolab -> launcher -> init (PID 1 of the program's own PID
 * namespace, nested in the scenario's) -> program. Killing the launcher's child kills exactly
 * that program's subtree, setsid and double-fork escapes included; the holder's init dying
 * kills the whole scenario. In the reduced and minimal tiers: iolab -> launcher (a child
 * subreaper) -> program, and the launcher kills every orphan that reaches it before it exits.
 *
 * Options are data (a table below); each one sets one field of struct cfg.
 */
#include "cfg.h"
#include "cgroup.h"
#include "hold.h"
#include "ns.h"
#include "probe.h"
#include "prog.h"
#include "cost.h"
#include "supervise.h"
#include "leftovers.h"
#include "audit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * AddressSanitizer reserves terabytes of address space for its shadow memory at start-up, so a
 * program built with it (every demo of an IOLAB_SANITIZE build, like this launcher) cannot start
 * under any RLIMIT_AS. In such a build the limit is off unless --as asks for one.
 */
#ifdef __SANITIZE_ADDRESS__
#define MAIN_DEFAULT_AS_MB 0
#else
#define MAIN_DEFAULT_AS_MB 4096
#endif
#define MAIN_DEFAULT_MEMORY_MB 4096 /* a jail's memory, all its processes together */
#define MAIN_DEFAULT_JAIL_PIDS 1024 /* a scenario jail's processes and threads together */
#define MAIN_STR_(x)           #x
#define MAIN_STR(x)            MAIN_STR_(x)

struct main_option {
    const char *name;
    const char *arg;  /* metavariable shown by --help; NULL: a flag */
    const char *help; /* one line */
    int (*set)(struct cfg *c, const char *v);
};

/*
 * A standalone run with --remove-workdir (iolab's builds) has its work directory removed when it
 * ends, but only if iolab, its parent, is gone by then: a live iolab still has the product to
 * collect and removes the directory itself. The removal is done by a cleaner forked before any
 * namespace is entered, so that it sees the host's mounts: inside the full tier's mount
 * namespace the work directory is also mounted inside itself (under the private /tmp), and a
 * removal from there would walk into those mounts.
 */
static pid_t main_parent;

/* Deeper trees are left in place: each level holds a descriptor while it is emptied. */
#define MAIN_RM_DEPTH 128

/* Removes name in dirfd without following a link or entering a mount: a file at once, a
   directory after its entries, each level opened with O_NOFOLLOW (the program could write links
   there) and checked to be on the same mount as the work directory. */
static void main_rm_at(int dirfd, const char *name, dev_t dev, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno != EISDIR || depth >= MAIN_RM_DEPTH)
        return;
    struct statx sx;
    if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) < 0 ||
        (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT & sx.stx_attributes) ||
        makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            main_rm_at(fd, e->d_name, dev, depth + 1);
    closedir(d);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Removes the work directory now, through its parent directory up (named name in it). */
static void main_rm_workdir(int up, const char *name)
{
    struct stat st;
    if (name[0] && strcmp(name, ".") && strcmp(name, "..") &&
        fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        main_rm_at(up, name, st.st_dev, 0);
}

/* Splits the work directory into its parent (opened) and its last component. */
static int main_workdir_parent(const struct cfg *c, const char **name)
{
    char up[PATH_MAX];
    const char *slash = strrchr(c->workdir, '/');
    *name = slash ? slash + 1 : c->workdir;
    snprintf(up, sizeof up, "%.*s", slash ? (int)(slash == c->workdir ? 1 : slash - c->workdir) : 1,
             slash ? c->workdir : ".");
    return open(up, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/*
 * Starts the cleaner: a grandchild (so that no subreaper reaping by this launcher kills it, and it
 * is nobody's business to wait for) in a session of its own (Ctrl-C of iolab's terminal is not
 * for it), holding only the read end of a pipe whose write end this launcher (and its init,
 * which dies with it) holds. At EOF it removes the work directory if iolab has ended.
 */
static void main_start_cleaner(const struct cfg *c)
{
    const char *name;
    int up = main_workdir_parent(c, &name);
    int iolab = (int)syscall(SYS_pidfd_open, main_parent, 0);
    int p[2] = {-1, -1};
    if (up < 0 || pipe2(p, O_CLOEXEC) < 0) {
        if (up >= 0)
            close(up);
        if (iolab >= 0)
            close(iolab);
        return;
    }
    pid_t first = fork();
    if (first == 0) {
        if (fork() != 0)
            _exit(0);
        setsid();
        prctl(PR_SET_NAME, "iolab-sbx-clean");
        /* Nothing of the launcher's but its own three descriptors: holding iolab's output pipe
           would delay the end of the build's output. */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int fd = 0; fd < 3 && null >= 0; fd++)
            dup2(null, fd);
        DIR *open_fds = opendir("/proc/self/fd");
        for (struct dirent *e; open_fds && (e = readdir(open_fds));) {
            int fd = atoi(e->d_name);
            if (fd > 2 && fd != dirfd(open_fds) && fd != p[0] && fd != up && fd != iolab)
                close(fd);
        }
        if (open_fds)
            closedir(open_fds);
        char b;
        while (read(p[0], &b, 1) < 0 && errno == EINTR) {
        }
        bool gone = iolab >= 0 ? poll(&(struct pollfd){.fd = iolab, .events = POLLIN}, 1, 0) > 0
                               : kill(main_parent, 0) < 0 && errno == ESRCH;
        if (gone)
            main_rm_workdir(up, name);
        _exit(0);
    }
    close(p[0]);
    close(up);
    if (iolab >= 0)
        close(iolab);
    if (first > 0)
        while (waitpid(first, NULL, 0) < 0 && errno == EINTR) {
        }
    /* p[1] stays open, unused, until this launcher ends: its closing is the cleaner's cue. */
}

static int main_long(const char *v, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < 0)
        return -EINVAL;
    *out = n;
    return 0;
}

static int main_double(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (*end || d < 0)
        return -EINVAL;
    *out = d;
    return 0;
}

static int set_workdir(struct cfg *c, const char *v)
{
    c->workdir = v;
    return 0;
}
static int set_session(struct cfg *c, const char *v)
{
    c->session = v;
    return 0;
}
static int set_tier(struct cfg *c, const char *v)
{
    int t = iolab_tier_parse(v);
    if (t < 0)
        return -EINVAL;
    c->tier = (enum iolab_tier)t;
    return 0;
}
static int set_port(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n > 65535)
        return -EINVAL;
    c->port = (int)n;
    return 0;
}
static int set_timeout(struct cfg *c, const char *v)
{
    return main_double(v, &c->timeout_s);
}
static int set_grace(struct cfg *c, const char *v)
{
    return main_double(v, &c->grace_s);
}
static int set_nproc(struct cfg *c, const char *v)
{
    return main_long(v, &c->nproc);
}
static int set_as(struct cfg *c, const char *v)
{
    return main_long(v, &c->as_mb);
}
static int set_cpu(struct cfg *c, const char *v)
{
    return main_long(v, &c->cpu_s);
}
static int set_fsize(struct cfg *c, const char *v)
{
    return main_long(v, &c->fsize_mb);
}
static int set_nofile(struct cfg *c, const char *v)
{
    return main_long(v, &c->nofile);
}
static int set_tmp_size(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n < 1 || n > 1024 * 1024)
        return -EINVAL;
    c->tmp_mb = n;
    return 0;
}
/* An absolute path other than / and /tmp themselves: showing either read-only would take the
   jail's private /tmp away. */
static int set_ro(struct cfg *c, const char *v)
{
    if (v[0] != '/' || c->nro == CFG_MAX_RO)
        return -EINVAL;
    char real[PATH_MAX];
    const char *r = realpath(v, real) ? real : v;
    if (!strcmp(r, "/") || !strcmp(r, "/tmp") || !strcmp(r, "/tmp/"))
        return -EINVAL;
    c->ro[c->nro++] = v;
    return 0;
}
static int set_uid(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0)
        return -EINVAL;
    c->run_uid = (uid_t)n;
    c->run_gid = (gid_t)n;
    return 0;
}
static int set_pids(struct cfg *c, const char *v)
{
    return main_long(v, &c->jail_pids);
}
static int set_memory(struct cfg *c, const char *v)
{
    return main_long(v, &c->memory_mb);
}
static int set_cgroup(struct cfg *c, const char *v)
{
    const char *base = strrchr(v, '/');
    if (!base || strncmp(base + 1, "iolab-", 6) || c->ncgroup_paths == CGROUP_NCTL)
        return -EINVAL;
    c->cgroup_paths[c->ncgroup_paths++] = v;
    return 0;
}
static int set_keep(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n < 3 || c->nkeep == CFG_MAX_KEEP)
        return -EINVAL;
    c->keep[c->nkeep++] = (int)n;
    return 0;
}
static int set_report(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n < 3 || n > INT_MAX)
        return -EINVAL;
    c->report_fd = (int)n;
    return 0;
}
static int set_audit(struct cfg *c, const char *v)
{
    return audit_parse(c, v);
}
static int set_audit_fd(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n < 3 || n > INT_MAX)
        return -EINVAL;
    int rc = audit_map(c, (int)n);
    if (rc < 0)
        fprintf(stderr, "iolab-sandbox: --audit-fd %ld: %s\n", n, strerror(-rc));
    return rc;
}
static int set_audit_off(struct cfg *c, const char *v)
{
    (void)v;
    c->audit_off = true;
    return 0;
}
static int set_quiet(struct cfg *c, const char *v)
{
    (void)v;
    c->quiet = true;
    return 0;
}
static int set_remove(struct cfg *c, const char *v)
{
    (void)v;
    c->remove_workdir = true;
    return 0;
}
static int set_probe(struct cfg *c, const char *v)
{
    (void)v;
    c->mode = CFG_MODE_PROBE;
    return 0;
}
static int set_help(struct cfg *c, const char *v)
{
    (void)v;
    c->mode = CFG_MODE_HELP;
    return 0;
}
static int set_hold(struct cfg *c, const char *v)
{
    long a, b;
    const char *comma = strchr(v, ',');
    char first[32];
    if (!comma || (size_t)(comma - v) >= sizeof first)
        return -EINVAL;
    snprintf(first, sizeof first, "%.*s", (int)(comma - v), v);
    if (main_long(first, &a) < 0 || main_long(comma + 1, &b) < 0)
        return -EINVAL;
    c->mode = CFG_MODE_HOLD;
    c->status_fd = (int)a;
    c->life_fd = (int)b;
    return 0;
}
static int set_join(struct cfg *c, const char *v)
{
    long n;
    if (main_long(v, &n) < 0 || n < 1)
        return -EINVAL;
    c->mode = CFG_MODE_JOIN;
    c->join_pid = (pid_t)n;
    return 0;
}

static const struct main_option main_options[] = {
    {"--workdir", "DIR", "the program's directory, the only place it may write (default: .)",
     set_workdir},
    {"--tier", "T", "full, reduced or minimal: force a lower tier (default: auto)", set_tier},
    {"--port", "N", "the TCP port the programs may bind and connect to (reduced tier)", set_port},
    {"--timeout", "S", "wall-clock limit in seconds, then SIGTERM (default: none)", set_timeout},
    {"--grace", "S", "seconds from SIGTERM to SIGKILL of everything (default: 1)", set_grace},
    {"--nproc", "N", "processes the program may add (default: 256)", set_nproc},
    {"--as", "MIB", "address space per process in MiB (default: " MAIN_STR(MAIN_DEFAULT_AS_MB) ")",
     set_as},
    {"--cpu", "S", "CPU seconds per process (default: 600)", set_cpu},
    {"--fsize", "MIB", "largest file a process may write, MiB (default: 256)", set_fsize},
    {"--nofile", "N", "open files per process (default: 1024)", set_nofile},
    {"--tmp-size", "MIB",
     "full tier: size of the jail's private /tmp, a tmpfs (default: " MAIN_STR(
         CFG_DEFAULT_TMP_MB) ")",
     set_tmp_size},
    {"--ro", "PATH", "full tier: show PATH read-only at its own path, under /tmp too (repeatable)",
     set_ro},
    {"--pids", "N", "processes and threads of the whole jail (default: --nproc + 2; --hold: 1024)",
     set_pids},
    {"--memory", "MIB", "memory of the whole jail (default: 4096, at most half the RAM; 0: none)",
     set_memory},
    {"--cgroup", "DIR",
     "with --join: the jail's cgroup directory, from --hold's report (repeatable)", set_cgroup},
    {"--uid", "UID", "when run as root: the uid programs run as (default: 65534)", set_uid},
    {"--keep-fd", "N", "a descriptor the program inherits (repeatable)", set_keep},
    {"--session", "NAME", "IOLAB_SESSION: the prefix of the session's IPC names", set_session},
    {"--report-fd", "N", "when the program's subtree is gone: its rusage as a JSON line on N",
     set_report},
    {"--audit", "CALLS",
     "count these call labels (comma-separated) on the kernel's side: a seccomp filter and a "
     "tracer (needs --audit-fd)",
     set_audit},
    {"--audit-fd", "N", "iolab's page (iolab_audit.h) the audit publishes its counts on",
     set_audit_fd},
    {"--audit-off", NULL,
     "with --audit: the program runs unaudited, the page says so (as IOLAB_SANDBOX_AUDIT=off)",
     set_audit_off},
    {"--quiet", NULL, "no report line when the program is stopped", set_quiet},
    {"--probe", NULL, "print the features and tier this machine allows as JSON", set_probe},
    {"--hold", "SFD,LFD", "build a scenario jail, report on SFD, hold it until EOF on LFD",
     set_hold},
    {"--join", "PID", "run the program in the jail held by PID (from --hold's report)", set_join},
    {"--remove-workdir", NULL,
     "remove the work directory at the end (without --hold: if the parent died)", set_remove},
    {"--help", NULL, "this text", set_help},
};

static void main_help(FILE *f)
{
    fprintf(f, "usage: iolab-sandbox [OPTIONS] -- PROGRAM [ARGS...]\n"
               "       iolab-sandbox --probe\n"
               "Runs PROGRAM in a jail: private namespaces (full tier), or Landlock and a child\n"
               "subreaper (reduced), or rlimits and reaping (minimal). The exit status is the\n"
               "program's, or 128+signal; 127 when it cannot be started.\n\n");
    for (size_t i = 0; i < sizeof main_options / sizeof *main_options; i++) {
        char left[40];
        snprintf(left, sizeof left, "%s%s%s", main_options[i].name, main_options[i].arg ? " " : "",
                 main_options[i].arg ? main_options[i].arg : "");
        fprintf(f, "  %-22s %s\n", left, main_options[i].help);
    }
    fprintf(f, "\nThe environment (LD_PRELOAD, IOLAB_*) passes through. As root, programs run as\n"
               "an unprivileged uid. IOLAB_SANDBOX_TIER forces a tier like --tier.\n"
               "Each jail gets a cgroup of its own for --pids and --memory where one can be had;\n"
               "IOLAB_SANDBOX_CGROUP=off refuses it (the fallbacks: see --probe's \"budget\").\n");
}

static int main_parse(struct cfg *c, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const struct main_option *o = NULL;
        for (size_t k = 0; k < sizeof main_options / sizeof *main_options; k++)
            if (!strcmp(argv[i], main_options[k].name))
                o = &main_options[k];
        if (!o) {
            fprintf(stderr, "iolab-sandbox: unknown option %s (see --help)\n", argv[i]);
            return -EINVAL;
        }
        const char *v = NULL;
        if (o->arg && (v = argv[++i]) == NULL) {
            fprintf(stderr, "iolab-sandbox: %s needs %s\n", o->name, o->arg);
            return -EINVAL;
        }
        if (o->set(c, v) < 0) {
            fprintf(stderr, "iolab-sandbox: bad value for %s: %s\n", o->name, v);
            return -EINVAL;
        }
    }
    if (i + 1 < argc)
        c->argv = argv + i + 1;
    bool needs_prog = c->mode == CFG_MODE_RUN || c->mode == CFG_MODE_JOIN;
    if (needs_prog && !c->argv) {
        fprintf(stderr, "iolab-sandbox: no program given (usage: iolab-sandbox [OPTIONS] -- "
                        "PROGRAM [ARGS...])\n");
        return -EINVAL;
    }
    return 0;
}

/*
 * After a program failed in the full tier: when the jail's private /tmp (this launcher is in the
 * jail's mount namespace) has less than 64 KiB left, its writes got ENOSPC there, most likely the
 * cause; one line says so, where iolab shows a program's last words. Said even with --quiet: it
 * is not a stop by the launcher but the reason the program's own error names.
 */
static bool main_tmp_full(const struct cfg *c)
{
    struct statvfs sv;
    if (statvfs("/tmp", &sv) < 0 || (unsigned long long)sv.f_bavail * sv.f_frsize >= 64 * 1024)
        return false;
    unsigned long long mib = (unsigned long long)sv.f_blocks * sv.f_frsize >> 20;
    fprintf(stderr,
            "iolab-sandbox: %s failed with the jail's /tmp full: it reached the jail's /tmp limit "
            "(%llu MiB; a step may ask for more with \"limits\": {\"tmp_mb\": N}).\n",
            c->argv[0], mib);
    return true;
}

/* Forks the program (full tier: forks the init that forks it) and supervises it. */
static int main_launch(struct cfg *c)
{
    sigset_t old;
    supervise_block(&old);
    bool full = c->tier == IOLAB_TIER_FULL;
    /* The jail's counters before this program: what grows meanwhile happened while it ran. */
    struct cgroup_events before, after;
    cgroup_events(&c->cgroup, &before);
    c->pids_max_before = before.pids_max;
    if (!full)
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t self = getpid();
    int self_fd = full ? (int)syscall(SYS_pidfd_open, self, 0) : -1;
    /* Why the program could not start, if it could not: its set-up writes the errno here. */
    int setup[2] = {-1, -1};
    if (pipe2(setup, O_CLOEXEC) == 0)
        c->setup_fd = setup[1];
    /* The child is born in the jail's cgroup (its init too, in the full tier): the launcher
       steps in for the fork and out again, so the program never writes a byte to get there. */
    int rc = cgroup_enter(&c->cgroup);
    if (rc < 0) {
        fprintf(stderr, "iolab-sandbox: cannot run %s: joining the jail's cgroup: %s\n", c->argv[0],
                strerror(-rc));
        return 127;
    }
    pid_t child = full ? ns_fork_init() : fork();
    int fork_errno = errno;
    if (child != 0 && (rc = cgroup_leave(&c->cgroup)) < 0)
        fprintf(stderr, "iolab-sandbox: cannot leave the jail's cgroup: %s\n", strerror(-rc));
    if (child < 0) {
        errno = fork_errno;
        perror("iolab-sandbox: fork");
        return 127;
    }
    if (setup[1] >= 0 && child != 0) {
        close(setup[1]);
        c->setup_fd = -1;
    }
    if (child == 0) {
        /* The report is the launcher's alone: the program never sees it, and its end of file
           must not wait for the init. */
        if (c->report_fd >= 0)
            close(c->report_fd);
        if (setup[0] >= 0)
            close(setup[0]);
        if (!full)
            prog_exec(c, c->tier, self);
        /* PID 1 of the program's namespace: dies with the launcher, kills all on exit. Its
         * parent is outside the namespace (getppid() is 0), so a pidfd tells if it is gone. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (self_fd >= 0 && poll(&(struct pollfd){.fd = self_fd, .events = POLLIN}, 1, 0) != 0)
            _exit(137);
        if (self_fd >= 0)
            close(self_fd);
        prctl(PR_SET_NAME, "iolab-init");
        pid_t init = getpid();
        pid_t prog = fork();
        if (prog < 0)
            _exit(127);
        if (prog == 0)
            prog_exec(c, c->tier, init);
        _exit(supervise_run(c, prog, SUPERVISE_INIT, false, NULL));
    }
    if (self_fd >= 0)
        close(self_fd);
    /* Summed over every process reaped here: the init (whose rusage holds everything it waited
       for, the program included) or, in the lower tiers, the program and each orphan. */
    struct cost rep = {0};
    int status = supervise_run(c, child, SUPERVISE_OUTER, !full, c->report_fd >= 0 ? &rep : NULL);
    /* A program that failed with the jail's /tmp full: named in the report as "tmp" (below),
       unless a cgroup limit explains it first. */
    bool tmp_full = full && c->workdir && status != 0 && main_tmp_full(c);
    cgroup_events(&c->cgroup, &after);
    char why[300];
    /* A standalone jail is this program's alone; a scenario's is shared by its programs, so
       there a limit is told only to one that failed meanwhile (the one it may explain). */
    bool alone = c->mode != CFG_MODE_JOIN;
    enum cgroup_limit hit = cgroup_explain(&c->cgroup, &before, &after, alone, why, sizeof why);
    /* The process limit is reported whatever the program's end: one that reached it and went on
       (a fork() that failed with EAGAIN and was ignored) is then stopped by iolab, and the
       limit is still the first thing its learner must hear. The OOM killer's kill is told only
       to a program that failed: in a shared jail it may have ended another. */
    bool quiet_hit = !alone && status == 0;
    if (quiet_hit && hit != CGROUP_LIMIT_PIDS)
        hit = CGROUP_LIMIT_NONE;
    /* Every write end is closed by now (the exec closed the program's, the init has exited). */
    int err = 0;
    if (setup[0] >= 0 && read(setup[0], &err, sizeof err) == sizeof err && err == EAGAIN &&
        hit == CGROUP_LIMIT_NONE) {
        /* Only RLIMIT_NPROC refuses a set-up with EAGAIN (the exec after the drop): the uid's
           count, which a jail without a cgroup of its own shares with the uid's other
           programs. */
        hit = CGROUP_LIMIT_PIDS;
        snprintf(why, sizeof why,
                 "could not start: its uid had reached its process limit (RLIMIT_NPROC %ld, "
                 "counted over every program of that uid)",
                 c->nproc_limit);
    }
    if (setup[0] >= 0)
        close(setup[0]);
    if (hit != CGROUP_LIMIT_NONE && !c->quiet && !quiet_hit)
        fprintf(stderr, "iolab-sandbox: %s %s.\n", c->argv[0], why);
    rep.limit = cgroup_limit_name(hit);
    if (!rep.limit && tmp_full)
        rep.limit = "tmp";
    if (c->report_fd >= 0)
        cost_write(c->report_fd, &rep, status);
    return status;
}

static int main_join(struct cfg *c)
{
    /* Opened here, in the host's namespaces: the jail's mounts need not show /sys/fs/cgroup. */
    int rc = cgroup_open(&c->cgroup, c->cgroup_paths, c->ncgroup_paths);
    if (rc < 0) {
        fprintf(stderr, "iolab-sandbox: cannot join the jail's cgroup %s: %s\n", c->cgroup_paths[0],
                strerror(-rc));
        return 127;
    }
    if (c->tier == IOLAB_TIER_FULL) {
        /* Opened before the setns(), while the holder's pid is still the one we were given. */
        c->holder_fd = (int)syscall(SYS_pidfd_open, c->join_pid, 0);
        rc = c->holder_fd < 0 ? -errno : ns_join(c->join_pid, c->root);
        if (rc < 0) {
            fprintf(stderr, "iolab-sandbox: cannot join the jail of pid %d: %s\n", c->join_pid,
                    strerror(-rc));
            return 127;
        }
        return main_launch(c);
    }
    /* Held shared until exit, so the holder removes leftovers only after this subtree is gone. */
    int lock = c->workdir ? hold_lock_open(c->workdir) : -1;
    if (lock >= 0)
        flock(lock, LOCK_SH);
    return main_launch(c);
}

/* A jail for one program: the full tier's namespaces, or the lower tiers' own removal of leftovers.
 */
static int main_run(struct cfg *c)
{
    if (c->workdir && c->remove_workdir)
        main_start_cleaner(c);
    if (c->workdir) {
        int rc = hold_prepare_workdir(c);
        if (rc < 0) {
            fprintf(stderr, "iolab-sandbox: cannot prepare %s: %s\n", c->workdir, strerror(-rc));
            return 127;
        }
    }
    if (c->tier == IOLAB_TIER_FULL) {
        struct ns_fs fs = {.workdir = c->workdir, .tmp_mb = c->tmp_mb, .ro = c->ro, .nro = c->nro};
        int rc = ns_create(c->root, &fs);
        if (rc < 0) {
            fprintf(stderr, "iolab-sandbox: cannot build the namespaces: %s\n", strerror(-rc));
            return 127;
        }
        rc = main_launch(c);
        cgroup_destroy(&c->cgroup);
        return rc;
    }
    struct leftovers reg;
    leftovers_begin(&reg, c->workdir);
    int rc = main_launch(c);
    cgroup_destroy(&c->cgroup);
    leftovers_ipc(&reg, c->root ? c->run_uid : getuid(), c->session);
    return rc;
}

/* Half the machine's memory in MiB (0 when unknown): no jail's default cap goes above it. */
static long main_half_memory_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0
               ? (long)((unsigned long long)pages * (unsigned long long)size / 2 / (1024 * 1024))
               : 0;
}

int main(int argc, char **argv)
{
    struct cfg c = {
        .mode = CFG_MODE_RUN,
        .tier = IOLAB_TIER_AUTO,
        .grace_s = 1,
        .nproc = 256,
        .as_mb = MAIN_DEFAULT_AS_MB,
        .cpu_s = 600,
        .fsize_mb = 256,
        .tmp_mb = CFG_DEFAULT_TMP_MB,
        .nofile = 1024,
        .run_uid = 65534,
        .run_gid = 65534,
        .root = geteuid() == 0,
        .status_fd = -1,
        .life_fd = -1,
        .exe_fd = -1,
        .holder_fd = -1,
        .report_fd = -1,
        .setup_fd = -1,
        .memory_mb = -1,
    };
    cgroup_init(&c.cgroup);
    const char *env_tier = getenv("IOLAB_SANDBOX_TIER");
    if (env_tier && *env_tier && set_tier(&c, env_tier) < 0) {
        fprintf(stderr, "iolab-sandbox: IOLAB_SANDBOX_TIER must be full, reduced or minimal\n");
        return 2;
    }
    if (main_parse(&c, argc, argv) < 0)
        return 2;
    if (c.mode == CFG_MODE_HELP) {
        main_help(stdout);
        return 0;
    }
    if (c.memory_mb < 0) {
        long half = main_half_memory_mb();
        c.memory_mb = half > 0 && half < MAIN_DEFAULT_MEMORY_MB ? half : MAIN_DEFAULT_MEMORY_MB;
    }
    if (c.jail_pids == 0)
        c.jail_pids = c.mode == CFG_MODE_HOLD ? MAIN_DEFAULT_JAIL_PIDS : c.nproc + 2; /* +init */
    /* The launcher dies with iolab: SIGKILL when a joined launcher's init carries the cleanup,
     * SIGPWR when this process must kill the subtree itself, or (a standalone run in any tier)
     * must still remove the jail's cgroup after its init is gone. */
    pid_t parent = getppid();
    main_parent = parent;
    struct probe p;
    if (c.mode != CFG_MODE_JOIN || c.tier == IOLAB_TIER_AUTO) {
        if (probe_run(&p) < 0) {
            fprintf(stderr, "iolab-sandbox: the probe failed: %s\n", strerror(errno));
            return 127;
        }
        c.tier = probe_tier(&p, c.tier);
    }
    if (c.mode != CFG_MODE_JOIN)
        p.budget = probe_budget(&p, c.tier);
    if (c.mode == CFG_MODE_PROBE) {
        char json[4096];
        probe_json(&p, c.tier, json, sizeof json);
        printf("%s\n", json);
        return 0;
    }
    if (c.mode == CFG_MODE_HOLD)
        return hold_run(&c, &p);
    /* A run that owns its work directory must outlive iolab long enough to remove it, and a
       holder or a standalone run its cgroup: SIGPWR has it kill its program's tree (the full
       tier's init with it) and then clean up. A joining launcher has nothing of its own. */
    bool owns_workdir = c.mode == CFG_MODE_RUN && c.remove_workdir && c.workdir;
    prctl(PR_SET_PDEATHSIG,
          c.tier == IOLAB_TIER_FULL && c.mode == CFG_MODE_JOIN ? SIGKILL : SIGPWR);
    if (getppid() != parent) {
        const char *name;
        int up = owns_workdir ? main_workdir_parent(&c, &name) : -1;
        if (up >= 0) {
            main_rm_workdir(up, name);
            close(up);
        }
        return 137;
    }
    if (c.mode == CFG_MODE_RUN)
        hold_budget(&c, &p);
    c.nproc_limit = prog_nproc_limit(&c, c.tier);
    int rc = prog_open(&c);
    if (rc < 0) {
        fprintf(stderr, "iolab-sandbox: cannot run %s: %s\n", c.argv[0], strerror(-rc));
        cgroup_destroy(&c.cgroup);
        return 127;
    }
    return c.mode == CFG_MODE_JOIN ? main_join(&c) : main_run(&c);
}
