/*
 * ns: the namespaces of the full tier. ns_create() turns the calling process into the owner of a
 * new user (unless root), network, IPC and mount namespace, with loopback up and a private
 * tmpfs on /dev/shm, and makes its next child PID 1 of a new PID namespace. ns_join() enters the
 * namespaces of a running holder the way nsenter does, in one setns() through a pidfd.
 * /proc stays the host's, so that /proc/self works for every program (its PID namespace is not
 * the holder's).
 */
#ifndef SBX_NS_H
#define SBX_NS_H

#include <stdbool.h>
#include <sys/types.h>

/* 0, -EUSERS when the user namespace or its uid map is refused, or another negative errno.
 * private_tmp: bind this directory over /tmp (NULL: leave /tmp). */
int ns_create(bool root, const char *private_tmp);

/*
 * Enters the user (unless root), network, IPC and mount namespaces of `pid`. 0 or -errno. Not
 * its PID namespace: a launcher's child left there as an orphan is re-parented to the host's
 * init, and where that init does not reap (containers), the zombie would keep the jail's init
 * from ever finishing its exit. Each program gets a PID namespace of its own instead, and its
 * launcher watches the holder.
 */
int ns_join(pid_t pid, bool root);

#endif
