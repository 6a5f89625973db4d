/*
 * sampler_int: the sampler's state, shared by its two parts and by nothing else.
 *  - sampler_procs.c: the process table and /proc: finding births and deaths, deciding who
 *    belongs to which program, and reading a budgeted slice of the members each tick.
 *  - sampler.c: the public calls and the snapshot derived from the totals.
 */
#ifndef IOLAB_SAMPLER_INT_H
#define IOLAB_SAMPLER_INT_H

#include "sampler.h"
#include "rotation.h"
#include "tally.h"

#include <dirent.h>
#include <limits.h>

#define SAMPLER_NONE    (-1)
#define SAMPLER_UNKNOWN (-2)
#define SAMPLER_CKPTS   (SNAPSHOT_RECENT_S + 1) /* per-second checkpoints kept */
/* A zombie older than this, whose parent in the tree lives, counts as left unreaped: longer than
   any server that reaps takes to get to its next waitpid(), and a few sampling ticks long. */
#define SAMPLER_ZOMBIE_S 1.0

/* Raw figures of a process (ticks, counts, bytes) or the sums of a program. */
struct sampler_fig {
    uint64_t utime, stime; /* own + waited-for children (cutime, cstime) */
    uint64_t vol, invol;   /* context switches, all threads */
    uint64_t syscr, syscw, rchar, wchar;
    uint64_t read_bytes, write_bytes; /* storage I/O the process caused (page cache misses) */
    uint64_t rss_bytes, threads;
};

struct sampler_tid {
    int tid;
    uint64_t vol, invol;
    int fd;        /* its task/TID/status, kept open; -1: not yet (or no descriptor to spare) */
    double t_read; /* when its counts were read; 0: never */
};

struct sampler_proc {
    int pid;
    int ppid;
    uint64_t starttime;
    int prog;    /* program index, SAMPLER_NONE, or SAMPLER_UNKNOWN while being resolved */
    bool inprog; /* the program's own process or a descendant of it (not a sandbox helper) */
    /* Members only: */
    int stat_fd, io_fd;
    int pid_fd;        /* a pidfd in the sampler's epoll set: readable once the process exits */
    double t_read;     /* when stat and io were last read; 0: never */
    uint64_t tick;     /* the sample that last read it (a tick reads a process once) */
    bool exited;       /* its pidfd fired: a zombie, read every tick until it is reaped */
    bool gone;         /* reaped: being taken out of the table */
    double t_zombie;   /* when a read first found it a zombie (state Z); 0: not one */
    int tid_cursor;    /* the last thread read: the next slice of its threads starts after it */
    double t_tasks;    /* when task/ was last listed */
    int lastpid_tasks; /* /proc/loadavg's last pid then: a thread may be born when it moves */
    struct sampler_fig last;
    uint32_t nfds; /* descriptors it held open at its last count (sampler_count_fds) */
    double t_fds;  /* when they were last counted by a listing (kernels before 6.2); 0: never */
    struct sampler_tid *tids; /* threads seen at the last sample */
    size_t ntids, captids;
    uint64_t dead_vol, dead_invol; /* threads that exited */
    /* CPU and I/O of in-tree children that vanished while this process was alive. The kernel
       adds a reaped child's figures to its parent's own (stat cutime/cstime, io), which this
       process shows from its next read on; until then they wait here, counted, so that the
       totals neither dip nor lose them when the parent dies before that read. */
    struct sampler_fig pending;
};

/* A program's totals: everything a snapshot derives from, cumulative. */
struct sampler_raw {
    struct sampler_fig fig;
    uint32_t nprocs;
    uint32_t zombies; /* members left unreaped by a live parent of the tree (SAMPLER_ZOMBIE_S) */
    uint32_t fds;     /* the most descriptors one live member holds open (a role's: of its
                         programs'): the open-file limit is per process */
    struct tally_totals page;
};

struct sampler_ckpt {
    double t;
    uint64_t utime, stime; /* CPU clock ticks of the program's tree, for CPU shares */
    uint64_t hist[IOLAB_HIST_BUCKETS];
    uint64_t requests, bytes; /* client-role app figures, for the history */
};

struct sampler_progstate {
    int root;
    int main_pid;  /* the program's own process below the sandbox's helpers; 0: not found yet */
    double t_root; /* sampler_clock() when the root was set */
    char exe[PATH_MAX]; /* its executable, to recognise it; "": count the whole tree */
    uint32_t run;
    enum lesson_role role;
    char name[SNAPSHOT_NAME_LEN];
    enum snapshot_prog_state state;
    int exit_status;
    struct sampler_fig dead; /* members that vanished (see sampler.h for what is added) */
    struct sampler_fig base; /* dead + live members when run `base_run` was spawned */
    uint32_t base_run;
    bool base_open; /* base_run is still to be reconciled (sampler_set_exit) */
    struct sampler_raw now, prev;
    /* The totals at the last two checkpoints (about a second apart), older first: rates are
       taken over at least a second when one is that old, so that two requests a second do not
       read 0, 0, 0, 0, 10, 0. Reset when the mode changes: a rate never mixes two modes. */
    struct sampler_raw win[2];
    double win_t[2];
    uint32_t nwin;
    struct sampler_ckpt ckpt[SAMPLER_CKPTS]; /* ring, per whole second */
    uint32_t nckpt, ckpt_head;
    uint32_t peak_procs, peak_threads;
    /* The counter page of the current start (the engine's; NULL: none) and, carried from the
       pages of its earlier starts, their last totals (sampler_set_page()). */
    const struct iolab_page *page;
    uint32_t nslots;
    struct tally_totals page_base;
    int shim;            /* the main process's: 1 the counting shim is in it, 2 not, 0 unknown */
    uint32_t shim_looks; /* looks that found a dynamic loader but no shim (sampler_shim_in) */
};

struct sampler {
    char proc_root[256];
    /* Births and deaths (sampler_procs.c). live: the real /proc, where pidfds and loadavg say
       what changed; a recorded root is listed whole every tick. */
    bool live;
    int loadavg_fd;       /* /proc/loadavg kept open: its last field is the last pid allocated */
    int last_pid;         /* that field at the last listing */
    long pid_offset;      /* the readdir offset of pid P in /proc is P + pid_offset; 0: unknown */
    int epfd;             /* members' pidfds */
    bool need_full;       /* list /proc whole next tick (a member without a pidfd, pids wrapped) */
    uint32_t strangers;   /* entries of other processes added since the last whole listing */
    bool members_changed; /* membership must be looked at again (sampler_find_main) */
    double t_find_main;
    double t_rescan; /* the last whole listing for a program whose own process was not found */
    size_t fds_kept, fd_cap; /* descriptors kept open, and how many may be (sampler_procs.c) */
    bool fd_size_counts; /* stat() of /proc/PID/fd gives its number of descriptors (Linux 6.2) */
    struct rotation rot;
    bool budget_fixed; /* sampler_set_budget() was called: the share no longer follows nitems */
    size_t nitems;     /* processes and threads of every program at the last sample */
    int cursor;        /* pid of the last process read: the next slice starts after it */
    uint64_t nsample;
    int proc_fd;
    DIR *proc_dir;
    uint32_t nprogs;
    double tick_hz, t0, t_prev, t_ckpt;
    bool sampled;
    long page_size, tick;

    struct sampler_tid *tidbuf; /* scratch for one process's threads, grown as needed */
    size_t captidbuf;
    struct sampler_proc *procs, *next; /* current table and the one the scan builds */
    size_t nprocs, cap;
    int *pids;
    size_t npids, cappids;

    struct sampler_progstate progs[SNAPSHOT_MAX_PROGS];
    struct sampler_ckpt role_ckpt_prev; /* client role at the previous history point */
    int mode, prev_mode;
    bool mode_running, prev_running, paused;
    uint32_t errors;
    double age_s[SNAPSHOT_MAX_PROGS];      /* oldest /proc figure of each program, seconds */
    uint32_t unread_n[SNAPSHOT_MAX_PROGS]; /* its processes and threads never read */
    double sample_cost_s;                  /* wall time of the last sampler_sample() */

    struct snapshot snap;
    uint64_t hist_tmp[IOLAB_HIST_BUCKETS];
    uint64_t role_base[LESSON_NROLES][IOLAB_HIST_BUCKETS]; /* "recent" bases per role */
};
/* sampler_procs.c */
void sampler_proc_release(struct sampler *s, struct sampler_proc *p);
struct sampler_proc *sampler_find(struct sampler_proc *v, size_t n, int pid);
void sampler_fig_add(struct sampler_fig *a, const struct sampler_fig *b, bool cpu_io);
/* Lists /proc whole: births, deaths and membership. 0 or -errno. */
int sampler_scan(struct sampler *s);
/* Births and deaths the cheap way (sampler.h), or a whole listing when it cannot tell. */
int sampler_watch(struct sampler *s, double now_s);
/* Starts a tick's budget: what finding births and deaths takes counts against it too (on a busy
   machine, other programs' births cost a stat read each). */
void sampler_budget_begin(struct sampler *s);
/* Reads this tick's slice of the members and folds every program's totals into now/prev. */
void sampler_read_programs(struct sampler *s, double now_s);
/* Opens what the cheap way needs (loadavg, pidfds, the listing's offsets); a fake /proc root
   gets none of it and is listed whole every tick. */
void sampler_watch_open(struct sampler *s);
double sampler_clock(void);
void sampler_fds_init(struct sampler *s);

#endif
