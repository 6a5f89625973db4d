/*
 * leftovers: what the reduced and minimal tiers clean up by hand, since no namespace takes it away:
 * the IPC objects the programs created, as the counting shim recorded them in the work
 * directory's IPC registry (sandbox/count/iolab_ipclog.h), POSIX objects named with the session
 * prefix, and the work directory. Nothing is chosen by uid or novelty alone: the learner's
 * other programs run under the same uid and create objects during a session too.
 */
#ifndef SBX_LEFTOVERS_H
#define SBX_LEFTOVERS_H

#include <sys/types.h>

struct leftovers {
    char log[4096]; /* the registry the programs append to: <workdir>/.iolab-ipc */
};

/*
 * Names the registry of a work directory (NULL: the current one) and removes a stale one, before
 * any program of the session starts. 0 or -ENAMETOOLONG.
 */
int leftovers_begin(struct leftovers *s, const char *workdir);

/* The value of IOLAB_IPC_LOG for programs running in the current directory; 0 or -errno. */
int leftovers_log_env(char *buf, size_t len);

/*
 * Removes the objects the registry records that still belong to uid (System V: created by it;
 * POSIX: owned by it), and the POSIX objects named with prefix (NULL or "": none); then the
 * registry itself. Returns how many objects were removed.
 */
int leftovers_ipc(const struct leftovers *s, uid_t uid, const char *prefix);

/* Removes a directory tree (not following symlinks); 0 or -errno. */
int leftovers_tree(const char *path);

#endif
