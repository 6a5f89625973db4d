/*
 * hold: the scenario's jail, held open for as long as iolab keeps a pipe open to it. In the full
 * tier the holder owns the namespaces and its child is PID 1 of the scenario's PID namespace;
 * in the other tiers it is the one who cleans up after the programs (leftover IPC objects, work
 * directory) once every joined launcher has finished killing its subtree.
 */
#ifndef SBX_HOLD_H
#define SBX_HOLD_H

#include "cfg.h"
#include "probe.h"

/* Builds the jail, reports it on c->status_fd, waits for EOF on c->life_fd; returns the exit
 * status. */
int hold_run(struct cfg *c, const struct probe *probe);

/* Creates <workdir>/tmp and, as root, hands the tree to the unprivileged uid; 0 or -errno. */
int hold_prepare_workdir(const struct cfg *c);

/*
 * Gives the jail its own budget of processes and memory (a holder's or a standalone run's):
 * c->cgroup, or as root without one a uid of its own, or neither; p's budget and cgroup fields
 * then say which the jail got.
 */
void hold_budget(struct cfg *c, struct probe *p);

/* The lock every joined launcher holds shared while it lives: <workdir>/.iolab-jail.lock. */
int hold_lock_open(const char *workdir);

#endif
