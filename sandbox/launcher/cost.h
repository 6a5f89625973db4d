/*
 * cost: what the program's subtree cost, from the kernel's own accounting at its end. Every
 * process the launcher reaps hands over, through wait4(), its rusage and that of every
 * descendant it waited for; the sum over all of them is the whole subtree, down to processes
 * that lived and died between two of iolab's samples. With --report-fd, that sum is written as
 * one JSON line once the subtree is gone, and the descriptor is closed.
 *
 * Invariants: fields only grow while reaping; a helper of ours (the full tier's init) is taken
 * out again with cost_sub_helper(), so the figures are the program's tree and nothing else.
 */
#ifndef SBX_COST_H
#define SBX_COST_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* The kernel's read and write totals of a process (/proc/PID/io). */
struct cost_io {
    uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
};

struct cost {
    uint64_t utime_us, stime_us; /* CPU time in user and kernel mode */
    uint64_t nvcsw, nivcsw;      /* voluntary and involuntary context switches */
    uint64_t maxrss_kb;          /* the largest resident set of any one process */
    /* The read and write totals of every process reaped, each read from /proc/PID/io while it
       was a zombie (a reaped process's totals are folded into its reaper's, mixed with the
       reaper's own): with its descendants', the whole tree's. */
    struct cost_io io;
    int io_missing; /* processes whose io could not be read: then io is not reported */
    /* What the helper (the full tier's init) did itself, taken out when the line is written:
       its rusage and io hold the program's tree and its own share. */
    uint64_t own_utime_us, own_stime_us, own_nvcsw, own_nivcsw;
    struct cost_io own_io;
    const char *limit; /* a limit of the jail's own that was hit meanwhile ("pids", "memory") */
};

/* Adds the io of pid, an exited child not reaped yet, to r (or counts it as missing). */
void cost_add_io(struct cost *r, pid_t pid);

/* Adds what wait4() returned for one reaped process (and the descendants it waited for). */
void cost_add(struct cost *r, const struct rusage *ru);

/*
 * Takes out the own figures of pid, a helper that has exited but is not reaped yet (read from
 * /proc while it is a zombie): after the reap they would be inside its rusage.
 */
void cost_sub_helper(struct cost *r, pid_t pid);

/* Writes the one JSON line (status: the exit status passed on) to fd and closes fd: the rusage
   fields, "limit" when the jail's cgroup stopped something (cgroup.h), and rchar, wchar, syscr,
   syscw, read_bytes and write_bytes unless io_missing. */
int cost_write(int fd, const struct cost *r, int status);

/* Writes the interim line {"limit":"NAME","running":true} to fd, left open: a limit of the jail
   was hit while the program still runs. The final line (cost_write) follows as before; a reader
   tells the two apart by "status", which only the final line has. */
int cost_write_interim(int fd, const char *limit);

#endif
