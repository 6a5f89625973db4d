/*
 * probe: what this machine lets an iolab jail use, found by trying it (a forked child walks the
 * whole namespace set-up path, since on some systems unshare succeeds and a later step fails),
 * and the tier that follows from it.
 */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include "cfg.h"
#include "cgroup.h"

#include <stdbool.h>
#include <stddef.h>

struct probe;

/* Each jail's own budget of processes (and memory), from the best to none. */
enum probe_budget {
    PROBE_BUDGET_CGROUP,  /* a cgroup of its own: pids.max (and a memory cap) */
    PROBE_BUDGET_USERNS,  /* the full tier's user namespace: RLIMIT_NPROC counts afresh */
    PROBE_BUDGET_UID,     /* as root without cgroups: a uid of its own from a range */
    PROBE_BUDGET_PROCESS, /* per-process rlimits only: the uid's count is shared */
};

const char *probe_budget_name(enum probe_budget b);

/* The budget a jail of this tier gets, as far as the probe can tell. */
enum probe_budget probe_budget(const struct probe *p, enum iolab_tier tier);

struct probe {
    bool user_ns;         /* an unprivileged user namespace with a uid map (not needed as root) */
    bool namespaces;      /* PID, network (loopback up), IPC and mount (tmpfs on /dev/shm) */
    int landlock_abi;     /* 0: no Landlock */
    bool landlock_fs;     /* file-system write rules */
    bool landlock_net;    /* TCP bind/connect port rules (ABI 4) */
    bool landlock_signal; /* signal scoping (ABI 6) */
    bool landlock_ioctl;  /* device ioctls can be refused, terminals' included (ABI 5) */
    bool seccomp_tty;     /* the seccomp filter refusing TIOCSTI and TIOCLINUX works here */
    bool subreaper;       /* PR_SET_CHILD_SUBREAPER */
    bool pidfd;           /* pidfd_open and setns through a pidfd */
    bool root;            /* running as root: programs drop to an unprivileged uid */
    struct cgroup_probe cgroup; /* where a jail's own cgroup can go */
    enum probe_budget budget;   /* what keeps one jail's processes from another's count */
};

/* Probes everything; 0 or a negative errno (only when the probe itself could not run). */
int probe_run(struct probe *p);

/* The best tier the probe allows, capped by `wanted` (AUTO: no cap). */
enum iolab_tier probe_tier(const struct probe *p, enum iolab_tier wanted);

/* {"tier":...,"features":{...},"terminal":{...},"budget":...,"budget_missing":[...],
   "posix_mqueue":BOOL,"missing":[...],"advice":"..."} into buf; 0 or -ENAMETOOLONG. "terminal"
   says what the tier in force does against the person's terminal. The typed fields are what a
   program reads (iolab's jail.c through its sandbox_line.c); "missing", "budget_missing" and
   "advice" are the same facts in sentences, for people. */
int probe_json(const struct probe *p, enum iolab_tier tier, char *buf, size_t len);

#endif
