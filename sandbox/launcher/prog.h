/*
 * prog: the last steps in the child before the program runs, in an order that matters: open the
 * executable and the preload libraries while still privileged (the unprivileged uid may not be
 * able to reach a build tree under /root), leave the terminal (a session of its own, terminal
 * descriptors replaced by /dev/null), set the rlimits, drop to the unprivileged uid, apply
 * Landlock, install the seccomp filter against terminal ioctls, exec. Never returns.
 */
#ifndef SBX_PROG_H
#define SBX_PROG_H

#include "cfg.h"

/* Runs c->argv in the calling (freshly forked) process under the limits of tier `tier`. */
_Noreturn void prog_exec(const struct cfg *c, enum iolab_tier tier, pid_t parent);

/* Finds and opens the executable as execvp would; 0 or a negative errno. Done before the
 * namespaces are entered, since the private /tmp may hide where the program lives. */
int prog_open(struct cfg *c);

/* The RLIMIT_NPROC value that lets the program add c->nproc processes to those its uid has. */
long prog_nproc_limit(const struct cfg *c, enum iolab_tier tier);

#endif
