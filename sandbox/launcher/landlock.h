/*
 * landlock: confinement without privilege. The file system becomes read-only except beneath the
 * work directory (and /dev/shm, /dev/null and friends), TCP bind and connect are limited to the
 * scenario's port, device ioctls are refused except on /dev/null, /dev/zero and /dev/full (ABI 5:
 * no ioctl reaches a terminal), and, where the kernel scopes signals, programs cannot signal
 * anything outside their own domain. Debian 12's headers predate the network, device-ioctl and
 * scoping ABIs, so the structures are defined here under this module's own names.
 */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include <stdbool.h>

/* Which Landlock features this kernel has, tested by creating rulesets. ioctl_dev: the right
 * to ioctl devices can be handled (ABI 5), so terminals can be walled off. */
void landlock_probe(int *abi, bool *fs, bool *net, bool *signal, bool *ioctl_dev);

/* Restricts the calling process (and its future children) for good. private_tmp: /tmp is the
 * work directory's tmp/ bound there (full tier), writable too. port 0: no net rules.
 * 0 or a negative errno. Sets no_new_privs, as Landlock requires. */
int landlock_apply(const char *workdir, bool private_tmp, int port, bool net);

#endif
