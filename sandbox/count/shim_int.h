/*
 * shim_int: what the files of libiolab-count.so share and nothing else may use. shim.c holds
 * every exported entry point and the counting path; shim_faults.c the fault injection and
 * shim_ipclog.c the IPC registry, which shim.c calls and which never call back into shim.c (no
 * two files depend on each other: tests/structure/cycles.sh reads the shim's objects too).
 * Every symbol here is hidden (the library is built with hidden visibility), so a reference
 * across the files costs what one inside a file does.
 */
#ifndef IOLAB_SHIM_INT_H
#define IOLAB_SHIM_INT_H

#include "iolab_ipclog.h"
#include "iolab_page.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#define SHIM_EXPORT      __attribute__((visibility("default")))
#define SHIM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHIM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHIM_TLS         __thread __attribute__((tls_model("initial-exec")))
#define SHIM_COLD        __attribute__((cold, noinline))

/* Descriptor numbers the per-descriptor tables cover (shim.c's kinds, shim_faults.c's
   edge-triggered marks); numbers past it are looked at every time. */
#define SHIM_FD_TABLE (1u << 20)

/* Adds v to a slot's field: one non-locked add in the thread's own slot, a locked one in the
   shared overflow slot (the model is in shim.c's opening comment). */
static inline void shim_add_as(int shared, uint64_t *field, uint64_t v)
{
    if (SHIM_UNLIKELY(shared))
        __atomic_fetch_add(field, v, __ATOMIC_RELAXED);
    else
        __asm__("addq %1, %0" : "+m"(*field) : "er"(v));
}

/* ---- fault injection (shim_faults.c; what IOLAB_FAULTS asks for is explained there) ---- */

struct shim_faults {
    uint32_t short_p, eintr_p, eagain_p, spurious_p, late_start_p; /* scaled to 2^32 - 1 */
    uint32_t jitter_ns;                                            /* jitter_us, in ns; 0: off */
    int coalesce_chld;                                             /* coalesce_sigchld=1 */
    uint64_t seed;
};
extern struct shim_faults shim_faults; /* all zero: no fault is injected */
extern int shim_faults_on;             /* short, eintr or eagain is asked for */

/* Reads IOLAB_FAULTS into shim_faults (at start-up, once the page is known). */
void shim_faults_init(void);
/* A draw of the calling thread's generator. */
uint32_t shim_rand(void);
/* The injector's decision for one call on fd (of kind `kind`, in slot s, shared as in
   shim_add_as) moving *n bytes: 0 to make the call, with *n perhaps cut (counted as `cut`), or
   the errno to fail with instead. flags: the send/recv flags, 0 for other calls. copy: a call
   between two descriptors (sendfile...), which a signal may interrupt whatever its
   destination. */
int shim_fault(struct iolab_slot *s, int shared, int kind, int fd, int flags, size_t *n,
               enum iolab_fault cut, int copy);
/* An epoll_ctl() that returned r: remembers whether fd is now watched edge-triggered (no
   EAGAIN is injected on such a descriptor). Returns 0, the bytes the call moved. */
uint64_t shim_epoll_noted(int r, int op, int fd, const struct epoll_event *ev);
/* late_start: pthread_create()'s function and argument, replaced by a late start when drawn. */
void shim_late_start(void *(**fn)(void *), void **arg);
/* jitter_us: a sleep at one boundary in two. */
void shim_jitter(void);
/* coalesce_sigchld: sigaction(SIGCHLD, ...) with the shim's handler in front of the program's;
   next is the real sigaction(). */
typedef int (*shim_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
int shim_chld_sigaction(const struct sigaction *act, struct sigaction *old, shim_sigaction_fn next);
/* A fork: before it (the child's place in the fork tree), in the parent after it, and in the
   child (its generators start again from its own place; a held SIGCHLD is the parent's). */
void shim_faults_fork_begin(void);
void shim_faults_fork_parent(void);
void shim_faults_fork_child(void);

/* ---- the IPC registry (shim_ipclog.c) ---- */

/* Keeps IOLAB_IPC_LOG as it is at start-up. */
void shim_ipc_init(void);
/* Appends one record of an IPC object this process created; errno is kept. */
void shim_ipc_record(enum iolab_ipc_kind kind, int id, const char *name);

#endif
