/*
 * ns: the namespaces of the full tier. ns_create() turns the calling process into the owner of a
 * new user (unless root), network, IPC and mount namespace, with loopback up and a private
 * tmpfs on /dev/shm, and makes its next child PID 1 of a new PID namespace. ns_join() enters the
 * namespaces of a running holder the way nsenter does, in one setns() through a pidfd.
 */
#ifndef SBX_NS_H
#define SBX_NS_H

#include <stdbool.h>
#include <sys/types.h>

/* 0, -EUSERS when the user namespace or its uid map is refused, or another negative errno.
 * private_tmp: bind this directory over /tmp (NULL: leave /tmp). */
int ns_create(bool root, const char *private_tmp);

/* Mounts a /proc that shows the new PID namespace; call in its PID 1. Best effort. */
void ns_mount_proc(void);

/* Enters the user (unless root), network, IPC, mount and PID namespaces of `pid`; the next
 * child is born in its PID namespace. 0 or -errno. */
int ns_join(pid_t pid, bool root);

#endif
