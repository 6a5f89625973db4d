/*
 * shim: libiolab-count.so, the LD_PRELOAD library that counts a program's I/O calls into the
 * counter page (layout and reader rules in iolab_counters.h).
 *
 * Model: every libc entry point that makes one of the IOLAB_CALLS system calls is defined here
 * too; the dynamic linker binds the program's calls to these definitions, which count and then
 * call the real function found with dlsym(RTLD_NEXT). Several entry points fold into one label,
 * as the kernel sees them (send -> sendto, open -> openat, __read_chk -> read, ...).
 *
 * Invariants:
 * - Without a valid page (IOLAB_COUNTERS_FD unset, not a page, another layout) every wrapper is
 *   a plain call of the real function: nothing printed, nothing written, nothing else changed.
 * - A wrapper never changes what the program sees: it returns the real result, errno is the
 *   real call's errno (the slow paths save and restore it), and the call that blocks is the one
 *   libc would make, so cancellation points and EINTR behave as without the shim. (The hot
 *   calls are made by the shim itself, as libc makes them; see "Direct calls".)
 * - A thread writes only its own slot, claimed on its first counted call, with single
 *   instructions (one non-locked `add` per field: a signal handler that counts in between
 *   cannot lose an update, and another thread never sees a torn value). The exceptions are off
 *   the hot path: the shared overflow slot, written with locked adds, and a claim that moves a
 *   dead thread's counts into a RETIRED slot (locked adds there, inside the page's seqlock).
 * - A thread holds its slot's robust mutex while it lives; the kernel releases it, marked "owner
 *   died", however the thread ends. Nothing runs at thread exit, and the hot path is unchanged.
 * - A call is counted before it is made, so a call that blocks or is cancelled is still seen;
 *   bytes and time are added when it returns.
 * - After fork the child forgets its parent's slot (pthread_atfork, and the fork wrappers
 *   themselves for _Fork, which runs no handlers) and claims its own with its own pid.
 * - Time is read with rdtsc once the TSC has been calibrated against CLOCK_MONOTONIC (about
 *   10 ms after start; until then clock_gettime is used), because two vDSO clock reads cost
 *   about 47 ns per call here against 19 ns for two rdtsc (see README.md).
 * - Every IPC object a program really creates (System V shm/msg/sem, POSIX shm and message
 *   queues) is appended to the IPC registry named by IOLAB_IPC_LOG (iolab_ipclog.h), so that the
 *   sandbox's removal of leftovers takes those objects and no other object of the same uid.
 *   The registry is independent of the page: it is written whenever the variable is set. Its
 *   writes are raw system calls through syscall(), never counted, and errno is preserved.
 *
 * This file keeps every exported entry point and the counting path. The cold parts it calls
 * are files of their own, sharing only shim_int.h: the fault injection (shim_faults.c) and the
 * IPC registry (shim_ipclog.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/shm.h>
#include <sys/single_threaded.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cpuid.h>
#include <x86intrin.h>

#include "shim_int.h"

/* The page as validated at start-up; the header is never trusted again after that. */
static struct iolab_page *shim_page;
static uint32_t shim_nslots;
static uint32_t shim_prog = UINT32_MAX;
static uint32_t shim_run;
static int shim_direct_ok; /* the wrappers may make their calls themselves ("Direct calls") */

/*
 * Everything the hot path keeps per thread, in one TLS block: in a shared library each TLS
 * variable costs a GOT load for its offset before the %fs-relative access, and one block is one
 * such load for all of them (perf showed the separate loads on the counting path).
 */
#define SHIM_SEEN 64 /* entries of a thread's cache of call sites (a power of two) */

struct shim_thread {
    struct iolab_slot *slot; /* NULL until the thread's first counted call (or never, when the
                                process has no page): the hot path asks nothing else */
    int shared;              /* the slot is the shared overflow slot: atomic adds */
    int faults;              /* fault injection is on (shim_faults_on, copied at the claim) */
    int direct_ok;           /* the direct calls may be made (shim_direct_ok, copied likewise) */
    uint32_t left;           /* sampled timing: untimed calls before the next timed one */
    uint32_t gap;            /* calls the next timed one stands for (0: the first) */
    uint32_t gap_rng;        /* xorshift32 state of the gaps */
    uint32_t forced;         /* calls still to time one by one after a call that waited */
    int in_site;             /* inside shim_site_miss(): a handler's call counts without a site */
    /* Call sites seen by this thread: (return address << 6 | call) -> the site's count in the
       slot, direct-mapped by a hash of the address; emptied at every claim (a slot inherited,
       a fork's child), and filled by shim_site_miss(). */
    struct shim_site_seen {
        uint64_t key;
        uint64_t *count;
    } seen[SHIM_SEEN];
};
static SHIM_TLS struct shim_thread shim_self;

/* ns = ticks * shim_tsc_mult >> 32; 0 until calibrated (or when the TSC is not invariant). */
static uint64_t shim_tsc_mult;
static uint64_t shim_cal_tsc, shim_cal_ns;
static int shim_tsc_usable;

/* ---- the real functions ------------------------------------------------------------------- */

/* One pointer per wrapped entry point, resolved together on first need. */
#define SHIM_REALS(X)                                                                              \
    X(ssize_t, read, (int, void *, size_t))                                                        \
    X(ssize_t, __read_chk, (int, void *, size_t, size_t))                                          \
    X(ssize_t, write, (int, const void *, size_t))                                                 \
    X(ssize_t, readv, (int, const struct iovec *, int))                                            \
    X(ssize_t, writev, (int, const struct iovec *, int))                                           \
    X(ssize_t, pread64, (int, void *, size_t, off_t))                                              \
    X(ssize_t, __pread64_chk, (int, void *, size_t, off_t, size_t))                                \
    X(ssize_t, pwrite64, (int, const void *, size_t, off_t))                                       \
    X(ssize_t, preadv64, (int, const struct iovec *, int, off_t))                                  \
    X(ssize_t, pwritev64, (int, const struct iovec *, int, off_t))                                 \
    X(ssize_t, sendto, (int, const void *, size_t, int, const struct sockaddr *, socklen_t))       \
    X(ssize_t, sendmsg, (int, const struct msghdr *, int))                                         \
    X(ssize_t, recvfrom, (int, void *, size_t, int, struct sockaddr *, socklen_t *))               \
    X(ssize_t, __recvfrom_chk, (int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *)) \
    X(ssize_t, recvmsg, (int, struct msghdr *, int))                                               \
    X(int, recvmmsg, (int, struct mmsghdr *, unsigned, int, struct timespec *))                    \
    X(int, sendmmsg, (int, struct mmsghdr *, unsigned, int))                                       \
    X(ssize_t, sendfile64, (int, int, off_t *, size_t))                                            \
    X(ssize_t, splice, (int, loff_t *, int, loff_t *, size_t, unsigned))                           \
    X(ssize_t, tee, (int, int, size_t, unsigned))                                                  \
    X(ssize_t, vmsplice, (int, const struct iovec *, size_t, unsigned))                            \
    X(ssize_t, copy_file_range, (int, loff_t *, int, loff_t *, size_t, unsigned))                  \
    X(void *, mmap64, (void *, size_t, int, int, int, off_t))                                      \
    X(int, munmap, (void *, size_t))                                                               \
    X(int, socket, (int, int, int))                                                                \
    X(int, accept, (int, struct sockaddr *, socklen_t *))                                          \
    X(int, accept4, (int, struct sockaddr *, socklen_t *, int))                                    \
    X(int, connect, (int, const struct sockaddr *, socklen_t))                                     \
    X(int, epoll_wait, (int, struct epoll_event *, int, int))                                      \
    X(int, epoll_pwait, (int, struct epoll_event *, int, int, const sigset_t *))                   \
    X(int, epoll_ctl, (int, int, int, struct epoll_event *))                                       \
    X(int, poll, (struct pollfd *, nfds_t, int))                                                   \
    X(int, __poll_chk, (struct pollfd *, nfds_t, int, size_t))                                     \
    X(int, ppoll, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *))            \
    X(int, __ppoll_chk,                                                                            \
      (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *, size_t))                \
    X(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *))                          \
    X(int, pselect,                                                                                \
      (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *))              \
    X(pid_t, fork, (void))                                                                         \
    X(pid_t, _Fork, (void))                                                                        \
    X(int, pthread_create, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))       \
    X(int, openat64, (int, const char *, int, ...))                                                \
    X(int, __open64_2, (const char *, int))                                                        \
    X(int, __openat64_2, (int, const char *, int))                                                 \
    X(int, close, (int))                                                                           \
    X(int, fsync, (int))                                                                           \
    X(int, fdatasync, (int))                                                                       \
    X(int, mincore, (void *, size_t, unsigned char *))                                             \
    X(int, posix_fadvise64, (int, off_t, off_t, int))                                              \
    X(ssize_t, readahead, (int, off_t, size_t))                                                    \
    X(int, creat64, (const char *, mode_t))                                                        \
    X(int, shmget, (key_t, size_t, int))                                                           \
    X(int, msgget, (key_t, int))                                                                   \
    X(int, semget, (key_t, int, int))                                                              \
    X(int, shm_open, (const char *, int, mode_t))                                                  \
    X(mqd_t, mq_open, (const char *, int, ...))                                                    \
    X(int, mq_send, (mqd_t, const char *, size_t, unsigned))                                       \
    X(int, mq_timedsend, (mqd_t, const char *, size_t, unsigned, const struct timespec *))         \
    X(ssize_t, mq_receive, (mqd_t, char *, size_t, unsigned *))                                    \
    X(ssize_t, mq_timedreceive, (mqd_t, char *, size_t, unsigned *, const struct timespec *))      \
    X(int, msgsnd, (int, const void *, size_t, int))                                               \
    X(ssize_t, msgrcv, (int, void *, size_t, long, int))                                           \
    X(int, semop, (int, struct sembuf *, size_t))                                                  \
    X(int, semtimedop, (int, struct sembuf *, size_t, const struct timespec *))                    \
    X(void *, shmat, (int, const void *, int))                                                     \
    X(int, shmdt, (const void *))                                                                  \
    X(int, sem_wait, (sem_t *))                                                                    \
    X(int, sem_timedwait, (sem_t *, const struct timespec *))                                      \
    X(int, sem_clockwait, (sem_t *, clockid_t, const struct timespec *))                           \
    X(int, sem_post, (sem_t *))                                                                    \
    X(int, pthread_mutex_lock, (pthread_mutex_t *))                                                \
    X(int, pthread_mutex_unlock, (pthread_mutex_t *))                                              \
    X(int, sigaction, (int, const struct sigaction *, struct sigaction *))                         \
    X(__sighandler_t, signal, (int, __sighandler_t))                                               \
    X(int, pipe, (int *))                                                                          \
    X(int, pipe2, (int *, int))                                                                    \
    X(int, socketpair, (int, int, int, int *))                                                     \
    X(int, dup, (int))                                                                             \
    X(int, dup2, (int, int))                                                                       \
    X(int, dup3, (int, int, int))                                                                  \
    X(int, memfd_create, (const char *, unsigned))                                                 \
    X(int, epoll_create, (int))                                                                    \
    X(int, epoll_create1, (int))                                                                   \
    X(int, eventfd, (unsigned, int))

#define SHIM_X_PTR(ret, fn, params) static ret(*shim_real_##fn) params;
SHIM_REALS(SHIM_X_PTR)
#undef SHIM_X_PTR

struct shim_real {
    const char *name;
    void **ptr;
};

static const struct shim_real shim_reals[] = {
#define SHIM_X_ENTRY(ret, fn, params) {.name = #fn, .ptr = (void **)&shim_real_##fn},
    SHIM_REALS(SHIM_X_ENTRY)
#undef SHIM_X_ENTRY
};

/* Set while this thread is inside dlsym(): a call it makes then goes to the fallback. */
static SHIM_TLS int shim_resolving;

/*
 * Resolves every real function at once. Calls may arrive before our constructor (from other
 * libraries' constructors), so every wrapper checks its pointer and comes here when it is NULL.
 * dlsym may itself allocate or, in other libcs, read: such a nested call finds its pointer still
 * NULL with shim_resolving set and takes the wrapper's fallback.
 */
static void shim_resolve(void)
{
    if (shim_resolving)
        return;
    int saved = errno;
    shim_resolving = 1;
    for (size_t i = 0; i < sizeof shim_reals / sizeof shim_reals[0]; i++) {
        if (!__atomic_load_n(shim_reals[i].ptr, __ATOMIC_RELAXED))
            __atomic_store_n(shim_reals[i].ptr, dlsym(RTLD_NEXT, shim_reals[i].name),
                             __ATOMIC_RELAXED);
    }
    shim_resolving = 0;
    errno = saved;
}

/* ---- time ---------------------------------------------------------------------------------- */

static inline uint64_t shim_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An invariant TSC ticks at one rate in every P- and C-state (CPUID 0x80000007 EDX bit 8). */
static int shim_tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

/*
 * Fixes the TSC rate once 10 ms have passed since start-up: two clock reads 25 ns apart over
 * 10 ms give the rate to a few parts per million. Racing threads compute the same value.
 */
static void shim_calibrate(uint64_t now_ns)
{
    if (!shim_tsc_usable || now_ns - shim_cal_ns < 10000000u)
        return;
    uint64_t ticks = __rdtsc() - shim_cal_tsc;
    if (ticks == 0)
        return;
    uint64_t mult = (uint64_t)(((unsigned __int128)(now_ns - shim_cal_ns) << 32) / ticks);
    __atomic_store_n(&shim_tsc_mult, mult, __ATOMIC_RELAXED);
}

/* A start time: TSC ticks when calibrated (low bit clear), else ns (low bit set). */
static inline uint64_t shim_start(void)
{
    if (SHIM_LIKELY(__atomic_load_n(&shim_tsc_mult, __ATOMIC_RELAXED)))
        return __rdtsc() & ~1ull;
    return shim_mono_ns() | 1;
}

static inline uint64_t shim_elapsed_ns(uint64_t start)
{
    if (SHIM_LIKELY(!(start & 1))) {
        uint64_t t = __rdtsc() & ~1ull;
        /* A thread that migrated between two unsynchronised TSCs would see time run back. */
        uint64_t d = t > start ? t - start : 0;
        return (uint64_t)(((unsigned __int128)d * shim_tsc_mult) >> 32);
    }
    uint64_t now = shim_mono_ns();
    shim_calibrate(now);
    return now - (start & ~1ull);
}

/* ---- slots --------------------------------------------------------------------------------- */

/*
 * Adds without a lock but in one instruction: the slot has one writer thread, and a signal
 * handler of that thread runs between instructions, never inside one.
 */
/* The calls and the app figures of a slot are one run of 64-bit counters (shim_move). */
#define SHIM_SLOT_FIGURES                                                                          \
    ((offsetof(struct iolab_slot, sites) - offsetof(struct iolab_slot, calls)) / sizeof(uint64_t))
_Static_assert(offsetof(struct iolab_slot, fd) == offsetof(struct iolab_slot, calls) +
                                                      sizeof(struct iolab_call) * IOLAB_MAX_CALLS &&
                   offsetof(struct iolab_slot, app) ==
                       offsetof(struct iolab_slot, fd) + sizeof(struct iolab_fdsplit) &&
                   offsetof(struct iolab_slot, app) + sizeof(struct iolab_app) ==
                       offsetof(struct iolab_slot, sites),
               "calls, fd and app must be one run of counters up to the sites");

/* A caller that adds several fields reads the thread's `shared` once and calls shim_add_as
   (shim_int.h): the compiler cannot know that an add to the page leaves the TLS flag alone, and
   would load it again before every add. */
static inline void shim_add(uint64_t *field, uint64_t v)
{
    shim_add_as(shim_self.shared, field, v);
}

/*
 * Claiming a slot (the model is in iolab_counters.h): a thread owns a slot by holding its robust
 * mutex, so "owner dead" is the kernel's word, whatever way the thread ended and whatever PID
 * namespace it lived in. Scans peek at the mutex's futex word (glibc's public struct layout:
 * 0 unlocked, else the owner's tid, with FUTEX_OWNER_DIED once the kernel found the owner gone)
 * so as not to touch the lock of a live thread; the trylock that follows is what decides.
 */
#define SHIM_OWNER_DIED 0x40000000u

/* libc's mutex calls under their old names (the same code): for the slots' own mutexes, which
   must not meet the jitter_us fault of the program's pthread_mutex_unlock() (below), and for a
   program's lock taken while dlsym() runs. */
extern int shim_libc_mutex_lock(pthread_mutex_t *);
extern int shim_libc_mutex_unlock(pthread_mutex_t *);
__asm__(".symver shim_libc_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver shim_libc_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

/* Through the pointer dlsym() found where there is one: in a sanitized program the versioned
   name can bind to the sanitizer's interceptor of it, whose own pointer to libc is not set (a
   call to address 0 in the slot churn under ASan). The pointer is libc's function, not the
   shim's export, so the slots' mutexes still never meet the jitter fault. */
static void shim_owner_unlock(pthread_mutex_t *m)
{
    if (SHIM_UNLIKELY(!shim_real_pthread_mutex_unlock))
        shim_resolve();
    if (shim_real_pthread_mutex_unlock)
        shim_real_pthread_mutex_unlock(m);
    else
        shim_libc_mutex_unlock(m);
}

/* Where this process last found a slot: dead threads' slots tend to sit next to each other. */
static uint32_t shim_hint;

/* Whether s's mutex has been made (by its first claimer): no other slot's mutex is touched. */
static inline int shim_slot_made(const struct iolab_slot *s)
{
    return __atomic_load_n(&s->made, __ATOMIC_ACQUIRE) != 0;
}

static inline int shim_owner_alive(const struct iolab_slot *s)
{
    unsigned w = (unsigned)__atomic_load_n(&s->owner.__data.__lock, __ATOMIC_RELAXED);
    return w != 0 && !(w & SHIM_OWNER_DIED);
}

/* Takes s's mutex when it is unlocked or its owner died: 1 taken (s is then ours alone), 0 not. */
static int shim_own(struct iolab_slot *s)
{
    int r = pthread_mutex_trylock(&s->owner);
    if (r == EOWNERDEAD) {
        pthread_mutex_consistent(&s->owner);
        return 1;
    }
    return r == 0;
}

/* Makes an owned slot this thread's. Counts already in it (an inherited slot's) stay. */
static struct iolab_slot *shim_take(struct iolab_slot *s, uint32_t i)
{
    __atomic_store_n(&s->prog, shim_prog, __ATOMIC_RELAXED);
    __atomic_store_n(&s->run, shim_run, __ATOMIC_RELAXED);
    __atomic_store_n(&s->pid, getpid(), __ATOMIC_RELAXED);
    __atomic_store_n(&s->tid, gettid(), __ATOMIC_RELAXED);
    __atomic_store_n(&s->state, IOLAB_SLOT_OWNED, __ATOMIC_RELEASE);
    __atomic_store_n(&shim_hint, i, __ATOMIC_RELAXED);
    return s;
}

static inline int shim_mine(const struct iolab_slot *s)
{
    return s->prog == shim_prog && s->run == shim_run;
}

static uint32_t shim_used(const struct iolab_page *p)
{
    uint32_t used = __atomic_load_n(&p->next_slot, __ATOMIC_ACQUIRE);
    return used < shim_nslots - 1 ? used : shim_nslots - 1;
}

/* A slot that needs no move: one of this (prog, run) whose owner died, or one never used. */
static struct iolab_slot *shim_claim_reuse(struct iolab_page *p)
{
    uint32_t used = shim_used(p), hint = __atomic_load_n(&shim_hint, __ATOMIC_RELAXED);
    for (uint32_t k = 0, i = hint < used ? hint : 0; k < used; k++, i = i + 1 < used ? i + 1 : 0) {
        struct iolab_slot *s = &p->slots[i];
        uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        if (!shim_slot_made(s) || shim_owner_alive(s) ||
            (st != IOLAB_SLOT_FREE && !(st == IOLAB_SLOT_OWNED && shim_mine(s))))
            continue;
        if (!shim_own(s))
            continue;
        st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE); /* settled now that we hold it */
        if (st == IOLAB_SLOT_FREE || (st == IOLAB_SLOT_OWNED && shim_mine(s)))
            return shim_take(s, i);
        shim_owner_unlock(&s->owner);
    }
    return NULL;
}

/* A slot past the high-water mark, or NULL when every slot has been used once. */
static struct iolab_slot *shim_claim_fresh(struct iolab_page *p)
{
    uint32_t i = __atomic_load_n(&p->next_slot, __ATOMIC_RELAXED);
    for (;;) {
        while (i < shim_nslots - 1 &&
               !__atomic_compare_exchange_n(&p->next_slot, &i, i + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
            ;
        if (i >= shim_nslots - 1)
            return NULL;
        struct iolab_slot *s = &p->slots[i];
        if (!shim_slot_made(s)) {
            /* Ours alone until made is stored: no scanner touches a slot not made. */
            if (iolab_slot_make(s) == 0 && pthread_mutex_trylock(&s->owner) == 0) {
                __atomic_store_n(&s->made, 1u, __ATOMIC_RELEASE);
                return shim_take(s, i);
            }
        } else if (shim_own(s)) {
            if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == IOLAB_SLOT_FREE)
                return shim_take(s, i);
            shim_owner_unlock(&s->owner);
        }
        /* A scanner that saw the new high-water mark took it first: take the next one. */
        i = __atomic_load_n(&p->next_slot, __ATOMIC_RELAXED);
    }
}

/* The RETIRED slot of (prog, run) among the first `used`, or NULL. */
static struct iolab_slot *shim_retired_of(struct iolab_page *p, uint32_t used, uint32_t prog,
                                          uint32_t run)
{
    for (uint32_t i = 0; i < used; i++) {
        struct iolab_slot *r = &p->slots[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == IOLAB_SLOT_RETIRED && r->prog == prog &&
            r->run == run)
            return r;
    }
    return NULL;
}

/* The ready site of sites with this key among its first entries, or NULL. */
static struct iolab_site *shim_site_find(struct iolab_sites *sites, uint32_t object,
                                         uint64_t offset, uint32_t call1)
{
    uint32_t n = __atomic_load_n(&sites->n, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < IOLAB_SITES; i++) {
        struct iolab_site *e = &sites->site[i];
        if (__atomic_load_n(&e->call, __ATOMIC_ACQUIRE) == call1 && e->object == object &&
            e->offset == offset)
            return e;
    }
    return NULL;
}

/*
 * Moves a dead slot's sites into its pair's RETIRED slot (several movers may add there at once:
 * an entry is taken with an atomic add on n, so a key may appear twice, which readers merge).
 * The sites of `from` are cleared as they go, like its other counters.
 */
static void shim_sites_move(struct iolab_sites *from, struct iolab_sites *to)
{
    uint32_t n = __atomic_load_n(&from->n, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < IOLAB_SITES; i++) {
        struct iolab_site *e = &from->site[i];
        uint32_t call1 = __atomic_load_n(&e->call, __ATOMIC_ACQUIRE);
        uint64_t v = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
        if (call1 && call1 <= IOLAB_MAX_CALLS && v) {
            struct iolab_site *t = shim_site_find(to, e->object, e->offset, call1);
            uint32_t k = t ? 0 : __atomic_fetch_add(&to->n, 1, __ATOMIC_RELAXED);
            if (t) {
                __atomic_fetch_add(&t->count, v, __ATOMIC_RELAXED);
            } else if (k < IOLAB_SITES) {
                t = &to->site[k];
                t->object = e->object;
                t->offset = e->offset;
                __atomic_store_n(&t->count, v, __ATOMIC_RELAXED);
                __atomic_store_n(&t->call, call1, __ATOMIC_RELEASE);
            } else {
                __atomic_fetch_add(&to->other[call1 - 1], v, __ATOMIC_RELAXED);
            }
        }
        __atomic_store_n(&e->call, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&e->count, 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&from->n, 0, __ATOMIC_RELEASE);
    for (size_t k = 0; k < IOLAB_MAX_CALLS; k++) {
        uint64_t v = __atomic_load_n(&from->other[k], __ATOMIC_RELAXED);
        if (v) {
            __atomic_fetch_add(&to->other[k], v, __ATOMIC_RELAXED);
            __atomic_store_n(&from->other[k], 0, __ATOMIC_RELAXED);
        }
    }
}

/*
 * Moves the counts of s (ours, its owner dead) into r, the RETIRED slot of s's (prog, run), inside
 * the page's seqlock. Field by field, added to r and then cleared in s, so that a mover killed
 * half-way leaves at most one field counted twice; the next claimer of s finds it MOVING and
 * finishes the move (balancing the seqlock for it) rather than starting another.
 */
static void shim_move(struct iolab_page *p, struct iolab_slot *s, struct iolab_slot *r)
{
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == IOLAB_SLOT_MOVING) {
        __atomic_fetch_add(&p->moves_broken, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&p->moves_begun, 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE); /* pairs with iolab_page_read_end() */
        __atomic_store_n(&s->state, IOLAB_SLOT_MOVING, __ATOMIC_RELAXED);
    }
    uint64_t *from = (uint64_t *)s->calls, *to = (uint64_t *)r->calls;
    for (size_t k = 0; k < SHIM_SLOT_FIGURES; k++) {
        uint64_t v = __atomic_load_n(&from[k], __ATOMIC_RELAXED);
        if (v) {
            __atomic_fetch_add(&to[k], v, __ATOMIC_RELAXED);
            __atomic_store_n(&from[k], 0, __ATOMIC_RELAXED);
        }
    }
    shim_sites_move(&s->sites, &r->sites);
}

/*
 * The last resort before the overflow slot: a dead thread's slot of another (prog, run). The first
 * such slot of a pair becomes that pair's RETIRED slot as it is (nothing moves); the others have
 * their counts moved there and are then ours.
 */
static struct iolab_slot *shim_claim_move(struct iolab_page *p)
{
    struct iolab_slot *got = NULL;
    uint32_t used = shim_used(p);
    for (uint32_t i = 0; i < used && !got; i++) {
        struct iolab_slot *s = &p->slots[i];
        uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        if (!shim_slot_made(s) || shim_owner_alive(s) || st == IOLAB_SLOT_RETIRED || !shim_own(s))
            continue;
        st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        if (st == IOLAB_SLOT_FREE || (st == IOLAB_SLOT_OWNED && shim_mine(s))) {
            got = shim_take(s, i); /* became reusable since the first pass */
            continue;
        }
        struct iolab_slot *r =
            st == IOLAB_SLOT_RETIRED ? NULL : shim_retired_of(p, used, s->prog, s->run);
        if (!r) {
            /* The first dead slot of its pair becomes the pair's RETIRED slot, counts in place.
               (A MOVING slot always has one, unless the page was scribbled on: balance its
               seqlock and keep its counts where they are.) */
            if (st == IOLAB_SLOT_MOVING) {
                __atomic_fetch_add(&p->moves_broken, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&p->moves_done, 1, __ATOMIC_RELEASE);
            }
            if (st != IOLAB_SLOT_RETIRED)
                __atomic_store_n(&s->state, IOLAB_SLOT_RETIRED, __ATOMIC_RELEASE);
            shim_owner_unlock(&s->owner);
            continue;
        }
        shim_move(p, s, r);
        got = shim_take(s, i);
        /* Last: a reader that sees moves_done sees the whole move (release). A broken move's
           moves_begun was counted by the mover that died. */
        __atomic_fetch_add(&p->moves_done, 1, __ATOMIC_RELEASE);
    }
    return got;
}

/*
 * Once per thread (and again after fork). Signals are blocked throughout: a handler that made
 * the thread's first counted call in the middle would start a second claim inside glibc's
 * robust-list bookkeeping, and only SIGKILL can then cut a move short.
 */
static SHIM_COLD struct iolab_slot *shim_claim(void)
{
    struct iolab_page *p = shim_page;
    int saved = errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    struct iolab_slot *s = shim_self.slot; /* a handler may have claimed before the block */
    if (!s) {
        s = shim_claim_reuse(p);
        if (!s)
            s = shim_claim_fresh(p);
        if (!s)
            s = shim_claim_move(p);
        shim_self.shared = !s;
        if (!s) {
            __atomic_fetch_add(&p->overflow_claims, 1, __ATOMIC_RELAXED);
            s = &p->slots[shim_nslots - 1];
        }
        shim_self.faults = shim_faults_on;
        shim_self.direct_ok = shim_direct_ok;
        memset(shim_self.seen, 0, sizeof shim_self.seen); /* pointers into an earlier slot */
        shim_self.slot = s;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return s;
}

/* This thread's slot, or NULL when not counting; *shared: whether the slot is the shared
   overflow slot (its adds are locked). */
static inline struct iolab_slot *shim_slot_as(int *shared)
{
    struct iolab_slot *s = shim_self.slot;
    if (SHIM_UNLIKELY(!s)) {
        if (!shim_page)
            return NULL;
        s = shim_claim();
    }
    *shared = shim_self.shared;
    return s;
}

/*
 * Call sites (iolab_counters.h). The hot path is one hash of the return address, one TLS load
 * and compare, and one add through the cached pointer; everything else (which object the address
 * lies in, its name in the page, a new entry in the slot) happens once per site and thread in
 * shim_site_miss(), where a signal handler's call (in_site) is counted without its site so that
 * it cannot take the entry being made.
 */

/* The objects of this process, as dl_iterate_phdr found them: executable segments only. */
#define SHIM_OBJ_RANGES 64
struct shim_obj_range {
    uintptr_t start, end; /* [start, end) of one executable PT_LOAD segment */
    uintptr_t bias;       /* the object's load bias: offset = address - bias */
    uint32_t object;      /* its index in the page's objects[], UINT32_MAX: no room */
};
static struct shim_obj_range shim_ranges[SHIM_OBJ_RANGES];
static uint32_t shim_nranges;
static int shim_ranges_lock; /* a spin lock: cold path only, reset in a fork's child */

/* The page's index of the object named `name`, naming it first when it is new. */
static uint32_t shim_object_index(const char *name, int exe)
{
    struct iolab_object *o = shim_page->objects;
    for (uint32_t i = 0; i < IOLAB_OBJECTS; i++) {
        uint32_t st = __atomic_load_n(&o[i].state, __ATOMIC_ACQUIRE);
        if (st == IOLAB_OBJECT_FREE) {
            uint32_t want = IOLAB_OBJECT_FREE;
            if (__atomic_compare_exchange_n(&o[i].state, &want, IOLAB_OBJECT_WRITING, 0,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                size_t len = strnlen(name, IOLAB_OBJECT_NAME - 1);
                memcpy(o[i].name, name, len);
                o[i].name[len] = 0;
                o[i].exe = (uint32_t)exe;
                __atomic_store_n(&o[i].state, IOLAB_OBJECT_READY, __ATOMIC_RELEASE);
                return i;
            }
            st = want;
        }
        while (st == IOLAB_OBJECT_WRITING) /* another process is writing it: a few stores */
            st = __atomic_load_n(&o[i].state, __ATOMIC_ACQUIRE);
        if (st == IOLAB_OBJECT_READY && o[i].exe == (uint32_t)exe &&
            !strncmp(o[i].name, name, IOLAB_OBJECT_NAME - 1))
            return i;
    }
    return UINT32_MAX;
}

static int shim_ranges_add(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    char exe[IOLAB_OBJECT_NAME];
    const char *name = info->dlpi_name;
    int is_exe = !name || !name[0];
    if (is_exe) {
        /* The raw call: the shim is built without _FORTIFY_SOURCE (it defines read() and its
           kin), and libc's readlink() is one a fortified build would check (lintian's
           hardening-no-fortify-functions); the size here is the buffer's, known. */
        long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        name = exe;
    }
    uint32_t index = UINT32_MAX + 0u;
    int named = 0;
    for (int i = 0; i < info->dlpi_phnum && shim_nranges < SHIM_OBJ_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (!named) {
            index = shim_object_index(name, is_exe);
            named = 1;
        }
        struct shim_obj_range *r = &shim_ranges[shim_nranges++];
        r->start = info->dlpi_addr + ph->p_vaddr;
        r->end = r->start + ph->p_memsz;
        r->bias = info->dlpi_addr;
        r->object = index;
    }
    return 0;
}

static const struct shim_obj_range *shim_range_of(uintptr_t ra)
{
    for (uint32_t i = 0; i < shim_nranges; i++)
        if (ra >= shim_ranges[i].start && ra < shim_ranges[i].end)
            return &shim_ranges[i];
    return NULL;
}

/* The slot's counter of the site (ra, call), taking an entry for it when it is new; NULL: the
   site goes to other[] (no room, or an address in no object). */
static uint64_t *shim_site_counter(struct iolab_slot *s, uintptr_t ra, unsigned call)
{
    while (__atomic_exchange_n(&shim_ranges_lock, 1, __ATOMIC_ACQUIRE))
        ;
    const struct shim_obj_range *r = shim_range_of(ra);
    if (!r) { /* a library loaded since: look again */
        shim_nranges = 0;
        dl_iterate_phdr(shim_ranges_add, NULL);
        r = shim_range_of(ra);
    }
    uint32_t object = r ? r->object : UINT32_MAX;
    uint64_t offset = r ? ra - r->bias : 0;
    __atomic_store_n(&shim_ranges_lock, 0, __ATOMIC_RELEASE);
    if (object == UINT32_MAX)
        return NULL;
    struct iolab_sites *sites = &s->sites;
    struct iolab_site *e = shim_site_find(sites, object, offset, call + 1);
    if (e)
        return &e->count;
    uint32_t n = sites->n; /* the owner is the only writer of its slot's n */
    if (n >= IOLAB_SITES)
        return NULL;
    e = &sites->site[n];
    e->object = object;
    e->offset = offset;
    __atomic_store_n(&e->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->call, call + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&sites->n, n + 1, __ATOMIC_RELEASE);
    return &e->count;
}

static inline uint32_t shim_seen_index(uintptr_t ra)
{
    return (uint32_t)(((uint64_t)ra * 0x9e3779b97f4a7c15ull) >> 58) & (SHIM_SEEN - 1);
}

/* A site this thread has not seen (or whose cache entry another site took): counts the call. */
static SHIM_COLD void shim_site_miss(struct iolab_slot *s, uintptr_t ra, unsigned call)
{
    uint64_t key = (uint64_t)ra << 6 | call;
    uint32_t h = shim_seen_index(ra);
    /* Two sites whose addresses share an entry: the second lives in the next entry, found here
       without any system call, so that two hot lines never make every call a slow one. */
    struct shim_site_seen *two = &shim_self.seen[(h + 1) & (SHIM_SEEN - 1)];
    if (two->key == key) {
        shim_add_as(0, two->count, 1);
        return;
    }
    /* A signal handler's counted call made while this thread is in here is counted without its
       site (other[]), so that it never takes the entry being made: cheaper than blocking
       signals for every new site. */
    if (shim_self.in_site) {
        shim_add_as(0, &s->sites.other[call], 1);
        return;
    }
    shim_self.in_site = 1;
    __asm__ volatile("" ::: "memory");
    int saved = errno;
    uint64_t *c = shim_site_counter(s, ra, call);
    if (c) {
        /* Emptied first: a handler that reads the entry in between sees no entry, never a key
           with another site's counter. */
        struct shim_site_seen *e = &shim_self.seen[h];
        if (e->key)
            e = two;
        e->key = 0;
        __asm__ volatile("" ::: "memory");
        e->count = c;
        __asm__ volatile("" ::: "memory");
        e->key = key;
    } else {
        c = &s->sites.other[call];
    }
    shim_add_as(0, c, 1);
    errno = saved;
    __asm__ volatile("" ::: "memory");
    shim_self.in_site = 0;
}

/* Counts one call `call` made from return address ra at its site (not in the shared overflow
   slot: its sites would have several writers). */
static inline __attribute__((always_inline)) void shim_site(struct iolab_slot *s, int shared,
                                                            unsigned call, uintptr_t ra)
{
#ifdef SHIM_NO_SITES /* the benchmark's build without sites (README.md, "The counting path") */
    return;
#endif
    if (SHIM_UNLIKELY(shared))
        return;
    struct shim_site_seen *e = &shim_self.seen[shim_seen_index(ra)];
    if (SHIM_LIKELY(e->key == ((uint64_t)ra << 6 | call)))
        shim_add_as(0, e->count, 1);
    else
        shim_site_miss(s, ra, call);
}

/* The return address of the wrapper a counting helper is inlined into: always_inline, so that
   __builtin_return_address(0) is the program's call site, not the helper's. */
#define SHIM_RA() ((uintptr_t)__builtin_return_address(0))

/* This thread's slot after counting one call `id`, or NULL when not counting. (A call split by
   kind of descriptor is counted by its kind alone: SHIM_CALL_ONE, iolab_fdsplit_total.) */
static inline __attribute__((always_inline)) struct iolab_slot *shim_count(enum iolab_call_id id)
{
    int shared;
    struct iolab_slot *s = shim_slot_as(&shared);
    if (s) {
        shim_add_as(shared, &s->calls[id].count, 1);
        shim_site(s, shared, id, SHIM_RA());
    }
    return s;
}

/* The counter of call `id` of this thread after counting one call, or NULL when not counting. */
static inline __attribute__((always_inline)) struct iolab_call *shim_begin(enum iolab_call_id id)
{
    struct iolab_slot *s = shim_count(id);
    return s ? &s->calls[id] : NULL;
}

static inline void shim_end(struct iolab_call *c, uint64_t start, uint64_t bytes)
{
    uint64_t ns = shim_elapsed_ns(start);
    if (bytes)
        shim_add(&c->bytes, bytes);
    shim_add(&c->ns, ns);
}

/* iolab_call_time_exact() as a table indexed by a constant in each wrapper: folds away. */
static const unsigned char shim_time_exact[IOLAB_MAX_CALLS] = {
#define SHIM_X_EXACT(id) [IOLAB_CALL_##id] = 1,
    IOLAB_TIME_EXACT(SHIM_X_EXACT)
#undef SHIM_X_EXACT
};

/*
 * Sampled timing (iolab_counters.h says which calls and why): per thread, the calls left before
 * the next timed one, the calls the next timed one will stand for, and the generator of the
 * gaps (xorshift32, seeded from the thread's own TLS address: distinct per thread, no clock).
 */

#define SHIM_GAP_SPAN 31 /* gaps of 1 to 31 calls: one call in 16 timed on average */

/* The timed call's weight, and the next gap drawn. */
static uint32_t shim_next_gap(void)
{
    uint32_t w = shim_self.gap ? shim_self.gap : 1;
    if (shim_self.forced) { /* after a wait: each call timed, standing for itself */
        shim_self.forced--;
        shim_self.left = 0;
        shim_self.gap = 1;
        return w;
    }
    uint32_t x =
        shim_self.gap_rng ? shim_self.gap_rng : ((uint32_t)(uintptr_t)&shim_self.gap_rng | 1u);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    shim_self.gap_rng = x;
    shim_self.gap = 1 + x % SHIM_GAP_SPAN;
    shim_self.left = shim_self.gap - 1;
    return w;
}

/* Whether to time this call: 0 not, else how many calls its time stands for. `exact` is a
   constant in every wrapper (shim_time_exact[] of its label), so the test folds away. */
static inline uint32_t shim_timed(int exact)
{
    if (exact)
        return 1;
    if (SHIM_LIKELY(shim_self.left)) {
        shim_self.left--;
        return 0;
    }
    return shim_next_gap();
}

/*
 * A timed call that took this long waited (for a peer, a client, the disk): the thread's next
 * SHIM_FORCED calls are timed too (each standing for itself), and so on while its calls wait
 * (the writes between the reads included), so that a
 * thread blocked in read() call after call (a thread per connection) is timed exactly. The
 * sampled call itself keeps its weight: it stands for the calls of its gap, which were not
 * timed, and that keeps the estimate unbiased. A rare long wait among short calls is caught
 * one time in 16 and then counted for 16: right on average, rough over a second or two.
 */
#define SHIM_LONG_NS 20000u
#define SHIM_FORCED  8u /* calls timed one by one after a wait (a read, then its write, ...) */

/* shim_end for a call timed (weight w >= 1) or not (w 0: no clock read at all); exact: the
   call's label is always timed (a constant in each wrapper). */
static inline void shim_end_w_as(int shared, struct iolab_call *c, uint64_t start, uint64_t bytes,
                                 uint32_t w, int exact)
{
    if (bytes)
        shim_add_as(shared, &c->bytes, bytes);
    if (!w)
        return;
    uint64_t ns = shim_elapsed_ns(start);
    if (!exact && ns >= SHIM_LONG_NS) {
        shim_self.forced = SHIM_FORCED; /* time the next calls, each standing for itself */
        shim_self.left = 0;
        shim_self.gap = 1;
    }
    shim_add_as(shared, &c->ns, ns * w);
}

static inline void shim_end_w(struct iolab_call *c, uint64_t start, uint64_t bytes, uint32_t w,
                              int exact)
{
    shim_end_w_as(shim_self.shared, c, start, bytes, w, exact);
}

/* ---- kinds of descriptor -------------------------------------------------------------------- */

/*
 * One byte per descriptor number: 0 not known, else enum iolab_fd_kind + 1. The calls that make
 * a descriptor set it (socket, accept: socket; pipe: pipe; dup: the original's), close clears
 * it, and a descriptor not known yet (opened by open(), which may name a FIFO or a device;
 * inherited; made inside libc; received over a Unix socket) is classified by one fstat() on
 * first sight and remembered. Process-wide (threads share descriptors), inherited by fork with
 * the descriptors, empty again after exec. Numbers past the table are classified every time.
 * A descriptor closed inside libc (fclose) and reused by a call the shim does not wrap keeps
 * the old kind: a known limit, listed in README.md.
 */
static uint8_t shim_fdk[SHIM_FD_TABLE]; /* 1 MiB of bss; only the pages in use are touched */

static SHIM_COLD int shim_fd_classify(int fd)
{
    int saved = errno;
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) < 0) {
        errno = saved;
        return IOLAB_FD_OTHER; /* not open: nothing to remember */
    }
    errno = saved;
    int k = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ? IOLAB_FD_FILE
            : S_ISSOCK(st.st_mode)                     ? IOLAB_FD_SOCKET
            : S_ISFIFO(st.st_mode)                     ? IOLAB_FD_PIPE
                                                       : IOLAB_FD_OTHER;
    if ((unsigned)fd < SHIM_FD_TABLE)
        __atomic_store_n(&shim_fdk[fd], (uint8_t)(k + 1), __ATOMIC_RELAXED);
    return k;
}

static inline int shim_fd_kind(int fd)
{
    if (SHIM_LIKELY((unsigned)fd < SHIM_FD_TABLE)) {
        unsigned k = __atomic_load_n(&shim_fdk[fd], __ATOMIC_RELAXED);
        if (SHIM_LIKELY(k))
            return (int)k - 1;
    }
    return shim_fd_classify(fd);
}

/* Records what a descriptor is (kind -1: not known, classify on first sight). */
static inline void shim_fd_set(int fd, int kind)
{
    if ((unsigned)fd < SHIM_FD_TABLE)
        __atomic_store_n(&shim_fdk[fd], (uint8_t)(kind + 1), __ATOMIC_RELAXED);
}

/* A wrapper's "bytes" expression that records the kind of a descriptor a call made (or, kind
   -1, forgets what was known of the number); the call moved no bytes. */
static inline uint64_t shim_made(int fd, int kind)
{
    shim_fd_set(fd, kind);
    return 0;
}

/* ---- fault injection's entry points (the injector itself is shim_faults.c) ---------------- */

/*
 * The condition-variable waits, defined here for spurious=P only: without it (or without the
 * page) they go straight to libc's. libc's current versions are asked for by name, since
 * dlsym() may find the old ABI's pthread_cond_wait@GLIBC_2.2.5, which takes another layout.
 */
typedef int (*shim_cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*shim_cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static void *shim_cond_wait_next, *shim_cond_timedwait_next;

static SHIM_COLD void *shim_cond_next(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (SHIM_UNLIKELY(!p)) {
        p = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2"); /* x86-64's current version */
        if (!p)
            p = dlsym(RTLD_NEXT, name); /* the only one elsewhere */
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}

/* Whether this wait wakes up spuriously: if so, the mutex was released and is held again. */
static SHIM_COLD bool shim_spurious(pthread_mutex_t *m)
{
    if (shim_rand() >= shim_faults.spurious_p)
        return false;
    if (pthread_mutex_unlock(m) != 0)
        return false; /* not the caller's to release: let libc's wait say so */
    sched_yield();    /* another thread may take the mutex and change the state meanwhile */
    pthread_mutex_lock(m);
    return true;
}

SHIM_EXPORT SHIM_COLD int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (SHIM_UNLIKELY(shim_faults.spurious_p) && shim_spurious(m))
        return 0;
    shim_cond_wait_fn next =
        (shim_cond_wait_fn)shim_cond_next(&shim_cond_wait_next, "pthread_cond_wait");
    return next ? next(c, m) : ENOSYS;
}

SHIM_EXPORT SHIM_COLD int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                 const struct timespec *at)
{
    if (SHIM_UNLIKELY(shim_faults.spurious_p) && shim_spurious(m))
        return 0;
    shim_cond_timedwait_fn next =
        (shim_cond_timedwait_fn)shim_cond_next(&shim_cond_timedwait_next, "pthread_cond_timedwait");
    return next ? next(c, m, at) : ENOSYS;
}

/* The real sigaction() and signal(), also while dlsym() runs (the entry points libc's own
   names stand for). */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);
extern __sighandler_t bsd_signal(int, __sighandler_t);

static int shim_sigaction_next(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (SHIM_UNLIKELY(!shim_real_sigaction))
        shim_resolve();
    return shim_real_sigaction ? shim_real_sigaction(sig, act, old) : __sigaction(sig, act, old);
}

SHIM_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (SHIM_UNLIKELY(shim_faults.coalesce_chld) && sig == SIGCHLD)
        return shim_chld_sigaction(act, old, shim_sigaction_next);
    return shim_sigaction_next(sig, act, old);
}

/* signal() is BSD's in glibc: the handler stays, SA_RESTART, the signal blocked inside it. */
SHIM_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
    if (SHIM_UNLIKELY(shim_faults.coalesce_chld) && sig == SIGCHLD) {
        struct sigaction a = {.sa_handler = h, .sa_flags = SA_RESTART}, old;
        sigemptyset(&a.sa_mask);
        sigaddset(&a.sa_mask, sig);
        return shim_chld_sigaction(&a, &old, shim_sigaction_next) < 0 ? SIG_ERR : old.sa_handler;
    }
    if (SHIM_UNLIKELY(!shim_real_signal))
        shim_resolve();
    return shim_real_signal ? shim_real_signal(sig, h) : bsd_signal(sig, h);
}

/* Set by the atfork child handler: the child forgot its parent's slot already. The fork wrapper
   then must not forget again, because another atfork handler (a program's own, which runs after
   ours) may have made a counted call and claimed the child's slot meanwhile: forgetting that one
   would leave it held by a live thread for good, and a child that claims twice fills the page
   twice as fast (a thousand forked servers overflowed it). */
static int shim_child_forgot;

static void shim_after_fork_child(void)
{
    shim_child_forgot = 1;
    shim_faults_fork_child();
    shim_ranges_lock = 0; /* a thread of the parent may have held it: only the forker lives on */
    shim_self.slot = NULL;
    shim_self.shared = 0;
}

SHIM_EXPORT struct iolab_app *iolab_app_self(void)
{
    if (!shim_page)
        return NULL;
    struct iolab_slot *s = shim_self.slot ? shim_self.slot : shim_claim();
    return shim_self.shared ? NULL : &s->app;
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* Parses a non-negative decimal; -1 when absent or malformed. */
static long shim_env_num(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < 0 || n > INT32_MAX)
        return -1;
    return n;
}

/*
 * Whether the wrappers may make their calls themselves ("Direct calls", below). A direct call
 * skips whatever sits between the shim and libc: AddressSanitizer's interceptors (which check
 * that read() has room for what it asks, and which a learner's sanitized program runs under
 * the shim with), or another preloaded library's wrappers. So the direct calls are made only
 * when, for every entry point that makes one, the next definition after the shim is libc's
 * own; otherwise every call goes to the next definition, as before.
 */
static const char *const shim_direct_names[] = {
    "read",     "write",   "readv",      "writev",   "pread64",  "pread",
    "pwrite64", "pwrite",  "sendto",     "send",     "recvfrom", "recv",
    "sendmsg",  "recvmsg", "sendfile64", "sendfile", "splice",   "copy_file_range"};

static int shim_direct_check(void)
{
    for (size_t i = 0; i < sizeof shim_direct_names / sizeof shim_direct_names[0]; i++) {
        void *next = dlsym(RTLD_NEXT, shim_direct_names[i]);
        Dl_info in;
        if (!next)
            continue; /* libc lacks it: a direct call is all there is */
        if (!dladdr(next, &in) || !in.dli_fname)
            return 0;
        const char *base = strrchr(in.dli_fname, '/');
        if (strncmp(base ? base + 1 : in.dli_fname, "libc.so", 7) != 0)
            return 0; /* a sanitizer's interceptor, or another library's wrapper */
    }
    return 1;
}

/*
 * Maps the page named by IOLAB_COUNTERS_FD. Any problem leaves the shim transparent and
 * silent: a program must behave and print exactly as it does without iolab. The page is
 * mapped with a raw system call, so our own mmap wrapper never counts it (strace sees it as
 * a call made inside libc's syscall(), like the rest of start-up).
 */
__attribute__((constructor)) static void shim_init(void)
{
    int saved = errno;
    shim_resolve();
    shim_ipc_init();
    long fd = shim_env_num(IOLAB_ENV_FD);
    struct stat st;
    if (fd < 0 || fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < sizeof(struct iolab_page))
        goto out;
    void *map = (void *)syscall(SYS_mmap, NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
                                MAP_SHARED, (int)fd, 0);
    if (map == MAP_FAILED)
        goto out;
    struct iolab_page *p = map;
    if (iolab_page_check(p, (uint64_t)st.st_size) < 0) {
        syscall(SYS_munmap, map, (size_t)st.st_size);
        goto out;
    }
    long prog = shim_env_num(IOLAB_ENV_PROG), run = shim_env_num(IOLAB_ENV_RUN);
    shim_prog = prog < 0 ? UINT32_MAX : (uint32_t)prog;
    shim_run = run < 0 ? 0 : (uint32_t)run;
    shim_nslots = p->nslots;
    shim_tsc_usable = shim_tsc_invariant();
    shim_cal_ns = shim_mono_ns();
    shim_cal_tsc = __rdtsc();
    pthread_atfork(NULL, NULL, shim_after_fork_child);
    shim_faults_init();
    shim_direct_ok = shim_direct_check();
    __atomic_store_n(&shim_page, p, __ATOMIC_RELEASE);
out:
    errno = saved;
}

/* ---- the wrappers -------------------------------------------------------------------------- */

/* Makes sure the real function is known (calls may arrive before our constructor): returns
   `fallback` from the wrapper when it cannot be found (yet). A direct call needs it only when
   not counting. */
#define SHIM_NEED_REAL(real, fallback)                                                             \
    do {                                                                                           \
        if (SHIM_UNLIKELY(!shim_real_##real)) {                                                    \
            shim_resolve();                                                                        \
            if (!shim_real_##real)                                                                 \
                return fallback;                                                                   \
        }                                                                                          \
    } while (0)

/*
 * SHIM_CALL(id, real, args, fallback, bytes): count call `id`, call shim_real_<real> with args,
 * add `bytes` (an expression over `r_`, the result) and the time, return r. `fallback` is what a
 * call made while dlsym is running (or for a symbol libc lacks) does instead.
 */
#define SHIM_CALL(id, type, real, args, fallback, bytes)                                           \
    do {                                                                                           \
        SHIM_NEED_REAL(real, fallback);                                                            \
        struct iolab_call *c_ = shim_begin(IOLAB_CALL_##id);                                       \
        if (!c_)                                                                                   \
            return shim_real_##real args;                                                          \
        uint32_t w_ = shim_timed(shim_time_exact[IOLAB_CALL_##id]);                                \
        uint64_t t_ = w_ ? shim_start() : 0;                                                       \
        type r_ = shim_real_##real args;                                                           \
        shim_end_w(c_, t_, (uint64_t)(bytes), w_, shim_time_exact[IOLAB_CALL_##id]);               \
        return r_;                                                                                 \
    } while (0)

/* Bytes moved by a transfer call: its result when positive. */
#define SHIM_XFER(v) ((v) > 0 ? (v) : 0)

/* What a call that cannot reach libc returns: a failure the program already handles. */
static long shim_nosys(void)
{
    errno = ENOSYS;
    return -1;
}

#define SHIM_SYS(...) syscall(__VA_ARGS__)

/*
 * Direct calls. Every stack frame between a system call and the program costs about 8 ns on
 * the way back on these machines (the return after the kernel is mispredicted; README.md has
 * the measurement), and a wrapper that calls libc's read() is one frame more than the program
 * alone. So the hot calls of the read, write, send and receive family are made here with the
 * syscall instruction, doing what libc's own wrappers do around it (glibc 2.34 and later):
 * nothing while the process has one thread, and once it has more (__libc_single_threaded,
 * which never turns back) the same cancellation point libc makes, by the public API: the
 * thread's cancel type is asynchronous while it is in the call, so that a thread blocked in it
 * is cancelled by pthread_cancel() at once, and restored after.
 * SHIM_DIRECTn(nr, args...): the call's number and arguments; SHIM_NO_DIRECT: always libc (the
 * _chk variants, which check their buffer first, and the rare vector calls with offsets).
 */
#define SHIM_DIRECT3(nr, a, b, c)    (nr, (long)(a), (long)(b), (long)(c), 0L, 0L, 0L)
#define SHIM_DIRECT4(nr, a, b, c, d) (nr, (long)(a), (long)(b), (long)(c), (long)(d), 0L, 0L)
#define SHIM_DIRECT6(nr, a, b, c, d, e, f)                                                         \
    (nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define SHIM_NO_DIRECT          (-1L, 0L, 0L, 0L, 0L, 0L, 0L)
#define SHIM_DIRECT_NR(nr, ...) (nr)
#define SHIM_DIRECT_ARGS(...)   (__VA_ARGS__)

static inline long shim_direct(long nr, long a, long b, long c, long d, long e, long f)
{
    int threads = !__libc_single_threaded, type = PTHREAD_CANCEL_DEFERRED;
    if (SHIM_UNLIKELY(threads)) /* acts on a cancellation already pending, as libc does */
        pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    if (SHIM_UNLIKELY(threads) && type != PTHREAD_CANCEL_ASYNCHRONOUS)
        pthread_setcanceltype(type, &type);
    if (SHIM_UNLIKELY((unsigned long)r > -4096ul)) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

/* The real call of a wrapper: direct (see above) when it has a direct form and may (or when
   there is no next definition to call), else the next definition's (libc's, or a sanitizer's
   in front of it). */
#define SHIM_MAKE(type, real, args, direct)                                                        \
    (SHIM_DIRECT_NR direct >= 0 && (SHIM_LIKELY(shim_self.direct_ok) || !shim_real_##real)         \
         ? (type)shim_direct SHIM_DIRECT_ARGS direct                                               \
         : shim_real_##real args)

/* Brings the line of call `id`'s bytes and time into the cache before the call: a line first
   touched after the kernel's work costs more than one touched before it (the copy loop of
   bench_counting is 0.4% faster with it, now that nothing else of that line is written before
   the call). */
#define SHIM_PREFETCH_CALL(s, id) __builtin_prefetch(&(s)->calls[IOLAB_CALL_##id], 1)

/* The start of SHIM_CALL_ONE and SHIM_CALL_TWO: this thread's slot s_ (sh_: the slot is
   shared), or, not counting, returns the real call's result. These calls are counted by kind
   of descriptor alone, one add per call (iolab_fdsplit_total). */
#define SHIM_COUNT_OR_PASS(real, args, direct, fallback)                                           \
    if (SHIM_DIRECT_NR direct < 0)                                                                 \
        SHIM_NEED_REAL(real, fallback);                                                            \
    int sh_ = 0;                                                                                   \
    struct iolab_slot *s_ = shim_slot_as(&sh_);                                                    \
    if (!s_) {                                                                                     \
        SHIM_NEED_REAL(real, fallback);                                                            \
        return shim_real_##real args;                                                              \
    }

/*
 * SHIM_CALL_ONE: SHIM_CALL for a call of the read or write family, also counted by the kind of
 * its descriptor `fd`, and open to fault injection: `len` is the length parameter (a size_t
 * lvalue the args use) the injector may cut, as fault `cut`; `flags` are send/recv flags (0 for
 * other calls); `recut` runs when the length was cut (the iovec calls shorten their vector).
 */
#define SHIM_CALL_ONE(id, type, real, args, direct, fallback, bytes, fd, len, cut, flags, recut)   \
    do {                                                                                           \
        SHIM_COUNT_OR_PASS(real, args, direct, fallback);                                          \
        int k_ = shim_fd_kind(fd);                                                                 \
        shim_add_as(sh_, &s_->fd.one[IOLAB_ONE_##id][k_], 1);                                      \
        shim_site(s_, sh_, IOLAB_CALL_##id, SHIM_RA());                                            \
        if (SHIM_UNLIKELY(shim_self.faults)) {                                                     \
            size_t l0_ = (len);                                                                    \
            int e_ = shim_fault(s_, sh_, k_, fd, flags, &(len), cut, 0);                           \
            if (e_) {                                                                              \
                errno = e_;                                                                        \
                return (type)-1;                                                                   \
            }                                                                                      \
            if ((len) != l0_)                                                                      \
                recut;                                                                             \
        }                                                                                          \
        SHIM_PREFETCH_CALL(s_, id);                                                                \
        uint32_t w_ = shim_timed(shim_time_exact[IOLAB_CALL_##id]);                                \
        uint64_t t_ = w_ ? shim_start() : 0;                                                       \
        type r_ = SHIM_MAKE(type, real, args, direct);                                             \
        shim_end_w_as(sh_, &s_->calls[IOLAB_CALL_##id], t_, (uint64_t)(bytes), w_,                 \
                      shim_time_exact[IOLAB_CALL_##id]);                                           \
        return r_;                                                                                 \
    } while (0)

/* SHIM_CALL_ONE for a call moving data from descriptor `in` to `out`: counted by the pair of
   kinds; the injector judges the destination and cuts `len` as a short write. */
#define SHIM_CALL_TWO(id, type, real, args, direct, fallback, bytes, in, out, len)                 \
    do {                                                                                           \
        SHIM_COUNT_OR_PASS(real, args, direct, fallback);                                          \
        int ko_ = shim_fd_kind(out);                                                               \
        shim_add_as(sh_, &s_->fd.two[IOLAB_TWO_##id][shim_fd_kind(in)][ko_], 1);                   \
        shim_site(s_, sh_, IOLAB_CALL_##id, SHIM_RA());                                            \
        if (SHIM_UNLIKELY(shim_self.faults)) {                                                     \
            int e_ = shim_fault(s_, sh_, ko_, out, 0, &(len), IOLAB_FAULT_SHORT_WRITE, 1);         \
            if (e_) {                                                                              \
                errno = e_;                                                                        \
                return (type)-1;                                                                   \
            }                                                                                      \
        }                                                                                          \
        SHIM_PREFETCH_CALL(s_, id);                                                                \
        uint32_t w_ = shim_timed(shim_time_exact[IOLAB_CALL_##id]);                                \
        uint64_t t_ = w_ ? shim_start() : 0;                                                       \
        type r_ = SHIM_MAKE(type, real, args, direct);                                             \
        shim_end_w_as(sh_, &s_->calls[IOLAB_CALL_##id], t_, (uint64_t)(bytes), w_,                 \
                      shim_time_exact[IOLAB_CALL_##id]);                                           \
        return r_;                                                                                 \
    } while (0)

#define SHIM_NOCUT ((void)0)
#define SHIM_R     IOLAB_FAULT_SHORT_READ
#define SHIM_W     IOLAB_FAULT_SHORT_WRITE

/*
 * The iovec calls: their length is the vector's total (computed only under fault injection),
 * and a cut length is applied by handing the call a shortened copy of the vector. Vectors
 * longer than SHIM_IOV_CUT are never cut (EINTR and EAGAIN still apply).
 */
#define SHIM_IOV_CUT 64

static size_t shim_iov_len(const struct iovec *iov, int n)
{
    size_t len = 0;
    if (!shim_faults_on || n <= 0 || n > SHIM_IOV_CUT)
        return 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    return len;
}

/* Copies the first `keep` bytes' worth of iov into tmp; returns the new count. */
static int shim_iov_cut(const struct iovec *iov, int n, size_t keep, struct iovec *tmp)
{
    int k = 0;
    for (; k < n && keep; k++) {
        tmp[k] = iov[k];
        if (tmp[k].iov_len > keep)
            tmp[k].iov_len = keep;
        keep -= tmp[k].iov_len;
    }
    return k;
}

SHIM_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    SHIM_CALL_ONE(READ, ssize_t, read, (fd, buf, n), SHIM_DIRECT3(SYS_read, fd, buf, n),
                  SHIM_SYS(SYS_read, fd, buf, n), SHIM_XFER(r_), fd, n, SHIM_R, 0, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t __read(int fd, void *buf, size_t n) __attribute__((alias("read"), copy(read)));

SHIM_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    SHIM_CALL_ONE(READ, ssize_t, __read_chk, (fd, buf, n, buflen), SHIM_NO_DIRECT, shim_nosys(),
                  SHIM_XFER(r_), fd, n, SHIM_R, 0, SHIM_NOCUT);
}

SHIM_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    SHIM_CALL_ONE(WRITE, ssize_t, write, (fd, buf, n), SHIM_DIRECT3(SYS_write, fd, buf, n),
                  SHIM_SYS(SYS_write, fd, buf, n), SHIM_XFER(r_), fd, n, SHIM_W, 0, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t __write(int fd, const void *buf, size_t n)
    __attribute__((alias("write"), copy(write)));

SHIM_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
    struct iovec tmp[SHIM_IOV_CUT];
    size_t len = shim_iov_len(iov, n);
    SHIM_CALL_ONE(READV, ssize_t, readv, (fd, iov, n), SHIM_DIRECT3(SYS_readv, fd, iov, n),
                  shim_nosys(), SHIM_XFER(r_), fd, len, SHIM_R, 0,
                  (n = shim_iov_cut(iov, n, len, tmp), iov = tmp));
}

SHIM_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    struct iovec tmp[SHIM_IOV_CUT];
    size_t len = shim_iov_len(iov, n);
    SHIM_CALL_ONE(WRITEV, ssize_t, writev, (fd, iov, n), SHIM_DIRECT3(SYS_writev, fd, iov, n),
                  shim_nosys(), SHIM_XFER(r_), fd, len, SHIM_W, 0,
                  (n = shim_iov_cut(iov, n, len, tmp), iov = tmp));
}

SHIM_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    SHIM_CALL_ONE(PREAD64, ssize_t, pread64, (fd, buf, n, off),
                  SHIM_DIRECT4(SYS_pread64, fd, buf, n, off), shim_nosys(), SHIM_XFER(r_), fd, n,
                  SHIM_R, 0, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
    __attribute__((alias("pread64"), copy(pread64)));
SHIM_EXPORT ssize_t __pread64(int fd, void *buf, size_t n, off_t off)
    __attribute__((alias("pread64"), copy(pread64)));

SHIM_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    SHIM_CALL_ONE(PREAD64, ssize_t, __pread64_chk, (fd, buf, n, off, buflen), SHIM_NO_DIRECT,
                  shim_nosys(), SHIM_XFER(r_), fd, n, SHIM_R, 0, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
    __attribute__((alias("__pread64_chk"), copy(__pread64_chk)));

SHIM_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    SHIM_CALL_ONE(PWRITE64, ssize_t, pwrite64, (fd, buf, n, off),
                  SHIM_DIRECT4(SYS_pwrite64, fd, buf, n, off), shim_nosys(), SHIM_XFER(r_), fd, n,
                  SHIM_W, 0, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
    __attribute__((alias("pwrite64"), copy(pwrite64)));
SHIM_EXPORT ssize_t __pwrite64(int fd, const void *buf, size_t n, off_t off)
    __attribute__((alias("pwrite64"), copy(pwrite64)));

SHIM_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
    struct iovec tmp[SHIM_IOV_CUT];
    size_t len = shim_iov_len(iov, n);
    SHIM_CALL_ONE(PREADV, ssize_t, preadv64, (fd, iov, n, off), SHIM_NO_DIRECT, shim_nosys(),
                  SHIM_XFER(r_), fd, len, SHIM_R, 0,
                  (n = shim_iov_cut(iov, n, len, tmp), iov = tmp));
}
SHIM_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
    __attribute__((alias("preadv64"), copy(preadv64)));

SHIM_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
    struct iovec tmp[SHIM_IOV_CUT];
    size_t len = shim_iov_len(iov, n);
    SHIM_CALL_ONE(PWRITEV, ssize_t, pwritev64, (fd, iov, n, off), SHIM_NO_DIRECT, shim_nosys(),
                  SHIM_XFER(r_), fd, len, SHIM_W, 0,
                  (n = shim_iov_cut(iov, n, len, tmp), iov = tmp));
}
SHIM_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
    __attribute__((alias("pwritev64"), copy(pwritev64)));

SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
                           const struct sockaddr *addr, socklen_t alen)
{
    SHIM_CALL_ONE(SENDTO, ssize_t, sendto, (fd, buf, n, flags, addr, alen),
                  SHIM_DIRECT6(SYS_sendto, fd, buf, n, flags, addr, alen), shim_nosys(),
                  SHIM_XFER(r_), fd, n, SHIM_W, flags, SHIM_NOCUT);
}

/* send() is sendto() without an address, as the kernel and strace see it on x86-64. */
SHIM_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    SHIM_CALL_ONE(SENDTO, ssize_t, sendto, (fd, buf, n, flags, NULL, 0),
                  SHIM_DIRECT6(SYS_sendto, fd, buf, n, flags, NULL, 0), shim_nosys(), SHIM_XFER(r_),
                  fd, n, SHIM_W, flags, SHIM_NOCUT);
}
SHIM_EXPORT ssize_t __send(int fd, const void *buf, size_t n, int flags)
    __attribute__((alias("send"), copy(send)));

/* The message calls are never cut (their vector sits inside the msghdr); EINTR and EAGAIN
   apply. */
SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    size_t none = 0;
    SHIM_CALL_ONE(SENDMSG, ssize_t, sendmsg, (fd, msg, flags),
                  SHIM_DIRECT3(SYS_sendmsg, fd, msg, flags), shim_nosys(), SHIM_XFER(r_), fd, none,
                  SHIM_W, flags, SHIM_NOCUT);
}

SHIM_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr,
                             socklen_t *alen)
{
    SHIM_CALL_ONE(RECVFROM, ssize_t, recvfrom, (fd, buf, n, flags, addr, alen),
                  SHIM_DIRECT6(SYS_recvfrom, fd, buf, n, flags, addr, alen), shim_nosys(),
                  SHIM_XFER(r_), fd, n, SHIM_R, flags, SHIM_NOCUT);
}

SHIM_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    SHIM_CALL_ONE(RECVFROM, ssize_t, recvfrom, (fd, buf, n, flags, NULL, NULL),
                  SHIM_DIRECT6(SYS_recvfrom, fd, buf, n, flags, NULL, NULL), shim_nosys(),
                  SHIM_XFER(r_), fd, n, SHIM_R, flags, SHIM_NOCUT);
}

SHIM_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                                   struct sockaddr *addr, socklen_t *alen)
{
    SHIM_CALL_ONE(RECVFROM, ssize_t, __recvfrom_chk, (fd, buf, n, buflen, flags, addr, alen),
                  SHIM_NO_DIRECT, shim_nosys(), SHIM_XFER(r_), fd, n, SHIM_R, flags, SHIM_NOCUT);
}

SHIM_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
    SHIM_CALL_ONE(RECVFROM, ssize_t, __recvfrom_chk, (fd, buf, n, buflen, flags, NULL, NULL),
                  SHIM_NO_DIRECT, shim_nosys(), SHIM_XFER(r_), fd, n, SHIM_R, flags, SHIM_NOCUT);
}

/* Descriptors received with SCM_RIGHTS take numbers whose kind the table may not know. Returns
   how many were received. */
static size_t shim_forget_rights(const struct msghdr *msg)
{
    size_t got = 0;
    if (!msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
        return 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c;
         c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < nfd; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
            shim_fd_set(fd, -1);
        }
        got += nfd;
    }
    return got;
}

/* Counts received bytes and, on the way, forgets the kinds of the descriptors received; a call
   that brought descriptors also counts as one recvmsg_rights (what a lesson checks: a descriptor
   was received, not only a recvmsg made). No bytes or time of its own: they are recvmsg's. */
static uint64_t shim_recvmsg_done(ssize_t r, const struct msghdr *msg, struct iolab_slot *s,
                                  int shared)
{
    if (r < 0)
        return 0;
    size_t fds = shim_forget_rights(msg);
    if (fds)
        shim_add_as(shared, &s->calls[IOLAB_CALL_RECVMSG_RIGHTS].count, 1);
    return (uint64_t)r;
}

SHIM_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    size_t none = 0;
    SHIM_CALL_ONE(RECVMSG, ssize_t, recvmsg, (fd, msg, flags),
                  SHIM_DIRECT3(SYS_recvmsg, fd, msg, flags), shim_nosys(),
                  shim_recvmsg_done(r_, msg, s_, sh_), fd, none, SHIM_R, flags, SHIM_NOCUT);
}

/* The bytes of the first r messages of a vector (what a multi-message call moved), and, for a
   receive, the kinds of descriptors they carried forgotten as recvmsg does. */
static uint64_t shim_mmsg_done(int r, struct mmsghdr *v, int received)
{
    uint64_t n = 0;
    for (int i = 0; i < r; i++) {
        n += v[i].msg_len;
        if (received)
            shim_forget_rights(&v[i].msg_hdr);
    }
    return n;
}

/* The multi-message calls go through libc (no direct call, no fault injection): a lesson
   counts them, one call per batch, to show how many datagrams one call carries. */
SHIM_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *t)
{
    SHIM_CALL(RECVMMSG, int, recvmmsg, (fd, v, n, flags, t), shim_nosys(),
              shim_mmsg_done(r_, v, 1));
}

SHIM_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags)
{
    SHIM_CALL(SENDMMSG, int, sendmmsg, (fd, v, n, flags), shim_nosys(), shim_mmsg_done(r_, v, 0));
}

SHIM_EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
    SHIM_CALL_TWO(SENDFILE, ssize_t, sendfile64, (out, in, off, n),
                  SHIM_DIRECT4(SYS_sendfile, out, in, off, n), shim_nosys(), SHIM_XFER(r_), in, out,
                  n);
}
SHIM_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
    __attribute__((alias("sendfile64"), copy(sendfile64)));

SHIM_EXPORT ssize_t splice(int in, loff_t *offin, int out, loff_t *offout, size_t n, unsigned flags)
{
    SHIM_CALL_TWO(SPLICE, ssize_t, splice, (in, offin, out, offout, n, flags),
                  SHIM_DIRECT6(SYS_splice, in, offin, out, offout, n, flags), shim_nosys(),
                  SHIM_XFER(r_), in, out, n);
}

SHIM_EXPORT ssize_t tee(int in, int out, size_t n, unsigned flags)
{
    SHIM_CALL(TEE, ssize_t, tee, (in, out, n, flags), shim_nosys(), SHIM_XFER(r_));
}

SHIM_EXPORT ssize_t vmsplice(int fd, const struct iovec *iov, size_t n, unsigned flags)
{
    SHIM_CALL(VMSPLICE, ssize_t, vmsplice, (fd, iov, n, flags), shim_nosys(), SHIM_XFER(r_));
}

SHIM_EXPORT ssize_t copy_file_range(int in, loff_t *offin, int out, loff_t *offout, size_t n,
                                    unsigned flags)
{
    SHIM_CALL_TWO(COPY_FILE_RANGE, ssize_t, copy_file_range, (in, offin, out, offout, n, flags),
                  SHIM_DIRECT6(SYS_copy_file_range, in, offin, out, offout, n, flags), shim_nosys(),
                  SHIM_XFER(r_), in, out, n);
}

SHIM_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    SHIM_CALL(MMAP, void *, mmap64, (addr, len, prot, flags, fd, off),
              (void *)SHIM_SYS(SYS_mmap, addr, len, prot, flags, fd, off),
              r_ != MAP_FAILED ? len : 0);
}
SHIM_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap64"), copy(mmap64)));

SHIM_EXPORT int munmap(void *addr, size_t len)
{
    SHIM_CALL(MUNMAP, int, munmap, (addr, len), (int)SHIM_SYS(SYS_munmap, addr, len),
              r_ == 0 ? len : 0);
}

SHIM_EXPORT int socket(int domain, int type, int proto)
{
    SHIM_CALL(SOCKET, int, socket, (domain, type, proto), (int)shim_nosys(),
              shim_made(r_, IOLAB_FD_SOCKET));
}

SHIM_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen)
{
    SHIM_CALL(ACCEPT, int, accept, (fd, addr, alen), (int)shim_nosys(),
              shim_made(r_, IOLAB_FD_SOCKET));
}

SHIM_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
    SHIM_CALL(ACCEPT4, int, accept4, (fd, addr, alen, flags), (int)shim_nosys(),
              shim_made(r_, IOLAB_FD_SOCKET));
}

SHIM_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t alen)
{
    SHIM_CALL(CONNECT, int, connect, (fd, addr, alen), (int)shim_nosys(), 0);
}
SHIM_EXPORT int __connect(int fd, const struct sockaddr *addr, socklen_t alen)
    __attribute__((alias("connect"), copy(connect)));

SHIM_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
    SHIM_CALL(EPOLL_WAIT, int, epoll_wait, (epfd, ev, max, timeout), (int)shim_nosys(), 0);
}

SHIM_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
                            const sigset_t *mask)
{
    SHIM_CALL(EPOLL_PWAIT, int, epoll_pwait, (epfd, ev, max, timeout, mask), (int)shim_nosys(), 0);
}

SHIM_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
    SHIM_CALL(EPOLL_CTL, int, epoll_ctl, (epfd, op, fd, ev), (int)shim_nosys(),
              shim_epoll_noted(r_, op, fd, ev));
}

SHIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    SHIM_CALL(POLL, int, poll, (fds, n, timeout), (int)shim_nosys(), 0);
}
SHIM_EXPORT int __poll(struct pollfd *fds, nfds_t n, int timeout)
    __attribute__((alias("poll"), copy(poll)));

/*
 * The fortified variants only check the array against its object size. A call that fails the
 * check goes to glibc's own variant, which reports it and aborts exactly as without the shim.
 */
SHIM_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
    if (fdslen / sizeof *fds < n && shim_real___poll_chk)
        return shim_real___poll_chk(fds, n, timeout, fdslen);
    SHIM_CALL(POLL, int, poll, (fds, n, timeout), (int)shim_nosys(), 0);
}

SHIM_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
    SHIM_CALL(PPOLL, int, ppoll, (fds, n, ts, mask), (int)shim_nosys(), 0);
}

SHIM_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts,
                            const sigset_t *mask, size_t fdslen)
{
    if (fdslen / sizeof *fds < n && shim_real___ppoll_chk)
        return shim_real___ppoll_chk(fds, n, ts, mask, fdslen);
    SHIM_CALL(PPOLL, int, ppoll, (fds, n, ts, mask), (int)shim_nosys(), 0);
}

/* On x86-64, glibc 2.36 implements select() with the pselect6 system call. */
SHIM_EXPORT int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
    SHIM_CALL(SELECT, int, select, (n, rd, wr, ex, tv), (int)shim_nosys(), 0);
}
SHIM_EXPORT int __select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
    __attribute__((alias("select"), copy(select)));

SHIM_EXPORT int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts,
                        const sigset_t *mask)
{
    SHIM_CALL(PSELECT6, int, pselect, (n, rd, wr, ex, ts, mask), (int)shim_nosys(), 0);
}

/*
 * fork: counted in the parent (before the call, so the count is in place when the child
 * runs); in the child the wrapper touches nothing of the parent's slot and the child claims
 * its own on its first counted call.
 */
static inline __attribute__((always_inline)) pid_t shim_fork_common(pid_t (*real)(void))
{
    struct iolab_call *c = shim_begin(IOLAB_CALL_FORK);
    if (!c)
        return real();
    shim_faults_fork_begin();
    uint64_t t = shim_start();
    shim_child_forgot = 0;
    pid_t r = real();
    if (r == 0) {
        if (!shim_child_forgot)
            shim_after_fork_child(); /* _Fork runs no atfork handlers */
        return r;
    }
    shim_faults_fork_parent();
    shim_end(c, t, 0);
    return r;
}

SHIM_EXPORT pid_t fork(void)
{
    SHIM_NEED_REAL(fork, (pid_t)shim_nosys());
    return shim_fork_common(shim_real_fork);
}
SHIM_EXPORT pid_t __fork(void) __attribute__((alias("fork"), copy(fork)));

SHIM_EXPORT pid_t _Fork(void)
{
    SHIM_NEED_REAL(_Fork, (pid_t)shim_nosys());
    return shim_fork_common(shim_real__Fork);
}

SHIM_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                               void *arg)
{
    /* pthread_create returns an error number and leaves errno alone: the fallback must too. */
    if (SHIM_UNLIKELY(shim_faults.late_start_p))
        shim_late_start(&fn, &arg); /* fault injection: see shim_late_start() */
    SHIM_CALL(PTHREAD_CREATE, int, pthread_create, (t, attr, fn, arg), ENOSYS, 0);
}

/* open's mode argument exists only with O_CREAT or O_TMPFILE; reading it otherwise is UB. */
#define SHIM_OPEN_MODE(flags, mode, last)                                                          \
    do {                                                                                           \
        if ((flags) & (O_CREAT | __O_TMPFILE)) {                                                   \
            va_list ap;                                                                            \
            va_start(ap, last);                                                                    \
            mode = va_arg(ap, mode_t);                                                             \
            va_end(ap);                                                                            \
        }                                                                                          \
    } while (0)

SHIM_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    SHIM_OPEN_MODE(flags, mode, flags);
    SHIM_CALL(OPENAT, int, openat64, (dirfd, path, flags, mode),
              (int)SHIM_SYS(SYS_openat, dirfd, path, flags, mode), shim_made(r_, -1));
}
SHIM_EXPORT int openat(int dirfd, const char *path, int flags, ...)
    __attribute__((alias("openat64"), copy(openat64)));

/* open() is the openat system call with AT_FDCWD on x86-64 glibc. */
SHIM_EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    SHIM_OPEN_MODE(flags, mode, flags);
    SHIM_CALL(OPENAT, int, openat64, (AT_FDCWD, path, flags, mode),
              (int)SHIM_SYS(SYS_openat, AT_FDCWD, path, flags, mode), shim_made(r_, -1));
}
SHIM_EXPORT int open(const char *path, int flags, ...)
    __attribute__((alias("open64"), copy(open64)));
SHIM_EXPORT int __open(const char *path, int flags, ...)
    __attribute__((alias("open64"), copy(open64)));
SHIM_EXPORT int __open64(const char *path, int flags, ...)
    __attribute__((alias("open64"), copy(open64)));

/*
 * The _FORTIFY_SOURCE variants exist to refuse O_CREAT or O_TMPFILE without a mode at run time:
 * such a call goes to glibc's own variant, which reports it and aborts as without the shim.
 */
SHIM_EXPORT int __open64_2(const char *path, int flags)
{
    if ((flags & (O_CREAT | __O_TMPFILE)) && shim_real___open64_2)
        return shim_real___open64_2(path, flags);
    SHIM_CALL(OPENAT, int, openat64, (AT_FDCWD, path, flags),
              (int)SHIM_SYS(SYS_openat, AT_FDCWD, path, flags), shim_made(r_, -1));
}
SHIM_EXPORT int __open_2(const char *path, int flags)
    __attribute__((alias("__open64_2"), copy(__open64_2)));

SHIM_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    if ((flags & (O_CREAT | __O_TMPFILE)) && shim_real___openat64_2)
        return shim_real___openat64_2(dirfd, path, flags);
    SHIM_CALL(OPENAT, int, openat64, (dirfd, path, flags),
              (int)SHIM_SYS(SYS_openat, dirfd, path, flags), shim_made(r_, -1));
}
SHIM_EXPORT int __openat_2(int dirfd, const char *path, int flags)
    __attribute__((alias("__openat64_2"), copy(__openat64_2)));

SHIM_EXPORT int creat64(const char *path, mode_t mode)
{
    SHIM_CALL(CREAT, int, creat64, (path, mode), (int)shim_nosys(), shim_made(r_, IOLAB_FD_FILE));
}
SHIM_EXPORT int creat(const char *path, mode_t mode)
    __attribute__((alias("creat64"), copy(creat64)));

SHIM_EXPORT int close(int fd)
{
    SHIM_CALL(CLOSE, int, close, (fd), (int)SHIM_SYS(SYS_close, fd), shim_made(fd, -1));
}
SHIM_EXPORT int __close(int fd) __attribute__((alias("close"), copy(close)));

SHIM_EXPORT int fsync(int fd)
{
    SHIM_CALL(FSYNC, int, fsync, (fd), (int)shim_nosys(), 0);
}

SHIM_EXPORT int fdatasync(int fd)
{
    SHIM_CALL(FDATASYNC, int, fdatasync, (fd), (int)shim_nosys(), 0);
}

/* The page cache's calls: which pages are resident, advice on what to keep, read ahead. */
SHIM_EXPORT int mincore(void *addr, size_t len, unsigned char *vec)
{
    SHIM_CALL(MINCORE, int, mincore, (addr, len, vec), (int)SHIM_SYS(SYS_mincore, addr, len, vec),
              0);
}

/* posix_fadvise returns an error number instead of setting errno, and so does its fallback. */
SHIM_EXPORT int posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
    SHIM_CALL(POSIX_FADVISE, int, posix_fadvise64, (fd, off, len, advice),
              SHIM_SYS(SYS_fadvise64, fd, off, len, advice) < 0 ? errno : 0, 0);
}
SHIM_EXPORT int posix_fadvise(int fd, off_t off, off_t len, int advice)
    __attribute__((alias("posix_fadvise64"), copy(posix_fadvise64)));

SHIM_EXPORT ssize_t readahead(int fd, off_t off, size_t count)
{
    SHIM_CALL(READAHEAD, ssize_t, readahead, (fd, off, count),
              (ssize_t)SHIM_SYS(SYS_readahead, fd, off, count), 0);
}

/* ---- descriptors made by calls that are not counted: their kinds only ---------------------- */

/* Resolves real `fn` or returns the raw system call's result; then records kinds if counting. */
#define SHIM_MAKER(fn, args, fallback)                                                             \
    SHIM_NEED_REAL(fn, (int)(fallback));                                                           \
    int r = shim_real_##fn args;                                                                   \
    if (r < 0 || !shim_page)                                                                       \
    return r

SHIM_EXPORT int pipe(int fds[2])
{
    SHIM_MAKER(pipe, (fds), SHIM_SYS(SYS_pipe2, fds, 0));
    shim_fd_set(fds[0], IOLAB_FD_PIPE);
    shim_fd_set(fds[1], IOLAB_FD_PIPE);
    return r;
}

SHIM_EXPORT int pipe2(int fds[2], int flags)
{
    SHIM_MAKER(pipe2, (fds, flags), SHIM_SYS(SYS_pipe2, fds, flags));
    shim_fd_set(fds[0], IOLAB_FD_PIPE);
    shim_fd_set(fds[1], IOLAB_FD_PIPE);
    return r;
}

SHIM_EXPORT int socketpair(int domain, int type, int proto, int fds[2])
{
    SHIM_MAKER(socketpair, (domain, type, proto, fds),
               SHIM_SYS(SYS_socketpair, domain, type, proto, fds));
    shim_fd_set(fds[0], IOLAB_FD_SOCKET);
    shim_fd_set(fds[1], IOLAB_FD_SOCKET);
    return r;
}

/* A duplicate is what its original is (or not known, like it). */
static void shim_fd_copy(int from, int to)
{
    if ((unsigned)from < SHIM_FD_TABLE && (unsigned)to < SHIM_FD_TABLE)
        __atomic_store_n(&shim_fdk[to], __atomic_load_n(&shim_fdk[from], __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
    else
        shim_fd_set(to, -1);
}

SHIM_EXPORT int dup(int fd)
{
    SHIM_MAKER(dup, (fd), SHIM_SYS(SYS_dup, fd));
    shim_fd_copy(fd, r);
    return r;
}

SHIM_EXPORT int dup2(int fd, int to)
{
    SHIM_MAKER(dup2, (fd, to), SHIM_SYS(SYS_dup2, fd, to));
    shim_fd_copy(fd, r);
    return r;
}
SHIM_EXPORT int __dup2(int fd, int to) __attribute__((alias("dup2"), copy(dup2)));

SHIM_EXPORT int dup3(int fd, int to, int flags)
{
    SHIM_MAKER(dup3, (fd, to, flags), SHIM_SYS(SYS_dup3, fd, to, flags));
    shim_fd_copy(fd, r);
    return r;
}

SHIM_EXPORT int memfd_create(const char *name, unsigned flags)
{
    SHIM_MAKER(memfd_create, (name, flags), SHIM_SYS(SYS_memfd_create, name, flags));
    shim_fd_set(r, IOLAB_FD_FILE);
    return r;
}

SHIM_EXPORT int epoll_create(int size)
{
    SHIM_MAKER(epoll_create, (size), SHIM_SYS(SYS_epoll_create1, 0));
    shim_fd_set(r, IOLAB_FD_OTHER);
    return r;
}

SHIM_EXPORT int epoll_create1(int flags)
{
    SHIM_MAKER(epoll_create1, (flags), SHIM_SYS(SYS_epoll_create1, flags));
    shim_fd_set(r, IOLAB_FD_OTHER);
    return r;
}

SHIM_EXPORT int eventfd(unsigned init, int flags)
{
    SHIM_MAKER(eventfd, (init, flags), SHIM_SYS(SYS_eventfd2, init, flags));
    shim_fd_set(r, IOLAB_FD_OTHER);
    return r;
}

/* ---- IPC objects: recorded when this call created them ------------------------------------- */

/*
 * The three System V gets behind one signature (the second argument is the size or the number
 * of semaphores, unused by msgget). A call made while dlsym runs goes to the system call
 * itself, which is all glibc's function does.
 */
static int shim_shmget_real(key_t key, long arg, int flg)
{
    return shim_real_shmget ? shim_real_shmget(key, (size_t)arg, flg)
                            : (int)syscall(SYS_shmget, key, (size_t)arg, flg);
}
static int shim_msgget_real(key_t key, long arg, int flg)
{
    (void)arg;
    return shim_real_msgget ? shim_real_msgget(key, flg) : (int)syscall(SYS_msgget, key, flg);
}
static int shim_semget_real(key_t key, long arg, int flg)
{
    return shim_real_semget ? shim_real_semget(key, (int)arg, flg)
                            : (int)syscall(SYS_semget, key, (int)arg, flg);
}

/* How often a look-up and an exclusive create may both lose a race before we give up. */
#define SHIM_CREATE_TRIES 8

/*
 * A System V get that records the object when this call created it. IPC_PRIVATE always
 * creates, and so does a successful IPC_CREAT|IPC_EXCL. A plain IPC_CREAT with a key may instead
 * return an object someone else made (another program of the learner's using the same key),
 * which must never be swept: the key is looked up first without IPC_CREAT, which makes the
 * same permission and size checks and so returns what the call would have returned for an
 * existing object, and only on ENOENT is it created, with IPC_EXCL so that a creator racing us
 * shows up as EEXIST and the look-up is retried. errno is the caller's again after a success.
 */
static int shim_sysv_get(enum iolab_ipc_kind kind, int (*real)(key_t, long, int), key_t key,
                         long arg, int flg)
{
    int saved = errno;
    bool exclusive = key == IPC_PRIVATE || (flg & (IPC_CREAT | IPC_EXCL)) == (IPC_CREAT | IPC_EXCL);
    if (exclusive || !(flg & IPC_CREAT)) {
        int r = real(key, arg, flg);
        if (r >= 0 && exclusive)
            shim_ipc_record(kind, r, NULL);
        return r;
    }
    for (int i = 0; i < SHIM_CREATE_TRIES; i++) {
        int r = real(key, arg, flg & ~IPC_CREAT);
        if (r >= 0)
            errno = saved;
        if (r >= 0 || errno != ENOENT)
            return r;
        r = real(key, arg, flg | IPC_EXCL);
        if (r >= 0) {
            shim_ipc_record(kind, r, NULL);
            errno = saved;
            return r;
        }
        if (errno != EEXIST)
            return r;
    }
    return real(key, arg, flg); /* appearing and vanishing under us: not known to be ours */
}

SHIM_EXPORT int shmget(key_t key, size_t size, int flg)
{
    if (SHIM_UNLIKELY(!shim_real_shmget))
        shim_resolve();
    return shim_sysv_get(IOLAB_IPC_SHM, shim_shmget_real, key, (long)size, flg);
}

SHIM_EXPORT int msgget(key_t key, int flg)
{
    if (SHIM_UNLIKELY(!shim_real_msgget))
        shim_resolve();
    return shim_sysv_get(IOLAB_IPC_MSG, shim_msgget_real, key, 0, flg);
}

SHIM_EXPORT int semget(key_t key, int nsems, int flg)
{
    if (SHIM_UNLIKELY(!shim_real_semget))
        shim_resolve();
    return shim_sysv_get(IOLAB_IPC_SEM, shim_semget_real, key, nsems, flg);
}

/*
 * shm_open and mq_open with O_CREAT, by the same reasoning as shim_sysv_get: open without
 * O_CREAT first (an existing object is opened with the same checks and, with O_TRUNC, truncated
 * the same way), create with O_EXCL only on ENOENT, and record the name only then.
 */
struct shim_posix_open {
    enum iolab_ipc_kind kind;
    const char *name;
    int oflag;
    mode_t mode;
    struct mq_attr *attr; /* mq_open only */
};

static int shim_posix_call(const struct shim_posix_open *o, int oflag)
{
    if (o->kind == IOLAB_IPC_PSHM)
        return shim_real_shm_open(o->name, oflag, o->mode);
    if (oflag & O_CREAT)
        return (int)shim_real_mq_open(o->name, oflag, o->mode, o->attr);
    return (int)shim_real_mq_open(o->name, oflag);
}

static int shim_posix_create(const struct shim_posix_open *o)
{
    int saved = errno;
    if (!(o->oflag & O_CREAT))
        return shim_posix_call(o, o->oflag);
    for (int i = 0; i < SHIM_CREATE_TRIES; i++) {
        int r;
        if (!(o->oflag & O_EXCL)) {
            r = shim_posix_call(o, o->oflag & ~O_CREAT);
            if (r >= 0)
                errno = saved;
            if (r >= 0 || errno != ENOENT)
                return r;
        }
        r = shim_posix_call(o, o->oflag | O_EXCL);
        if (r >= 0) {
            shim_ipc_record(o->kind, 0, o->name);
            errno = saved;
            return r;
        }
        /* Landlock (the reduced tier) refuses to open a queue only after the kernel has created
         * it, so the call fails and the queue stays. No queue had that name an instant ago (or
         * this exclusive create would have failed with EEXIST): one there now is this call's. */
        if (o->kind == IOLAB_IPC_PMQ && errno == EACCES) {
            shim_ipc_record(o->kind, 0, o->name);
            return r;
        }
        if (errno != EEXIST || (o->oflag & O_EXCL))
            return r;
    }
    return shim_posix_call(o, o->oflag);
}

SHIM_EXPORT int shm_open(const char *name, int oflag, mode_t mode)
{
    SHIM_NEED_REAL(shm_open, (int)shim_nosys());
    struct shim_posix_open o = {.kind = IOLAB_IPC_PSHM, .name = name, .oflag = oflag, .mode = mode};
    return shim_posix_create(&o);
}

SHIM_EXPORT mqd_t mq_open(const char *name, int oflag, ...)
{
    struct shim_posix_open o = {.kind = IOLAB_IPC_PMQ, .name = name, .oflag = oflag};
    /* mode and attr exist only with O_CREAT; reading them otherwise is undefined. */
    if (oflag & O_CREAT) {
        va_list ap;
        va_start(ap, oflag);
        o.mode = va_arg(ap, mode_t);
        o.attr = va_arg(ap, struct mq_attr *);
        va_end(ap);
    }
    SHIM_NEED_REAL(mq_open, (mqd_t)shim_nosys());
    return (mqd_t)shim_posix_create(&o);
}

/* ---- IPC messages, semaphores and attachments ---------------------------------------------- */

/*
 * The message calls count their payload as bytes: what mq_send and msgsnd hand to the kernel
 * when they succeed (msgsnd's size excludes the mtype, as the call's own argument does), what
 * the receives return. A call made while dlsym runs goes to the system call itself, which is
 * all glibc's function does.
 */
SHIM_EXPORT int mq_send(mqd_t q, const char *msg, size_t n, unsigned prio)
{
    SHIM_CALL(MQ_TIMEDSEND, int, mq_send, (q, msg, n, prio),
              (int)SHIM_SYS(SYS_mq_timedsend, q, msg, n, prio, NULL), r_ == 0 ? n : 0);
}

SHIM_EXPORT int mq_timedsend(mqd_t q, const char *msg, size_t n, unsigned prio,
                             const struct timespec *ts)
{
    SHIM_CALL(MQ_TIMEDSEND, int, mq_timedsend, (q, msg, n, prio, ts),
              (int)SHIM_SYS(SYS_mq_timedsend, q, msg, n, prio, ts), r_ == 0 ? n : 0);
}

SHIM_EXPORT ssize_t mq_receive(mqd_t q, char *msg, size_t n, unsigned *prio)
{
    SHIM_CALL(MQ_TIMEDRECEIVE, ssize_t, mq_receive, (q, msg, n, prio),
              SHIM_SYS(SYS_mq_timedreceive, q, msg, n, prio, NULL), SHIM_XFER(r_));
}

SHIM_EXPORT ssize_t mq_timedreceive(mqd_t q, char *msg, size_t n, unsigned *prio,
                                    const struct timespec *ts)
{
    SHIM_CALL(MQ_TIMEDRECEIVE, ssize_t, mq_timedreceive, (q, msg, n, prio, ts),
              SHIM_SYS(SYS_mq_timedreceive, q, msg, n, prio, ts), SHIM_XFER(r_));
}

SHIM_EXPORT int msgsnd(int id, const void *msg, size_t n, int flg)
{
    SHIM_CALL(MSGSND, int, msgsnd, (id, msg, n, flg), (int)SHIM_SYS(SYS_msgsnd, id, msg, n, flg),
              r_ == 0 ? n : 0);
}

SHIM_EXPORT ssize_t msgrcv(int id, void *msg, size_t n, long type, int flg)
{
    SHIM_CALL(MSGRCV, ssize_t, msgrcv, (id, msg, n, type, flg),
              SHIM_SYS(SYS_msgrcv, id, msg, n, type, flg), SHIM_XFER(r_));
}

/* On x86-64, glibc 2.36 implements semop() with the semtimedop system call. */
static inline int shim_semop(int id, struct sembuf *ops, size_t n)
{
    SHIM_CALL(SEMOP, int, semop, (id, ops, n), (int)SHIM_SYS(SYS_semtimedop, id, ops, n, NULL), 0);
}

static inline int shim_semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *ts)
{
    SHIM_CALL(SEMOP, int, semtimedop, (id, ops, n, ts),
              (int)SHIM_SYS(SYS_semtimedop, id, ops, n, ts), 0);
}

/* jitter_us: whether a semop() may wait (an operation of -n, or 0, waits for the count). */
static bool shim_semop_waits(const struct sembuf *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ops[i].sem_op <= 0)
            return true;
    return false;
}

/* A semop() that may wait sleeps before it, one that only adds after it (see "jitter_us"). */
SHIM_EXPORT int semop(int id, struct sembuf *ops, size_t n)
{
    if (SHIM_LIKELY(!shim_faults.jitter_ns))
        return shim_semop(id, ops, n);
    bool waits = shim_semop_waits(ops, n);
    if (waits)
        shim_jitter();
    int r = shim_semop(id, ops, n);
    if (!waits)
        shim_jitter();
    return r;
}

SHIM_EXPORT int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *ts)
{
    if (SHIM_LIKELY(!shim_faults.jitter_ns))
        return shim_semtimedop(id, ops, n, ts);
    bool waits = shim_semop_waits(ops, n);
    if (waits)
        shim_jitter();
    int r = shim_semtimedop(id, ops, n, ts);
    if (!waits)
        shim_jitter();
    return r;
}

/* The segment's size would cost an IPC_STAT per attach: shmat and shmdt count calls only. */
SHIM_EXPORT void *shmat(int id, const void *addr, int flg)
{
    SHIM_CALL(SHMAT, void *, shmat, (id, addr, flg), (void *)SHIM_SYS(SYS_shmat, id, addr, flg), 0);
}

SHIM_EXPORT int shmdt(const void *addr)
{
    SHIM_CALL(SHMDT, int, shmdt, (addr), (int)SHIM_SYS(SYS_shmdt, addr), 0);
}

/*
 * POSIX semaphores are counters in the caller's (shared) memory: sem_post and an uncontended
 * sem_wait never enter the kernel, a sem_wait that must sleep makes a futex call, and so does
 * the sem_post that wakes it. They are counted as the library calls they are; the time inside
 * them is what shows how often they waited. sem_timedwait and sem_clockwait fold into
 * sem_wait; sem_trywait, which never waits, is not counted.
 */
SHIM_EXPORT int sem_wait(sem_t *s)
{
    if (SHIM_UNLIKELY(shim_faults.jitter_ns))
        shim_jitter(); /* fault injection: see "jitter_us" */
    SHIM_CALL(SEM_WAIT, int, sem_wait, (s), (int)shim_nosys(), 0);
}

SHIM_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
    if (SHIM_UNLIKELY(shim_faults.jitter_ns))
        shim_jitter();
    SHIM_CALL(SEM_WAIT, int, sem_timedwait, (s, ts), (int)shim_nosys(), 0);
}

SHIM_EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *ts)
{
    if (SHIM_UNLIKELY(shim_faults.jitter_ns))
        shim_jitter();
    SHIM_CALL(SEM_WAIT, int, sem_clockwait, (s, clock, ts), (int)shim_nosys(), 0);
}

static inline int shim_sem_post(sem_t *s)
{
    SHIM_CALL(SEM_POST, int, sem_post, (s), (int)shim_nosys(), 0);
}

SHIM_EXPORT int sem_post(sem_t *s)
{
    int r = shim_sem_post(s);
    if (SHIM_UNLIKELY(shim_faults.jitter_ns))
        shim_jitter(); /* after the release: see "jitter_us" */
    return r;
}

/*
 * The mutex calls are wrapped for jitter_us only (not counted): a lock sleeps before it is
 * taken, an unlock after the mutex is free. libc's own locks (stdio, malloc) never come here.
 * While dlsym() runs, before the next definition is known, libc's own code is called.
 */

SHIM_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (SHIM_UNLIKELY(shim_faults.jitter_ns))
        shim_jitter();
    if (SHIM_UNLIKELY(!shim_real_pthread_mutex_lock))
        shim_resolve();
    return shim_real_pthread_mutex_lock ? shim_real_pthread_mutex_lock(m) : shim_libc_mutex_lock(m);
}

SHIM_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (SHIM_UNLIKELY(!shim_real_pthread_mutex_unlock))
        shim_resolve();
    int r = shim_real_pthread_mutex_unlock ? shim_real_pthread_mutex_unlock(m)
                                           : shim_libc_mutex_unlock(m);
    if (SHIM_UNLIKELY(shim_faults.jitter_ns) && r == 0)
        shim_jitter();
    return r;
}
