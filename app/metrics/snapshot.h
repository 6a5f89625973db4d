/*
 * snapshot: what the scenario cost, at one instant, as plain data for drawing and printing.
 *
 * The sampler (sampler.h) produces one snapshot per tick (10 Hz by default, up to 20 Hz) and on
 * demand around mode switches. A snapshot is immutable once published: the engine hands out a
 * const pointer that stays valid until the next tick, and a consumer that wants to keep one
 * copies the struct (it is self-contained: fixed arrays, no pointers), so drawing never
 * allocates and never races with sampling.
 *
 * Units: totals are cumulative since the scenario started (they never go backwards: the
 * sampler's deltas saturate at zero); rates are per second over `rate_window_s`, one to two
 * seconds (or since the mode started, when that is shorter), never over one 100 ms tick; times
 * are seconds, latencies nanoseconds, sizes bytes.
 *
 * Where each figure comes from:
 *  - calls[]: the counter page (library-level counts by the preload shim), exact for what the
 *    shim sees; summed over every slot whose prog is this program, across restarts.
 *  - cpu, ctx, io, rss, nprocs, nthreads: /proc, over the program's whole process tree (the
 *    process iolab spawned and all its descendants, every thread). Figures of descendants that
 *    exited are kept: CPU and io through the parent's own accounting once it has reaped them
 *    (stat cutime/cstime, io), context switches through the last sample taken before they went
 *    away (what they did in their last tick is lost; see sampler.c).
 *  - app: figures the demo programs publish themselves (requests, bytes, latency histogram).
 */
#ifndef IOLAB_SNAPSHOT_H
#define IOLAB_SNAPSHOT_H

#include "iolab_counters.h"
#include "lesson/role.h"
#include "tally.h"

#include <stdbool.h>
#include <stdint.h>

#define SNAPSHOT_MAX_PROGS 8  /* programs in one scenario */
#define SNAPSHOT_MAX_MODES 8  /* rows of the per-mode comparison table */
#define SNAPSHOT_HISTORY   60 /* seconds of throughput history */
#define SNAPSHOT_NAME_LEN  32
#define SNAPSHOT_RECENT_S  5 /* "recent" latency percentiles cover about this many seconds */

/* One counted call label (iolab_call_info[i].label) of one program or role. */
struct snapshot_call {
    uint64_t count;    /* calls made, failed ones included */
    uint64_t bytes;    /* bytes moved by the successful calls */
    uint64_t ns;       /* wall time inside the calls */
    double count_rate; /* calls/s over the rate window */
    double bytes_rate; /* bytes/s over the rate window */
    double share;      /* this label's fraction of all calls in the rate window, 0..1 */
    double busy;       /* time inside these calls per second of the window: threads inside the
                          call on average (1.0 = one thread all the time); a call is booked when
                          it returns, so a long call may add more than its share of the window */
};

/* Latency percentiles read from a log-linear histogram: each within ~19% of the true value. */
struct snapshot_latency {
    uint64_t samples; /* requests the percentiles are computed over; 0: none, others are 0 */
    uint64_t p50_ns, p99_ns, p999_ns;
    uint64_t max_ns; /* upper edge of the highest non-empty bucket */
};

/* Everything measured for one program (or summed over all programs of a role). */
struct snapshot_figures {
    struct snapshot_call calls[IOLAB_NCALLS];
    uint64_t calls_total;   /* all labels together */
    double calls_rate;      /* calls/s over the last tick */
    double cpu_user_s;      /* CPU time in user mode, whole tree, exited descendants included */
    double cpu_sys_s;       /* CPU time in the kernel */
    double cpu_user_pct;    /* % of one core over about the last second (CPU time is counted
                               in 10 ms ticks: one 0.1 s sample would be too coarse) */
    double cpu_sys_pct;     /* likewise in the kernel */
    uint64_t ctx_voluntary; /* context switches, every thread of every process of the tree */
    uint64_t ctx_involuntary;
    double ctx_voluntary_rate; /* per second over the last tick */
    double ctx_involuntary_rate;
    uint32_t nprocs;       /* processes of the tree now */
    uint32_t nthreads;     /* threads of the tree now (a process counts as one at least) */
    uint32_t zombies;      /* children dead for a second or more that a live parent of the
                              tree has not reaped (waitpid), now */
    uint32_t nfds;         /* the most descriptors one process of the tree holds open, now (the
                              open-file limit is per process) */
    uint32_t uncounted;    /* programs the counting shim is not in (static binary?): no calls */
    uint32_t peak_procs;   /* most processes seen at once */
    uint32_t peak_threads; /* most threads seen at once */
    uint64_t rss_bytes;    /* resident set, summed over the tree's processes now */
    uint64_t syscr, syscw; /* kernel: read-family and write-family system calls (/proc/PID/io) */
    uint64_t rchar, wchar; /* kernel: bytes through those calls */
    double syscr_rate, syscw_rate;
    uint64_t read_bytes;    /* kernel: bytes fetched from storage for the tree (/proc/PID/io):
                               page cache misses; a warm read adds nothing here */
    uint64_t write_bytes;   /* kernel: bytes sent towards storage */
    double read_bytes_rate; /* per second over the last tick */
    uint64_t lib_reads;     /* counter page: the calls the kernel counts in syscr (read, readv,
                               pread64, preadv, sendfile, copy_file_range), to set beside it */
    uint64_t lib_writes;    /* likewise for syscw (write, writev, pwrite64, pwritev, sendfile,
                               copy_file_range) */
    uint64_t requests;      /* app: requests completed (published by the demo) */
    uint64_t app_bytes;     /* app: payload bytes delivered */
    uint64_t conns_opened;  /* app: connections accepted (server) or established (client) */
    uint64_t conns_closed;
    uint64_t errors; /* app: failed requests, verification failures */
    /* Who is still waiting, now (gauges the client publishes, its newest run only): requests
       sent, or connections asked for, with no answer yet. The latency figures above include them
       (waits_fold in waits.h): each as long as it has waited so far, at the pace of the answered
       ones, so that clients an iterative server never answers weigh as much as those it does. */
    uint64_t in_flight;           /* requests out (or connections asked for), no answer yet */
    uint64_t waiting;             /* of those, out for a sampling interval (100 ms) or more:
                                     clients waiting their turn rather than a round trip */
    uint64_t in_flight_oldest_ns; /* how long the oldest of them has waited */
    /* Calls that failed and cost a connection, by call and cause (iolab_counters.h): what a
       program could not do, and which limit stood in the way. */
    uint64_t failed[IOLAB_FAIL_NCALLS][IOLAB_FAIL_NCAUSES];
    uint64_t failed_total; /* all of failed[][] */
    uint64_t shed;         /* connections accepted only to be closed at once, at a limit */
    double requests_rate;  /* requests/s over the last tick */
    double app_bytes_rate; /* bytes/s over the last tick */
    struct snapshot_latency latency_recent; /* over the last SNAPSHOT_RECENT_S seconds or so */
    struct snapshot_latency latency_total;  /* since the scenario started */
    struct iolab_fdsplit fd; /* counter page: read/write-family calls by kind of descriptor and
                                the faults injected (IOLAB_FAULTS), cumulative like calls[] */
    /* How fresh the /proc figures above are (cpu, ctx, io, rss, threads): the sampler reads a
       budgeted slice of the processes and threads each tick (sampler.h), so past about a hundred
       some figures are older than the tick. */
    double proc_age_s;    /* the oldest of them was read this long before the snapshot */
    uint32_t proc_unread; /* processes and threads not read even once yet: not in the sums */
    /* io_uring, from the demo itself (the shim cannot see the operations inside a ring): */
    uint64_t uring_submissions; /* operations handed to the kernel */
    uint64_t uring_completions; /* completions reaped */
    uint64_t uring_enters;      /* io_uring_enter() system calls */
};

enum snapshot_prog_state {
    SNAPSHOT_PROG_IDLE,     /* not started (yet) */
    SNAPSHOT_PROG_STARTING, /* spawned, not ready: waiting for its `ready` line */
    SNAPSHOT_PROG_RUNNING,
    SNAPSHOT_PROG_PAUSED,   /* stopped with SIGSTOP by engine_pause() */
    SNAPSHOT_PROG_STOPPING, /* SIGTERM sent, not reaped yet */
    SNAPSHOT_PROG_EXITED,
};

struct snapshot_prog {
    char name[SNAPSHOT_NAME_LEN]; /* the lesson's program name: "server", "load" */
    enum lesson_role role;
    enum snapshot_prog_state state;
    int pid;         /* the program's own process (below the sandbox's helpers); 0 when none */
    int root_pid;    /* the process iolab spawned (the sandbox launcher when jailed) */
    uint32_t run;    /* IOLAB_RUN generation of the current process: bumps on every restart */
    int exit_status; /* last exit: code, or 128+signal; -1 while it has not exited */
    int counted;     /* 1 the counting shim is in its process, 0 it is not (static binary?), -1
                        not known (not found yet, or /proc/PID/maps unreadable) */
    struct snapshot_figures f;
    bool counts_forged; /* its counter pages (this start's or an earlier one's) hold values no
                           shim writes, or a header iolab did not write: counts are wrong */
    /* Where its counted calls were made, cumulative like calls[] (tally.h): object and offset
       per site; siteline.h turns them into source lines when a report or verdict needs them. */
    struct tally_sites sites;
};

struct snapshot {
    uint64_t seq;             /* 1, 2, ...: bumps with every published snapshot */
    double elapsed_s;         /* since the scenario started */
    double dt_s;              /* real time since the previous snapshot */
    double rate_window_s;     /* rates (calls/s, requests/s, ctx/s, busy, share) are over this
                                 much time: about the last second, or since the mode started when
                                 that is shorter */
    double tick_hz;           /* the sampler's rate */
    int mode;                 /* index of the current mode in the scenario, -1 without modes */
    bool mode_running;        /* the current mode's server is up (false while switching/starting) */
    bool paused;              /* the load is paused */
    uint32_t overflow_claims; /* threads that found their counter page full, every program's
                                 pages summed: attribution lost */
    uint32_t sample_errors;   /* /proc reads that failed this tick (a process vanishing mid-read
                                 is normal; a steady count is not) */
    uint32_t ncpus;           /* online CPUs of the machine */
    double loadavg;           /* its 1-minute load average; -1 when unknown */

    uint32_t nprogs;
    struct snapshot_prog progs[SNAPSHOT_MAX_PROGS];
    struct snapshot_figures roles[LESSON_NROLES]; /* summed over the programs of each role */
    /* Cumulative latency histograms of each role (iolab_hist_bucket() layout): subtract two
       snapshots' to get the percentiles of any interval (stats_hist_sub, stats_latency). */
    uint64_t latency_hist[LESSON_NROLES][IOLAB_HIST_BUCKETS];
    /* The ages of each role's requests still waiting, now (a gauge, not cumulative): fold them
       into a difference of latency_hist with waits_fold(). */
    uint64_t in_flight_hist[LESSON_NROLES][IOLAB_HIST_BUCKETS];

    /* Throughput of the client role (published app figures), one entry per whole second, oldest
       first; history_len entries are valid. */
    uint32_t history_len;
    double history_requests[SNAPSHOT_HISTORY]; /* requests/s in that second */
    double history_bytes[SNAPSHOT_HISTORY];    /* bytes/s in that second */

    double sample_cost_s; /* wall time the sampler took to make this snapshot */
};

/* The label of call i, as the counter page names it. */
static inline const char *snapshot_call_label(unsigned i)
{
    return i < IOLAB_NCALLS ? iolab_call_info[i].label : "?";
}

#endif
