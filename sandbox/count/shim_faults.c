/*
 * shim_faults: the shim's fault injection (IOLAB_FAULTS), the cold half of libiolab-count.so.
 * shim.c's wrappers call in here only when a fault is asked for; nothing here calls back into
 * shim.c (the state both read is in shim_int.h), so the counting path's file stays the hot one.
 *
 * For the program under test only: iolab sets IOLAB_FAULTS="short=P,eintr=P,eagain=P,seed=N"
 * (P a probability from 0 to 1) for it. On a file, socket or pipe, a read- or write-family call
 * may then have its length cut (short=: the call is made asking for 1 to n-1 bytes, as a full
 * socket buffer or a signal would make it return), may fail with EINTR without being made
 * (eintr=: sockets and pipes, where a signal can interrupt a call, and sendfile, splice and
 * copy_file_range whatever their destination, since a long copy inside the kernel stops for a
 * signal too; never a plain read or write of a regular file), or fail with EAGAIN
 * without being made (eagain=: non-blocking sockets only, or MSG_DONTWAIT). Each decision is
 * drawn from a per-thread xorshift generator seeded from the seed, the thread's order of first
 * use in its process and the process's place in the fork tree, so the same program under the
 * same load meets the same faults. What was injected is counted in the slot (iolab_fdsplit).
 * Faults need the page: without it the shim is a plain pass-through as always.
 *
 * spurious=P is of another kind: a pthread_cond_wait() or pthread_cond_timedwait() may return 0
 * at once, its mutex released and taken again, without anyone having signalled: the spurious
 * wake-up POSIX allows and a correct waiter rechecks its condition for. It is what a wait under
 * an `if` instead of a `while` needs to go wrong, which no scheduler provides on demand. These
 * are not counted in the slot: a thread may wait before it has claimed one.
 *
 * late_start=P: a thread pthread_create() starts runs its function only SHIM_LATE_START_NS
 * later, while its creator carries on: a thread that reads its argument through a pointer to
 * the creator's loop variable then reads it after the loop moved on, every time rather than
 * when the scheduler happens to let it. Not counted in the slot either.
 *
 * jitter_us=N: a thread sleeps N/2 to N microseconds (drawn like the rest), at one boundary in
 * two, before it takes a lock or waits on a semaphore, and after it releases one:
 * pthread_mutex_lock(), sem_wait() and its timed forms, a semop() that may wait (an operation of -n
 * or 0) sleep first; pthread_mutex_unlock(), sem_post() and a semop() that only adds sleep after.
 * The sleep is always where the thread holds nothing it just took, so critical sections do not
 * grow; what grows is the gap between them, where the races are: a wake-up sent before the state it
 * announces, a result read after the segment was handed back, a decision taken under one lock
 * and acted on under the next. Those then go wrong in every run rather than once in a while.
 *
 * coalesce_sigchld=1: two child exits reach the program's SIGCHLD handler as one call, as the
 * kernel delivers them when the second comes while the first is still pending (see
 * shim_chld_handler()).
 */
#include "shim_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct shim_faults shim_faults;
int shim_faults_on;
static uint64_t shim_lineage;         /* this process's place in the fork tree */
static uint64_t shim_lineage_pending; /* the child's, set just before a fork */
static uint64_t shim_forks;           /* forks made by this process */
static uint32_t shim_threads_seen;    /* threads of this process that drew a fault decision */
/* This thread's generator (xorshift64*); 0: not seeded yet. Apart from shim.c's TLS block,
   which the counting path reads: only a thread that draws a fault touches it. */
static SHIM_TLS uint64_t shim_faults_rng;

static uint64_t shim_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull; /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint32_t shim_rand(void)
{
    uint64_t x = shim_faults_rng;
    if (SHIM_UNLIKELY(!x)) {
        uint32_t t = __atomic_add_fetch(&shim_threads_seen, 1, __ATOMIC_RELAXED);
        x = shim_mix(shim_faults.seed ^ shim_mix(shim_lineage ^ ((uint64_t)t << 40))) | 1;
    }
    x ^= x >> 12; /* xorshift64* */
    x ^= x << 25;
    x ^= x >> 27;
    shim_faults_rng = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

/* The longest jitter iolab's lint lets a lesson ask for (lessons/README.md): 100 ms. */
#define SHIM_JITTER_MAX_US 100000

/* Parses IOLAB_FAULTS; an unknown key or a bad number turns injection off (iolab validated
   the lesson's values: anything else was not meant for us). */
void shim_faults_init(void)
{
    const char *v = getenv(IOLAB_ENV_FAULTS);
    struct shim_faults f = {0};
    if (!v || !*v)
        return;
    while (*v) {
        const char *eq = strchr(v, '=');
        if (!eq)
            return;
        char *end;
        size_t klen = (size_t)(eq - v);
        if (klen == 4 && !strncmp(v, "seed", 4)) {
            f.seed = strtoull(eq + 1, &end, 10);
        } else if (klen == 9 && !strncmp(v, "jitter_us", 9)) {
            unsigned long us = strtoul(eq + 1, &end, 10);
            if (us > SHIM_JITTER_MAX_US)
                return;
            f.jitter_ns = (uint32_t)us * 1000u;
        } else if (klen == 16 && !strncmp(v, "coalesce_sigchld", 16)) {
            unsigned long on = strtoul(eq + 1, &end, 10);
            if (on > 1)
                return;
            f.coalesce_chld = (int)on;
        } else {
            double p = strtod(eq + 1, &end);
            if (!(p >= 0 && p <= 1))
                return;
            uint32_t q = (uint32_t)(p * 4294967295.0);
            if (klen == 5 && !strncmp(v, "short", 5))
                f.short_p = q;
            else if (klen == 5 && !strncmp(v, "eintr", 5))
                f.eintr_p = q;
            else if (klen == 6 && !strncmp(v, "eagain", 6))
                f.eagain_p = q;
            else if (klen == 8 && !strncmp(v, "spurious", 8))
                f.spurious_p = q;
            else if (klen == 10 && !strncmp(v, "late_start", 10))
                f.late_start_p = q;
            else
                return;
        }
        if (end == eq + 1 || (*end && *end != ','))
            return;
        v = *end ? end + 1 : end;
    }
    shim_faults = f;
    shim_faults_on = f.short_p || f.eintr_p || f.eagain_p;
}

/* A thread started late: its function and argument, and the pause before it runs. */
#define SHIM_LATE_START_NS 2000000
struct shim_late {
    void *(*fn)(void *);
    void *arg;
};

static SHIM_COLD void *shim_late_start_run(void *p)
{
    struct shim_late l = *(struct shim_late *)p;
    free(p);
    struct timespec pause = {.tv_nsec = SHIM_LATE_START_NS};
    while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
        ;
    return l.fn(l.arg);
}

/* pthread_create()'s function and argument, replaced by a late start when the draw says so. */
SHIM_COLD void shim_late_start(void *(**fn)(void *), void **arg)
{
    if (shim_rand() >= shim_faults.late_start_p)
        return;
    struct shim_late *l = malloc(sizeof *l);
    if (!l)
        return; /* then it starts on time (and should pthread_create() fail, l is lost) */
    *l = (struct shim_late){.fn = *fn, .arg = *arg};
    *fn = shim_late_start_run;
    *arg = l;
}

/* jitter_us: at one boundary in two (a coin of the thread's generator), a sleep of jitter_us/2
   to jitter_us, made by a raw system call (no cancellation point, never counted:
   pthread_mutex_lock() is no cancellation point either). The boundaries left alone keep the
   other order possible: a pause after every post would always let the waiter run first and hide
   a poster that reads the reply before it came. A signal ends a sleep early. */
SHIM_COLD void shim_jitter(void)
{
    int saved = errno;
    uint32_t coin = shim_rand();
    if (coin & 0x80000000u) {
        uint32_t half = shim_faults.jitter_ns / 2;
        uint64_t ns = half + (((uint64_t)shim_rand() * (shim_faults.jitter_ns - half + 1)) >> 32);
        struct timespec t = {.tv_sec = (time_t)(ns / 1000000000u),
                             .tv_nsec = (long)(ns % 1000000000u)};
        syscall(SYS_nanosleep, &t, NULL);
    }
    errno = saved;
}

/*
 * coalesce_sigchld=1. The kernel keeps one pending SIGCHLD per process, not one per child: a
 * child that exits while another's signal is still pending adds nothing, and the handler runs
 * once for both. A handler that reaps one child per call then leaves a zombie, but only when
 * two exits meet that closely, which a run may never see. So the shim puts its own handler in
 * front of the program's and makes them meet: a delivery is held back, and the next one is
 * handed to the program's handler as one call standing for both. A held delivery that no other
 * follows is handed over alone when the shim's timer fires SHIM_CHLD_FLUSH_NS later (a SIGCHLD
 * of code SI_TIMER carrying &shim_chld, swallowed when nothing is held), so a handler that
 * reaps every child that has exited still reaps each within that time. The program's handler
 * is never called with nothing held: one that blocks in wait() is not made to block by iolab.
 *
 * Only a function handler without SA_RESETHAND or SA_NOCLDWAIT is put behind ours (a one-shot
 * handler, or one whose children the kernel reaps, has nothing to coalesce), by sigaction() and
 * signal(); asked, sigaction() answers with the program's own action. Threads may take a SIGCHLD
 * each at once, so what is held is one word changed by compare-and-swap, with a generation so
 * that a flush never hands over a siginfo written after it looked.
 */
#define SHIM_CHLD_FLUSH_NS 80000000 /* 80 ms */
enum { SHIM_CHLD_FREE, SHIM_CHLD_WRITING, SHIM_CHLD_HELD };
static struct {
    struct sigaction act; /* the program's action, as it gave it */
    int wrapped;          /* ours is installed in front of act's handler */
    uint64_t state;       /* generation << 2 | SHIM_CHLD_FREE, _WRITING or _HELD */
    siginfo_t info;       /* the held delivery's siginfo, written while _WRITING */
    int timer;            /* the kernel timer that flushes it, made by process timer_pid */
    pid_t timer_pid;
} shim_chld;

/* Arms the flush timer ns from now (0: disarms it), making it first in a new process. */
static void shim_chld_arm(long ns)
{
    pid_t pid = (pid_t)syscall(SYS_getpid);
    if (__atomic_load_n(&shim_chld.timer_pid, __ATOMIC_ACQUIRE) != pid) {
        if (!ns)
            return;
        struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGCHLD};
        ev.sigev_value.sival_ptr = &shim_chld;
        int id;
        if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) < 0)
            return; /* then a held delivery waits for the next: rare, and never lost for good */
        shim_chld.timer = id;
        __atomic_store_n(&shim_chld.timer_pid, pid, __ATOMIC_RELEASE);
    }
    struct itimerspec t = {.it_value = {.tv_sec = 0, .tv_nsec = ns}};
    syscall(SYS_timer_settime, shim_chld.timer, 0, &t, NULL);
}

static void shim_chld_call(const struct sigaction *a, siginfo_t *si, void *uc)
{
    if (a->sa_flags & SA_SIGINFO)
        a->sa_sigaction(SIGCHLD, si, uc);
    else
        a->sa_handler(SIGCHLD);
}

static void shim_chld_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved = errno;
    struct sigaction a = shim_chld.act; /* the program may change it from its own handler */
    uint64_t st = __atomic_load_n(&shim_chld.state, __ATOMIC_ACQUIRE);
    if (si->si_code == SI_TIMER && si->si_value.sival_ptr == &shim_chld) {
        if ((st & 3) != SHIM_CHLD_HELD) {
            errno = saved; /* nothing held (handed over with a later one): swallowed */
            return;
        }
        siginfo_t held = shim_chld.info;
        if (!__atomic_compare_exchange_n(&shim_chld.state, &st, st & ~3ull, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            errno = saved; /* another delivery took it meanwhile */
            return;
        }
        errno = saved;
        shim_chld_call(&a, &held, uc);
        return;
    }
    for (;;) {
        if ((st & 3) == SHIM_CHLD_FREE) {
            uint64_t w = ((st & ~3ull) + 4) | SHIM_CHLD_WRITING;
            if (!__atomic_compare_exchange_n(&shim_chld.state, &st, w, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE))
                continue;
            shim_chld.info = *si;
            __atomic_store_n(&shim_chld.state, (w & ~3ull) | SHIM_CHLD_HELD, __ATOMIC_RELEASE);
            shim_chld_arm(SHIM_CHLD_FLUSH_NS);
            errno = saved; /* held back: the next delivery, or the timer, hands it over */
            return;
        }
        if ((st & 3) == SHIM_CHLD_HELD &&
            !__atomic_compare_exchange_n(&shim_chld.state, &st, st & ~3ull, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        /* Held: this call stands for both (the timer has nothing left to flush). Being written
           by another thread at this very moment: this one goes alone. */
        if ((st & 3) == SHIM_CHLD_HELD)
            shim_chld_arm(0);
        errno = saved;
        shim_chld_call(&a, si, uc);
        return;
    }
}

/* sigaction(SIGCHLD, ...) under coalesce_sigchld: see shim_chld_handler(). */
SHIM_COLD int shim_chld_sigaction(const struct sigaction *act, struct sigaction *old,
                                  shim_sigaction_fn next)
{
    struct sigaction prev = shim_chld.act, was;
    int wrapped = shim_chld.wrapped, r;
    if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN &&
        !(act->sa_flags & (SA_RESETHAND | SA_NOCLDWAIT))) {
        struct sigaction mine = *act;
        mine.sa_flags |= SA_SIGINFO;
        mine.sa_sigaction = shim_chld_handler;
        shim_chld.act = *act; /* before ours can run with it */
        r = next(SIGCHLD, &mine, &was);
        if (r == 0)
            shim_chld.wrapped = 1;
        else
            shim_chld.act = prev;
    } else {
        r = next(SIGCHLD, act, &was);
        if (r == 0 && act && wrapped) {
            shim_chld.wrapped = 0; /* a held delivery goes where the program's signal now goes */
            shim_chld_arm(0);
            __atomic_and_fetch(&shim_chld.state, ~3ull, __ATOMIC_ACQ_REL);
        }
    }
    if (r == 0 && old)
        *old = wrapped ? prev : was;
    return r;
}

static int shim_nonblocking(int fd, int flags)
{
    if (flags & MSG_DONTWAIT)
        return 1;
    int saved = errno;
    long fl = syscall(SYS_fcntl, fd, F_GETFL);
    errno = saved;
    return fl >= 0 && (fl & O_NONBLOCK);
}

/*
 * The injector's decision for one call on fd (of kind `kind`) moving *n bytes: 0 to make the
 * call, with *n perhaps cut (counted as `cut`), or the errno to fail with instead. flags: the
 * send/recv flags, 0 for other calls. copy: a call between two descriptors (sendfile...), which
 * a signal may interrupt whatever its destination.
 */
/*
 * Descriptors an epoll instance watches edge-triggered, one bit each. An injected EAGAIN on one
 * of them would be a lie no kernel tells: with bytes still waiting, the program's drain loop
 * stops at it and no new edge ever comes, so a correct edge-triggered program would stall. They
 * get the other faults only (a cut read leaves bytes waiting, which such a loop must drain).
 */
static uint8_t shim_fd_et[SHIM_FD_TABLE / 8];

static bool shim_fd_edge(int fd)
{
    return (unsigned)fd < SHIM_FD_TABLE &&
           (__atomic_load_n(&shim_fd_et[(unsigned)fd / 8], __ATOMIC_RELAXED) >> (fd % 8)) & 1;
}

/* An epoll_ctl() that succeeded: remembers whether fd is now watched edge-triggered. */
uint64_t shim_epoll_noted(int r, int op, int fd, const struct epoll_event *ev)
{
    if (r < 0 || (unsigned)fd >= SHIM_FD_TABLE)
        return 0;
    uint8_t bit = (uint8_t)(1u << (fd % 8));
    if (op != EPOLL_CTL_DEL && ev && (ev->events & EPOLLET))
        __atomic_fetch_or(&shim_fd_et[(unsigned)fd / 8], bit, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&shim_fd_et[(unsigned)fd / 8], (uint8_t)~bit, __ATOMIC_RELAXED);
    return 0;
}

SHIM_COLD int shim_fault(struct iolab_slot *s, int shared, int kind, int fd, int flags, size_t *n,
                         enum iolab_fault cut, int copy)
{
    if (kind == IOLAB_FD_OTHER)
        return 0;
    if ((copy || kind != IOLAB_FD_FILE) && shim_faults.eintr_p &&
        shim_rand() < shim_faults.eintr_p) {
        shim_add_as(shared, &s->fd.faults[IOLAB_FAULT_EINTR], 1);
        return EINTR;
    }
    if (kind == IOLAB_FD_SOCKET && shim_faults.eagain_p && shim_rand() < shim_faults.eagain_p &&
        shim_nonblocking(fd, flags) && !shim_fd_edge(fd)) {
        shim_add_as(shared, &s->fd.faults[IOLAB_FAULT_EAGAIN], 1);
        return EAGAIN;
    }
    if (*n >= 2 && shim_faults.short_p && shim_rand() < shim_faults.short_p) {
        *n = 1 + (size_t)(((uint64_t)shim_rand() * (*n - 1)) >> 32);
        shim_add_as(shared, &s->fd.faults[cut], 1);
    }
    return 0;
}

void shim_faults_fork_begin(void)
{
    shim_lineage_pending = shim_mix(shim_lineage ^ ++shim_forks);
}

void shim_faults_fork_parent(void)
{
    shim_lineage_pending = 0;
}

void shim_faults_fork_child(void)
{
    shim_chld.state &= ~3ull; /* the parent's held SIGCHLD is not the child's to hand over */
    if (shim_lineage_pending) {
        shim_lineage = shim_lineage_pending;
        shim_lineage_pending = 0;
        shim_forks = 0;
        shim_threads_seen = 0;
        shim_faults_rng = 0;
    }
}
