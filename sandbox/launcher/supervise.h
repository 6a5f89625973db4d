/*
 * supervise: the parent's side of a program. It forwards stop signals to its child, enforces
 * the wall-clock timeout and the SIGTERM-to-SIGKILL grace, reaps everything that reaches it, and
 * returns the child's fate as an exit status (the program's, or 128+signal).
 *
 * Two shapes: as PID 1 of a PID namespace it needs no kill loop (its own exit kills the rest);
 * as a child subreaper (reduced and minimal tiers) every orphan of the program's subtree,
 * setsid double-forks included, is re-parented to it and killed before it returns.
 */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include "cfg.h"
#include "cost.h"

#include <signal.h>
#include <stdbool.h>

enum supervise_shape {
    SUPERVISE_OUTER, /* the launcher iolab started: timeout and grace, kills the subtree */
    SUPERVISE_INIT,  /* PID 1 of the program's PID namespace: forwards and reaps */
};

/* Blocks the signals the loop waits for; call before forking the child. */
void supervise_block(sigset_t *old);

/*
 * Supervises child until it exits; returns the exit status to pass on. When rep is not NULL, the
 * rusage of every process reaped here is added to it (in the outer shape of the full tier the
 * child is the init, whose own figures are taken out again: see cost.h).
 */
int supervise_run(const struct cfg *c, pid_t child, enum supervise_shape shape, bool subreaper,
                  struct cost *rep);

/* Kills and reaps every remaining child and orphan of a subreaper (their rusage into rep). */
void supervise_kill_all(struct cost *rep);

#endif
