/*
 * sampler: turns the programs' counter pages (one per program start) and /proc into snapshots
 * (snapshot.h), one per call.
 *
 * Model: the sampler knows, for each scenario program, the pid iolab spawned (its root). It finds
 * the processes born since its last look (the pids handed out since, from /proc/loadavg), reads
 * the stat of each once (parent pid and start time), and so keeps every process's membership: a
 * process belongs to a program's tree when it is the root or its parent does. Of that tree, the
 * program's figures are its own process's (found by its executable below the sandbox's helpers)
 * and those of every process born after it but the helpers above it: its subtree in the jail,
 * grandchildren reparented to the jail's reaper included (a fork-twice server). For members only
 * it keeps /proc/PID/{stat,io} and every thread's task/TID/status open and re-reads them with
 * pread (FACTS.md: the cheap way), summing the context switches of every thread (the kernel
 * counts them per task); a pidfd per member says when it exits. Each sample reads a slice of the
 * members within a budget of CPU time (sampler_set_budget(), rotation.h), so past a hundred or
 * so processes and threads a figure may be older than the tick: the snapshot says how old
 * (snapshot_figures.proc_age_s). sampler_procs.c has the details and app/metrics/README.md the
 * measurements.
 *
 * Exits: when a member disappears, what it did must not vanish from the totals. Its CPU time and
 * io reach its parent's stat (cutime/cstime) and io files once the parent reaps it; so its last
 * sampled CPU and io are added to the program's totals only when its parent is no longer a live
 * member (the root, reaped by iolab; orphans, reaped by init). Context switches of reaped
 * processes appear nowhere in /proc, so a vanished member's last sampled counts are always
 * added; the same for threads that exit. Between samples the figures can only miss things: the
 * context switches of a process or thread that lived and died between two samples, the last
 * tick of one that exited, CPU that a parent reaped after its own last sample. When a run of a
 * program ends, sampler_set_exit() closes that gap with the kernel's own totals for the run
 * (wait4() rusage and each process's /proc/PID/io at its end, which iolab-sandbox reports): each
 * field is topped up to them, never lowered. So where /proc cannot say whether a figure is in
 * another already (a child reaped by a parent that has itself exited since), the sampler leaves
 * it out rather than count it twice: an undercount is made good at the end, a double count never.
 * Totals are monotonic (a race can make a sum briefly low, never make a total go backwards).
 *
 * Invariants: no allocation while building a snapshot except when the set of processes grows;
 * parsers use fixed buffers; the /proc root is a parameter (tests point it elsewhere).
 */
#ifndef IOLAB_SAMPLER_H
#define IOLAB_SAMPLER_H

#include "iolab_counters.h"
#include "snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sampler;

/*
 * proc_root: "/proc" normally. nprogs programs, at most SNAPSHOT_MAX_PROGS. tick_hz: the rate the
 * caller will sample at (shown in snapshots). now_s: a monotonic clock reading, the scenario's
 * time zero. No program has a counter page until sampler_set_page().
 */
int sampler_open(struct sampler **out, const char *proc_root, uint32_t nprogs, double tick_hz,
                 double now_s);
void sampler_close(struct sampler *s);

/*
 * The counter page of prog's current start (mapped, nslots validated slots; NULL: none). Every
 * slot of it is prog's, whatever the slot's prog field says (tally.h). The page it replaces is
 * read one last time here and its totals carried as the base of prog's figures, so a restart
 * loses nothing: call it when that start has been reaped and before the new one runs, and keep
 * the old page mapped until this returns. The caller owns the pages; the sampler only reads them,
 * until sampler_close() or the next sampler_set_page() of prog.
 */
void sampler_set_page(struct sampler *s, uint32_t prog, const struct iolab_page *page,
                      uint32_t nslots);

void sampler_set_prog(struct sampler *s, uint32_t prog, const char *name, enum lesson_role role);
/* The process spawned for prog (0: none now) and its IOLAB_RUN generation. */
void sampler_set_root(struct sampler *s, uint32_t prog, int pid, uint32_t run);
/* The program's executable: its process is told from the sandbox's helpers by it. */
void sampler_set_exe(struct sampler *s, uint32_t prog, const char *path);
void sampler_set_state(struct sampler *s, uint32_t prog, enum snapshot_prog_state state,
                       int exit_status);
/* What the kernel counted for one run of a program, over its whole tree (wait4() rusage). */
struct sampler_exit {
    uint64_t utime_us, stime_us; /* CPU time in user and kernel mode */
    uint64_t nvcsw, nivcsw;      /* voluntary and involuntary context switches */
    /* The kernel's read and write totals of the run's tree (/proc/PID/io of each process at
       its end, which the launcher reports), when has_io. */
    bool has_io;
    uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
};

/*
 * Reconciles run `run` of prog with x, once every process of that run is gone and before the
 * next run is spawned: what was sampled for that run (its members, live and vanished, since
 * sampler_set_root() started it) is topped up to x field by field (CPU, context switches, and
 * the read and write totals when x has them), into the figures of exited members, so later
 * snapshots and mode rows include it: what the run did between the last sample and its end is
 * not lost. 0, or -ESRCH when run is not the run
 * being measured (already reconciled, or superseded).
 */
int sampler_set_exit(struct sampler *s, uint32_t prog, uint32_t run, const struct sampler_exit *x);

/* The current mode (-1: none) and whether its server is up (the snapshot says both; the time
   each mode ran is the grader's, from consecutive snapshots: grade/session.c). */
void sampler_set_mode(struct sampler *s, int mode, bool running);
void sampler_set_paused(struct sampler *s, bool paused);

/*
 * How much reading a tick may do: core_share of one core at the sampler's tick rate, but at
 * least min_items files whatever the clock says (default SAMPLER_BUDGET_MIN_ITEMS). By default
 * the share follows the scenario's size (rotation_share(): 0.75% up to 256 processes and
 * threads, 1.6% from 1,000); a call fixes it. core_share <= 0: no limit, all read every tick.
 */
#define SAMPLER_BUDGET_MIN_ITEMS 16
void sampler_set_budget(struct sampler *s, double core_share, uint32_t min_items);

/* Samples everything now (now_s: same clock as sampler_open) and returns the new snapshot. */
const struct snapshot *sampler_sample(struct sampler *s, double now_s);

/*
 * Rescans /proc and writes the pids of prog's live process tree (root first when alive) into
 * pids; returns how many there are (may exceed max: only max are written). For stopping a
 * program whose descendants left its process group.
 */
size_t sampler_tree(struct sampler *s, uint32_t prog, int *pids, size_t max);

/* Which of the kernel's /proc/PID/io counters a counted call adds to: SAMPLER_IN_SYSCR and/or
   SAMPLER_IN_SYSCW (read, readv, pread64, preadv, sendfile and copy_file_range count as reads;
   their write twins, sendfile and copy_file_range as writes; send/recv, splice and mmap in
   neither). The counters pane sets the library's sums beside the kernel's by this table, and
   it_kernel_io checks it against the kernel. */
#define SAMPLER_IN_SYSCR 1
#define SAMPLER_IN_SYSCW 2
int sampler_kernel_family(enum iolab_call_id call);

#endif
