/*
 * cfg: the launcher's configuration, filled once from the command line and then only read. One
 * struct is shared by every mode (probe, hold, join, standalone run) so that the holder and each
 * joining program agree on the same limits, work directory and tier without a second channel.
 */
#ifndef SBX_CFG_H
#define SBX_CFG_H

#include "cgroup.h"
#include "tier.h"

struct iolab_audit_page;

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CFG_MAX_KEEP       16
#define CFG_MAX_PRELOAD    8  /* LD_PRELOAD libraries opened ahead of the jail */
#define CFG_MAX_RO         32 /* paths shown read-only inside the full tier's mount namespace */
#define CFG_DEFAULT_TMP_MB 256
#define CFG_MAX_AUDIT                                                                              \
    48 /* system call numbers the audit's filter stops (audit.c) */ /* the full tier's private     \
                                                                       /tmp, a tmpfs of this size  \
                                                                     */

enum cfg_mode { CFG_MODE_RUN, CFG_MODE_PROBE, CFG_MODE_HOLD, CFG_MODE_JOIN, CFG_MODE_HELP };

struct cfg {
    enum cfg_mode mode;   /* what this invocation does */
    enum iolab_tier tier; /* requested (AUTO) or forced tier; after set-up, the tier in force */
    const char *workdir;  /* the only writable place (with its tmp/); NULL: the current dir */
    const char *session;  /* IOLAB_SESSION: the per-session IPC name prefix */
    int port;             /* the scenario's TCP port (Landlock net rules); 0: none */
    double timeout_s;     /* wall-clock limit of the program; 0: none */
    double grace_s;       /* SIGTERM to SIGKILL of the whole subtree */
    long nproc;           /* processes the program may add */
    long nproc_limit;     /* the RLIMIT_NPROC value that allows it (computed) */
    long as_mb;           /* address space per process, MiB */
    long cpu_s;           /* CPU seconds per process */
    long fsize_mb;        /* largest file a process may write, MiB */
    long nofile;          /* open descriptors per process */
    uid_t run_uid;        /* when started as root: the unprivileged uid programs run as */
    gid_t run_gid;        /* and its gid */
    bool root;            /* started with euid 0 */
    bool remove_workdir;  /* hold: remove the work directory when the jail ends */
    bool quiet;           /* no report line on stderr when the program is stopped */
    int holder_fd;        /* join, full tier: pidfd of the holder; its exit ends the program */
    pid_t join_pid;       /* join: the holder's init (full tier) or holder (others) */
    int status_fd;        /* hold: one JSON line about the jail goes here */
    int life_fd;          /* hold: EOF here (iolab gone or done) ends the jail */
    int report_fd;        /* the subtree's rusage goes here as one JSON line; -1: none */
    /* The jail's pids.events "max" before the program started: once it rises while the program
       runs, an interim line says so on report_fd at once (supervise.c). */
    uint64_t pids_max_before;
    int setup_fd; /* the child's errno when its set-up failed before the exec goes here; -1 */
    int keep[CFG_MAX_KEEP]; /* descriptors the program inherits besides 0, 1, 2 */
    int nkeep;              /* how many of them */
    char **argv;            /* the program and its arguments */
    int exe_fd;             /* the program, opened (O_PATH) before any namespace is entered */
    int preload_fd[CFG_MAX_PRELOAD]; /* LD_PRELOAD libraries, opened at the same moment */
    int npreload;
    char exe_path[4096];        /* where it was found */
    long tmp_mb;                /* size of the full tier's private /tmp (a tmpfs), MiB */
    const char *ro[CFG_MAX_RO]; /* full tier: host paths visible read-only at the same path */
    int nro;
    /* The jail's own budget (cgroup.h): created by the holder or a standalone run, opened from
       --cgroup by a joining launcher; version 0 when the jail has none. */
    struct cgroup cgroup;
    long jail_pids; /* --pids: the jail's processes and threads together; 0: derived */
    long memory_mb; /* --memory: the jail's memory, all its processes together; 0: none */
    const char *cgroup_paths[CGROUP_NCTL]; /* --cgroup (join) */
    int ncgroup_paths;
    /* --audit, --audit-fd (audit.h): the labels' system calls are counted by a tracer and
       published on iolab's page, mapped here and never held by the program. */
    bool audit;
    bool audit_off;     /* --audit-off: refuse it as ptrace would (tests the fallback) */
    uint64_t audit_ids; /* bit per call label */
    long audit_nr[CFG_MAX_AUDIT];
    uint16_t audit_id[CFG_MAX_AUDIT];
    int audit_n;
    struct iolab_audit_page *audit_page;
};

#endif
