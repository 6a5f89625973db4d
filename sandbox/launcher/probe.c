/*
 * probe: each feature is checked by doing what the jail will do, in a throw-away child, so a
 * distribution that allows unshare(CLONE_NEWUSER) but refuses the uid map or the loopback
 * (Ubuntu 24.04's AppArmor restriction) is seen as lacking namespaces, not as having them.
 */
#include "probe.h"

#include "landlock.h"
#include "ns.h"
#include "seccomp.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The namespace path in a child: its exit status says how far it got. */
static int probe_namespaces(bool root, bool *user_ns, bool *namespaces)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        int rc = ns_create(root, NULL);
        if (rc == 0 && unshare(CLONE_NEWPID) < 0)
            rc = -errno;
        _exit(rc == 0 ? 0 : rc == -EUSERS ? 1 : 2);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -errno;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
    *user_ns = !root && code == 0;
    *namespaces = code == 0;
    return 0;
}

int probe_run(struct probe *p)
{
    memset(p, 0, sizeof *p);
    p->root = geteuid() == 0;
    int rc = probe_namespaces(p->root, &p->user_ns, &p->namespaces);
    if (rc < 0)
        return rc;
    landlock_probe(&p->landlock_abi, &p->landlock_fs, &p->landlock_net, &p->landlock_signal,
                   &p->landlock_ioctl);
    p->seccomp_tty = seccomp_tty_probe();
    int was = 0;
    p->subreaper = prctl(PR_GET_CHILD_SUBREAPER, &was) == 0;
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    p->pidfd = fd >= 0;
    if (fd >= 0)
        close(fd);
    cgroup_probe(&p->cgroup);
    p->budget = PROBE_BUDGET_PROCESS; /* set by probe_budget() once the tier is known */
    return 0;
}

static const char *const probe_budget_names[] = {
    [PROBE_BUDGET_CGROUP] = "cgroup",
    [PROBE_BUDGET_USERNS] = "user_namespace",
    [PROBE_BUDGET_UID] = "uid",
    [PROBE_BUDGET_PROCESS] = "per_process",
};

const char *probe_budget_name(enum probe_budget b)
{
    return (unsigned)b < sizeof probe_budget_names / sizeof *probe_budget_names
               ? probe_budget_names[b]
               : "?";
}

enum probe_budget probe_budget(const struct probe *p, enum iolab_tier tier)
{
    if (p->cgroup.pids)
        return PROBE_BUDGET_CGROUP;
    if (tier == IOLAB_TIER_FULL && !p->root)
        return PROBE_BUDGET_USERNS;
    return p->root ? PROBE_BUDGET_UID : PROBE_BUDGET_PROCESS;
}

enum iolab_tier probe_tier(const struct probe *p, enum iolab_tier wanted)
{
    enum iolab_tier best = IOLAB_TIER_MINIMAL;
    if (p->namespaces && p->pidfd)
        best = IOLAB_TIER_FULL;
    else if (p->landlock_fs && p->landlock_net && p->subreaper)
        best = IOLAB_TIER_REDUCED;
    if (wanted != IOLAB_TIER_AUTO && wanted > best)
        best = wanted;
    return best;
}

/* What each tier lacks, and the one sentence on how to get the full tier. */
struct probe_gap {
    const char *missing; /* JSON array body */
    const char *advice;  /* one sentence; "" when nothing is missing */
};

static const struct probe_gap probe_gaps[] = {
    [IOLAB_TIER_FULL] = {.missing = "", .advice = ""},
    [IOLAB_TIER_REDUCED] = {.missing =
                                "\"private network (ports are allocated on the host loopback)\","
                                "\"private IPC (the objects the programs recorded are swept)\","
                                "\"PID namespace (descendants are found by subreaper)\","
                                "\"private /tmp (/tmp is the host's, shared and not capped; "
                                "TMPDIR is the work directory's tmp/)\"",
                            .advice =
                                "Allow unprivileged user namespaces (Ubuntu: sysctl "
                                "kernel.apparmor_restrict_unprivileged_userns=0; Debian: sysctl "
                                "kernel.unprivileged_userns_clone=1) to get the full sandbox."},
    [IOLAB_TIER_MINIMAL] =
        {.missing = "\"private network (ports are allocated on the host loopback)\","
                    "\"private IPC (the objects the programs recorded are swept)\","
                    "\"PID namespace (descendants are found by subreaper)\","
                    "\"file-system confinement (programs can write where you can)\","
                    "\"port confinement\","
                    "\"private /tmp (/tmp is the host's, shared and not capped; TMPDIR is the "
                    "work directory's tmp/)\"",
         .advice = "Allow unprivileged user namespaces (sysctl "
                   "kernel.apparmor_restrict_unprivileged_userns=0 or "
                   "kernel.unprivileged_userns_clone=1) or use a kernel with Landlock ABI 4 "
                   "(Linux 6.7 or later) to get a stronger sandbox."},
};

int probe_json(const struct probe *p, enum iolab_tier tier, char *buf, size_t len)
{
    const struct probe_gap *g = &probe_gaps[tier];
    bool full_possible = probe_tier(p, IOLAB_TIER_AUTO) == IOLAB_TIER_FULL;
    const char *advice = g->advice;
    /* Landlock confines POSIX message queues like files: they work only beneath a mounted
       /dev/mqueue, which systemd machines have and this kind of minimal system may not. */
    bool no_mq = tier == IOLAB_TIER_REDUCED && access("/dev/mqueue", F_OK) != 0;
    const char *mq = no_mq ? ",\"POSIX message queues (mount /dev/mqueue: mount -t mqueue none "
                             "/dev/mqueue)\""
                           : "";
    /* Every tier runs programs in a session of their own with no terminal descriptor; the
       filter is what still refuses TIOCSTI on a terminal a program manages to open. */
    const char *sc = p->seccomp_tty
                         ? ""
                         : "\"terminal ioctl filter (seccomp): a program that opens a terminal "
                           "could push keystrokes into it where the kernel allows TIOCSTI\"";
    const char *sc_sep = *sc && (*g->missing || *mq) ? "," : "";
    bool ll_ioctl = p->landlock_ioctl && tier != IOLAB_TIER_MINIMAL;
    /* The jail's own budget: what it lacks has a list of its own, so that "missing" stays what
       the tier lacks (empty in the full tier). */
    const char *no_pids =
        p->budget == PROBE_BUDGET_PROCESS
            ? ",\"a process budget of its own (no cgroup: the programs share their uid's process "
              "count with every other session, and each has only per-process limits)\""
            : "";
    const char *no_memory = p->cgroup.memory ? ""
                                             : ",\"a memory cap for the whole jail (no cgroup "
                                               "memory controller: only each process's "
                                               "address-space limit)\"";
    char lacks[512];
    snprintf(lacks, sizeof lacks, "%s%s", no_pids, no_memory);
    if (tier != IOLAB_TIER_FULL && full_possible)
        advice = "This machine allows the full sandbox: drop --tier (or IOLAB_SANDBOX_TIER) to "
                 "use it.";
    int n = snprintf(
        buf, len,
        "{\"tier\":\"%s\",\"features\":{\"user_ns\":%s,\"namespaces\":%s,"
        "\"landlock_abi\":%d,\"landlock_fs\":%s,\"landlock_net\":%s,"
        "\"landlock_signal\":%s,\"landlock_ioctl\":%s,\"seccomp_tty\":%s,\"subreaper\":%s,"
        "\"pidfd\":%s,\"root\":%s,\"cgroup_version\":%d,\"cgroup_pids\":%s,\"cgroup_memory\":%s},"
        "\"terminal\":{\"own_session\":true,\"no_terminal_fds\":true,\"seccomp_tiocsti\":%s,"
        "\"landlock_ioctl\":%s},"
        "\"budget\":\"%s\",\"budget_missing\":[%s],\"posix_mqueue\":%s,"
        "\"missing\":[%s%s%s%s],\"advice\":\"%s\"}",
        iolab_tier_name(tier), p->user_ns ? "true" : "false", p->namespaces ? "true" : "false",
        p->landlock_abi, p->landlock_fs ? "true" : "false", p->landlock_net ? "true" : "false",
        p->landlock_signal ? "true" : "false", p->landlock_ioctl ? "true" : "false",
        p->seccomp_tty ? "true" : "false", p->subreaper ? "true" : "false",
        p->pidfd ? "true" : "false", p->root ? "true" : "false", p->cgroup.version,
        p->cgroup.pids ? "true" : "false", p->cgroup.memory ? "true" : "false",
        p->seccomp_tty ? "true" : "false", ll_ioctl ? "true" : "false",
        probe_budget_name(p->budget), lacks[0] ? lacks + 1 : "", no_mq ? "false" : "true",
        g->missing, mq, sc_sep, sc, advice);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
