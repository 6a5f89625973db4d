/*
 * ns: the namespaces of the full tier. ns_create() turns the calling process into the owner of a
 * new user (unless root), network, IPC and mount namespace, with loopback up and private
 * tmpfs mounts on /dev/shm and (with a work directory) /tmp; ns_fork_init() then forks a child that
 * is PID 1 of a new PID namespace. ns_join() enters the namespaces of a running holder the way
 * nsenter does, in one setns() through a pidfd. /proc stays the host's, so that /proc/self works
 * for every program (its PID namespace is not the holder's).
 */
#ifndef SBX_NS_H
#define SBX_NS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The jail's file system view. /tmp becomes a tmpfs of tmp_mb MiB, private to the jail; the
 * work directory and each of the ro paths, wherever they are (under the host's /tmp included),
 * stay visible at their own paths: the work directory writable, the ro paths read-only.
 */
struct ns_fs {
    const char *workdir;   /* the programs' directory, writable */
    long tmp_mb;           /* the private /tmp's size, MiB */
    const char *const *ro; /* host paths (and their real paths) shown read-only */
    int nro;
};

/* 0, -EUSERS when the user namespace or its uid map is refused, or another negative errno.
 * fs: the private /tmp and what stays visible (NULL: leave the file system as it is). */
int ns_create(bool root, const struct ns_fs *fs);

/*
 * fork(), except that the child is PID 1 of a new PID namespace. The caller's own children stay
 * in its PID namespace: after unshare(CLONE_NEWPID) every later fork fails with ENOMEM once that
 * init has died, LeakSanitizer's tracer at exit included. 0 in the child, its pid, or -1/errno.
 */
pid_t ns_fork_init(void);

/*
 * Enters the user (unless root), network, IPC and mount namespaces of `pid`. 0 or -errno. Not
 * its PID namespace: a launcher's child left there as an orphan is re-parented to the host's
 * init, and where that init does not reap (containers), the zombie would keep the jail's init
 * from ever finishing its exit. Each program gets a PID namespace of its own instead, and its
 * launcher watches the holder.
 */
int ns_join(pid_t pid, bool root);

#endif
