/*
 * audit: the graded run's count of a program's system calls, made by the kernel rather than by
 * the counting shim inside the program (which a program can bypass with raw syscall()s and
 * whose counter page it can write). iolab names the call labels its checks read (--audit
 * LABELS) and a page to publish on (--audit-fd N, iolab_audit.h).
 *
 * The process that would exec the program forks once more: the child asks to be traced, stops,
 * installs a seccomp filter that returns SECCOMP_RET_TRACE for the system calls of those labels
 * only (every other call is allowed without a stop) and execs; the parent is its tracer, follows
 * every fork, vfork and clone, counts each PTRACE_EVENT_SECCOMP stop under its label and, for the
 * calls that move data, reads what the call returned at its exit. Nothing is counted that the
 * program did not ask the kernel for, and nothing it asked for escapes: a call of a traced
 * number made any way (libc, syscall(), inline assembly) stops, and a process of the tree that
 * lost its tracer gets ENOSYS from those calls rather than running them uncounted.
 */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

#include "cfg.h"

/* --audit LABELS: comma-separated call labels; 0 or -EINVAL naming an unknown or unauditable
   one (the library calls sem_wait, sem_post, recvmsg_rights make no system call of their own). */
int audit_parse(struct cfg *c, const char *labels);

/* --audit-fd N: maps iolab's page and closes N, so that no program ever holds it. 0 or -errno. */
int audit_map(struct cfg *c, int fd);

/*
 * In the freshly set-up process about to exec the program (prog.c), with c->audit set: forks,
 * traces the child, which returns here to exec under the filter, and in the parent counts until
 * the program ends, then ends as it did (its status, or its signal). When tracing is refused
 * (no seccomp, ptrace denied) the page says why, and the program runs unaudited: the call
 * returns in the original process. Returns only in the process that must exec.
 */
void audit_fork(const struct cfg *c);

/* Installs the audit filter in the calling process (after the terminal filter); 0 or -errno. */
int audit_filter_apply(const struct cfg *c);

#endif
