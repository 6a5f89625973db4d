/*
 * sweep: what the reduced and minimal tiers clean up by hand, since no namespace takes it away:
 * POSIX shared memory and message queues named with the session prefix, System V objects that
 * appeared during the session and were created by the programs' uid, and the work directory.
 */
#ifndef SBX_SWEEP_H
#define SBX_SWEEP_H

#include <sys/types.h>

#define SWEEP_MAX_IDS 256

struct sweep {
    int ids[3][SWEEP_MAX_IDS]; /* System V ids (shm, msg, sem) that existed before the session */
    int nids[3];
};

/* Records the System V objects that exist now, so that they are never swept. */
void sweep_snapshot(struct sweep *s);

/* Removes the session's IPC objects; returns how many. */
int sweep_ipc(const struct sweep *s, uid_t uid, const char *prefix);

/* Removes a directory tree (not following symlinks); 0 or -errno. */
int sweep_tree(const char *path);

#endif
