/*
 * seccomp: a small hand-written BPF filter, installed in the program's process just before exec
 * in every tier, that refuses the two ioctls which let a process act on a terminal as if a
 * person were typing or using the console: TIOCSTI (push bytes into the terminal's input queue)
 * and TIOCLINUX (console selection and paste). The session of its own and the absence of
 * terminal descriptors already keep a program away from the person's terminal; this filter is
 * the wall that still stands if a program gets hold of a terminal anyway (opening /dev/pts/N as
 * the same user, or a controlling terminal it acquired as a session leader), and it does not
 * depend on the host's dev.tty.legacy_tiocsti. No libseccomp: the filter is a dozen
 * instructions.
 */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include <stdbool.h>

/*
 * Sets no_new_privs and installs the filter on the calling process (and what it execs and
 * forks). 0; -EOPNOTSUPP when the kernel or this build's architecture has no seccomp filters
 * (the probe says so); or another negative errno.
 */
int seccomp_tty_apply(void);

/* True when the filter can be installed here and really refuses TIOCSTI, tried in a child. */
bool seccomp_tty_probe(void);

#endif
