/*
 * cgroup: each jail's own budget of processes and memory. A jail (a scenario's holder, or one
 * standalone run such as a build) gets a control group of its own, named iolab-PID-START-NS (the
 * creator's pid, start time and PID namespace) under a parent named iolab, with pids.max and a
 * memory cap; every program joins it before its exec, so that what one jail forks or allocates is
 * counted against that jail alone, never against another session running under the same uid.
 *
 * Where: cgroup v2 when the unified hierarchy offers the pids or memory controller in a subtree
 * this process may write (root, or a delegated subtree such as a systemd user scope); otherwise
 * cgroup v1, the pids and memory hierarchies, each under the creator's own cgroup there.
 *
 * Invariants: the creator removes the jail's directories when the jail ends (after killing what
 * is left in them); a directory whose creator is dead (its pid gone, or reused by a process that
 * started later; only judged from the same PID namespace) is removed by the next creation under
 * the same parent. Every descriptor is
 * opened before any namespace is entered, so that a private mount namespace never stands between
 * a program and its cgroup.
 */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cgroup_ctl { CGROUP_PIDS, CGROUP_MEMORY, CGROUP_NCTL };

/* The jail's pids.max, handed to every program so that one that fails to fork can say which
   limit it met and its value (sandbox/demos/demo.c reads it). Unset when the jail has none. */
#define CGROUP_ENV_PIDS "IOLAB_JAIL_PIDS"

struct cgroup {
    int version;                  /* 1 or 2; 0: the jail has no cgroup */
    bool owner;                   /* created here: removed by cgroup_destroy() */
    char name[80];                /* iolab-PID-START-NS */
    char path[CGROUP_NCTL][4096]; /* the jail's directory per controller; "": none */
    int dir[CGROUP_NCTL];         /* and opened (O_PATH); -1: none */
    int parent[CGROUP_NCTL];      /* owner: the iolab parent, for the final rmdir */
    int procs[CGROUP_NCTL];       /* cgroup.procs, opened for writing; -1: none */
    int home[CGROUP_NCTL];        /* this process's own cgroup.procs, to leave the jail's */
    long pids_max;                /* in force; 0: no process limit */
    long memory_mb;               /* in force; 0: no memory cap */
};

/* What the machine offers a jail, found without creating one (the probe's fields). */
struct cgroup_probe {
    int version; /* 2, 1, or 0 when no writable cgroup has pids or memory */
    bool pids;   /* a per-jail pids.max */
    bool memory; /* a per-jail memory cap */
};

/* What the kernel counted against the jail: fork failures at pids.max and OOM kills. */
struct cgroup_events {
    uint64_t pids_max; /* pids.events "max" */
    uint64_t oom_kill; /* memory.events / memory.oom_control "oom_kill" (v1 without it: failcnt) */
};

enum cgroup_limit { CGROUP_LIMIT_NONE, CGROUP_LIMIT_PIDS, CGROUP_LIMIT_MEMORY };

/* Fills p (all zero when nothing can be had); never fails. */
void cgroup_probe(struct cgroup_probe *p);

/*
 * Creates the jail's cgroup with these limits (0: none), removing stale ones first. 0, or a
 * negative errno with cg->version 0 (the jail then has no cgroup: why holds one sentence).
 */
int cgroup_create(struct cgroup *cg, long pids_max, long memory_mb, char *why, size_t whylen);

/*
 * Opens a jail's cgroup created by another process (a --join launcher): paths are its
 * directories, as cgroup_json() wrote them; each must be named iolab-*. 0 or a negative errno.
 */
int cgroup_open(struct cgroup *cg, const char *const *paths, int npaths);

/*
 * Moves the calling process into the jail's cgroup (every controller), and back to where it was.
 * A launcher forks between the two, so that its child starts inside the jail without one system
 * call of its own: the program's kernel I/O totals (syscw, wchar) stay exactly its own. 0 or a
 * negative errno; with no cgroup, 0.
 */
int cgroup_enter(const struct cgroup *cg);
int cgroup_leave(const struct cgroup *cg);

/* Reads the counters; missing files read as 0. */
void cgroup_events(const struct cgroup *cg, struct cgroup_events *ev);

/* Which limit stopped something between before and after (memory first), and what it did, to
   follow the program's name ("was stopped: the jail used up its memory limit (...)"); alone:
   the program is the jail's only one, so the fork that failed was its own. */
enum cgroup_limit cgroup_explain(const struct cgroup *cg, const struct cgroup_events *before,
                                 const struct cgroup_events *after, bool alone, char *text,
                                 size_t len);

/* "pids" or "memory" (NULL for none): the report's typed "limit" field. */
const char *cgroup_limit_name(enum cgroup_limit l);

/* {"version":V,"pids":"PATH","memory":"PATH","pids_max":N,"memory_mb":M}; 0 or -ENAMETOOLONG. */
int cgroup_json(const struct cgroup *cg, char *buf, size_t len);

/* The owner kills what is left in the jail and removes its directories; everyone closes the
 * descriptors. Idempotent. */
void cgroup_destroy(struct cgroup *cg);

/*
 * The fallback where no cgroup can be had, as root: a uid of the jail's own from
 * CGROUP_UID_FIRST..CGROUP_UID_LAST, held by an exclusive lock on
 * /run/iolab-sandbox/uid-N.lock for as long as *lockfd stays open (close-on-exec), so that
 * RLIMIT_NPROC counts this jail's processes alone. 0, or -EAGAIN when every uid is taken.
 */
#define CGROUP_UID_FIRST 65520 /* below nobody (65534), above systemd's dynamic users */
#define CGROUP_UID_LAST  65533
int cgroup_take_uid(unsigned *uid, int *lockfd);

/* An empty struct: version 0, every descriptor -1. */
void cgroup_init(struct cgroup *cg);

#endif
