/*
 * report: what the program's subtree cost, from the kernel's own accounting at its end. Every
 * process the launcher reaps hands over, through wait4(), its rusage and that of every
 * descendant it waited for; the sum over all of them is the whole subtree, down to processes
 * that lived and died between two of iolab's samples. With --report-fd, that sum is written as
 * one JSON line once the subtree is gone, and the descriptor is closed.
 *
 * Invariants: fields only grow while reaping; a helper of ours (the full tier's init) is taken
 * out again with report_sub_helper(), so the figures are the program's tree and nothing else.
 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct report {
    uint64_t utime_us, stime_us; /* CPU time in user and kernel mode */
    uint64_t nvcsw, nivcsw;      /* voluntary and involuntary context switches */
    uint64_t maxrss_kb;          /* the largest resident set of any one process */
};

/* Adds what wait4() returned for one reaped process (and the descendants it waited for). */
void report_add(struct report *r, const struct rusage *ru);

/*
 * Takes out the own figures of pid, a helper that has exited but is not reaped yet (read from
 * /proc while it is a zombie): after the reap they would be inside its rusage.
 */
void report_sub_helper(struct report *r, pid_t pid);

/* Writes the one JSON line (status: the exit status passed on) to fd and closes fd. */
int report_write(int fd, const struct report *r, int status);

#endif
