/*
 * The counter page: the one ABI shared by iolab, the counting shim and the demo programs.
 *
 * iolab creates a page (a memfd) for every start of every program of a scenario and hands it to
 * that program alone, as an inherited file descriptor named by IOLAB_COUNTERS_FD. The shim maps
 * it at load time; forked children inherit the mapping, exec'd children map it again from the
 * same descriptor. Every slot of a page is its program's: iolab never reads `prog` to attribute
 * counts (a program writes that field itself), so no program can write another's figures.
 *
 * Version 4 (one page per program start, slots made by their first claimer): version 3 was one
 * page for the whole scenario, handed to every program, with every slot's mutex made by iolab
 * when it created the page, which wrote into every 4 KiB of it. A page per program made that a
 * page's full size resident for each program (8 programs: 33 MB instead of 4 MB), so a slot's
 * mutex is now made by the thread that first claims the slot (`made`), and a page is backed only
 * where slots are used. A shim of another version refuses the page (iolab_page_check).
 *
 * Version 5 adds call sites: each slot keeps, per counted call, where in the program it was
 * made (the return address as an object and an offset into it, struct iolab_sites), and the
 * page header names the objects (struct iolab_object), so that iolab can say which line of the
 * program made how many calls (sandbox/count/README.md, "Call sites").
 *
 * The page is an array of slots. A slot has a single writer (the thread that owns it), so the
 * hot path is a plain load and a relaxed store: no locked instruction and no cache line shared
 * between threads, which is what keeps counting within a few percent of the uncounted throughput
 * (see FACTS.md). Readers (iolab) load the same fields relaxed and tolerate a value that is one
 * call behind.
 *
 * A slot is made once, by the thread that takes it past the high-water mark (next_slot): it makes
 * the owner mutex robust and process-shared, locks it, then release-stores `made`. Every other
 * claimer skips a slot that is not made, so nobody touches a mutex before it exists, and the
 * first claimer always gets the slot it took. (A claimer killed in between leaves one slot that
 * nobody uses.)
 *
 * Slots are reused, and no count is ever lost on the way:
 * - A thread owns its slot by holding the slot's robust, process-shared mutex for its whole life.
 *   However the thread ends (return, pthread_exit, exit, _exit, a signal, SIGKILL, exec), the
 *   kernel marks the mutex "owner died" (the robust futex list), across processes and PID
 *   namespaces alike: no pid is compared and no destructor has to run.
 * - A thread claims, in this order: a slot whose owner died and that has its own (prog, run): it
 *   inherits the slot as it is, counts and all, and keeps adding (nothing moves); a slot never
 *   used (next_slot, the high-water mark, grows by one); a dead slot of another (prog, run),
 *   whose counts it first moves into that pair's RETIRED slot (a dead slot becomes the pair's
 *   RETIRED slot when the pair has none). A RETIRED slot is written by movers only, with locked
 *   adds; no thread owns it.
 * - A move is the one change that takes counts out of a slot. It is bracketed by moves_begun and
 *   moves_done (a seqlock with several writers): a reader that saw moves_done == moves_begun
 *   before its scan and the same moves_begun after it saw no move at all, so it neither missed
 *   nor double-counted one; otherwise it reads again. Moves happen only when the page is full
 *   and the (prog, run) pairs change, and the mover blocks its signals, so only SIGKILL can stop
 *   one half-way; the next claimer of that slot finishes it and counts it in moves_broken.
 * - Only when every slot is owned by a live thread or RETIRED (more live threads than slots, or
 *   more (prog, run) pairs that left dead threads than slots) does a thread write into the
 *   overflow slot with atomic adds; the claim is counted in `overflow_claims`, and iolab says
 *   loudly that counts were lost.
 *
 * Demos publish their own figures (requests, bytes delivered, connections, latency) into the
 * `app` part of the calling thread's slot through iolab_app_self(), a weak symbol the shim
 * defines: without the shim the demos run exactly the same and publish nothing.
 */
#ifndef IOLAB_COUNTERS_H
#define IOLAB_COUNTERS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IOLAB_PAGE_MAGIC   0x65676170626c6f69ull /* "iolbpage" */
#define IOLAB_PAGE_VERSION 5u

/* Environment understood by the shim. */
#define IOLAB_ENV_FD   "IOLAB_COUNTERS_FD" /* descriptor of the counter page */
#define IOLAB_ENV_PROG "IOLAB_PROG"        /* index of the scenario program (0, 1, ...) */
#define IOLAB_ENV_RUN  "IOLAB_RUN"         /* start generation: bumps on every (re)start */
/* Fault injection for one program (see "Fault injection" below): "short=0.25,eintr=0.05,..." */
#define IOLAB_ENV_FAULTS "IOLAB_FAULTS"
/*
 * The shim's path as iolab hands it to iolab-sandbox. The launcher moves it into LD_PRELOAD only
 * for the final exec of the program, so that the launcher's own calls (its forks, setns, waits)
 * are never counted as the program's.
 */
#define IOLAB_ENV_PRELOAD "IOLAB_PRELOAD"
/* The shim's file name: iolab looks for it in /proc/PID/maps to know a process is counted. */
#define IOLAB_SHIM_FILE "libiolab-count.so"

/*
 * Every counted call: X(ID, label, strace_name). The label is what iolab shows: the system
 * call's name as strace prints it, except for fork and pthread_create, which are library calls
 * whose system call (clone, clone3) says less to a learner. Several libc entry points fold into
 * one label, as the kernel sees them: send -> sendto, recv -> recvfrom, open/open64/openat64 ->
 * openat, pread -> pread64, sendfile64 -> sendfile, mmap64 -> mmap, and every _FORTIFY_SOURCE
 * __*_chk variant into its plain call. glibc 2.36 implements select() with the pselect6 system
 * call on x86-64, so "select" and "pselect6" share a strace_name; creat() stays the creat call.
 * IPC: mq_send -> mq_timedsend, mq_receive -> mq_timedreceive, semtimedop -> semop (glibc 2.36
 * makes semop the semtimedop system call on x86-64, hence its strace_name). sem_wait (with
 * sem_timedwait and sem_clockwait) and sem_post are library calls on a shared-memory counter:
 * they enter the kernel (futex) only when a waiter must sleep or be woken, so no system call
 * matches them one for one and their strace_name is "" ("no exact system call"). The page
 * cache's calls: posix_fadvise (and posix_fadvise64) is the fadvise64 system call, labelled by
 * the name a program writes. recvmmsg and sendmmsg count one call however many messages it
 * moves; their bytes are the messages' lengths.
 * recvmsg_rights counts the recvmsg() calls (a part of "recvmsg") that brought at least one
 * descriptor (SCM_RIGHTS): strace prints no such call of its own, hence "".
 * New calls go at the end: the order is the page layout.
 */
#define IOLAB_CALLS(X)                                                                             \
    X(READ, "read", "read")                                                                        \
    X(WRITE, "write", "write")                                                                     \
    X(READV, "readv", "readv")                                                                     \
    X(WRITEV, "writev", "writev")                                                                  \
    X(PREAD64, "pread64", "pread64")                                                               \
    X(PWRITE64, "pwrite64", "pwrite64")                                                            \
    X(PREADV, "preadv", "preadv")                                                                  \
    X(PWRITEV, "pwritev", "pwritev")                                                               \
    X(SENDTO, "sendto", "sendto")                                                                  \
    X(SENDMSG, "sendmsg", "sendmsg")                                                               \
    X(RECVFROM, "recvfrom", "recvfrom")                                                            \
    X(RECVMSG, "recvmsg", "recvmsg")                                                               \
    X(SENDFILE, "sendfile", "sendfile")                                                            \
    X(SPLICE, "splice", "splice")                                                                  \
    X(TEE, "tee", "tee")                                                                           \
    X(VMSPLICE, "vmsplice", "vmsplice")                                                            \
    X(COPY_FILE_RANGE, "copy_file_range", "copy_file_range")                                       \
    X(MMAP, "mmap", "mmap")                                                                        \
    X(MUNMAP, "munmap", "munmap")                                                                  \
    X(SOCKET, "socket", "socket")                                                                  \
    X(ACCEPT, "accept", "accept")                                                                  \
    X(ACCEPT4, "accept4", "accept4")                                                               \
    X(CONNECT, "connect", "connect")                                                               \
    X(EPOLL_WAIT, "epoll_wait", "epoll_wait")                                                      \
    X(EPOLL_PWAIT, "epoll_pwait", "epoll_pwait")                                                   \
    X(EPOLL_CTL, "epoll_ctl", "epoll_ctl")                                                         \
    X(POLL, "poll", "poll")                                                                        \
    X(PPOLL, "ppoll", "ppoll")                                                                     \
    X(SELECT, "select", "pselect6")                                                                \
    X(PSELECT6, "pselect6", "pselect6")                                                            \
    X(FORK, "fork", "clone")                                                                       \
    X(PTHREAD_CREATE, "pthread_create", "clone3")                                                  \
    X(OPENAT, "openat", "openat")                                                                  \
    X(CLOSE, "close", "close")                                                                     \
    X(FSYNC, "fsync", "fsync")                                                                     \
    X(FDATASYNC, "fdatasync", "fdatasync")                                                         \
    X(CREAT, "creat", "creat")                                                                     \
    X(MQ_TIMEDSEND, "mq_timedsend", "mq_timedsend")                                                \
    X(MQ_TIMEDRECEIVE, "mq_timedreceive", "mq_timedreceive")                                       \
    X(MSGSND, "msgsnd", "msgsnd")                                                                  \
    X(MSGRCV, "msgrcv", "msgrcv")                                                                  \
    X(SEMOP, "semop", "semtimedop")                                                                \
    X(SHMAT, "shmat", "shmat")                                                                     \
    X(SHMDT, "shmdt", "shmdt")                                                                     \
    X(SEM_WAIT, "sem_wait", "")                                                                    \
    X(SEM_POST, "sem_post", "")                                                                    \
    X(MINCORE, "mincore", "mincore")                                                               \
    X(POSIX_FADVISE, "posix_fadvise", "fadvise64")                                                 \
    X(READAHEAD, "readahead", "readahead")                                                         \
    X(RECVMMSG, "recvmmsg", "recvmmsg")                                                            \
    X(SENDMMSG, "sendmmsg", "sendmmsg")                                                            \
    X(RECVMSG_RIGHTS, "recvmsg_rights", "")

enum iolab_call_id {
#define IOLAB_X_ENUM(id, label, strace) IOLAB_CALL_##id,
    IOLAB_CALLS(IOLAB_X_ENUM)
#undef IOLAB_X_ENUM
        IOLAB_NCALLS
};

/* Room in every slot; IOLAB_NCALLS may grow up to this without changing the layout. */
#define IOLAB_MAX_CALLS 64

struct iolab_call_info {
    const char *label;       /* shown on screen and in `iolab run --json` */
    const char *strace_name; /* the system call strace -c reports for it on x86-64; "" for a
                                library call that makes a system call only sometimes */
};

static const struct iolab_call_info iolab_call_info[IOLAB_NCALLS] = {
/* Positional, in enum order, so that C++ tests can include this header too. */
#define IOLAB_X_INFO(id, label_, strace_) {label_, strace_},
    IOLAB_CALLS(IOLAB_X_INFO)
#undef IOLAB_X_INFO
};

struct iolab_call {
    uint64_t count; /* calls made, failed ones included; in a slot, for a call split by kind of
                       descriptor, only those not counted by kind: see iolab_slot_calls() */
    uint64_t bytes; /* bytes moved by the calls that succeeded (length for mmap/munmap) */
    uint64_t ns;    /* wall time spent inside the calls, CLOCK_MONOTONIC: exact for the calls
                       iolab_call_time_exact() names, else estimated from a sample (below) */
};

/*
 * Time inside a call costs two clock reads (about 19 ns here, more than the rest of the counting
 * path), so the shim times every call only of the calls that wait, whose time is what a lesson
 * shows (epoll_wait, poll, select, accept, connect, the IPC receives and semaphores, fork,
 * pthread_create, fsync), and of the calls that move a whole file in one call (sendfile, splice,
 * tee, copy_file_range: few calls, each long, which a sample would mostly miss). Every other call
 * is counted exactly, bytes too, but timed only on a sample: each thread times one call, then skips
 * a random 0 to 30 (on average one call in 16 is timed, and no period in a program's calls can line
 * up with the sampling), and adds the timed call's time multiplied by the calls it stands for. The
 * ns of those calls is an unbiased estimate, close over many calls, rough over a few: iolab labels
 * it "sampled".
 */
/* Kept as written: clang-format 14 reflows a list of X() this long differently on every run. */
// clang-format off
#define IOLAB_TIME_EXACT(X)                                                                        \
    X(EPOLL_WAIT) X(EPOLL_PWAIT) X(POLL) X(PPOLL) X(SELECT) X(PSELECT6) X(ACCEPT) X(ACCEPT4)      \
    X(CONNECT) X(FORK) X(PTHREAD_CREATE) X(FSYNC) X(FDATASYNC) X(MQ_TIMEDRECEIVE) X(MSGRCV)       \
    X(SEMOP) X(SEM_WAIT) X(SENDFILE) X(SPLICE) X(TEE) X(COPY_FILE_RANGE) X(MINCORE)               \
    X(POSIX_FADVISE) X(READAHEAD) X(RECVMMSG) X(SENDMMSG)
// clang-format on

/* 1 when the ns of call `call` is measured on every call, 0 when it is sampled. */
static inline int iolab_call_time_exact(unsigned call)
{
    static const unsigned ids[] = {
#define IOLAB_X_EXACTID(id) IOLAB_CALL_##id,
        IOLAB_TIME_EXACT(IOLAB_X_EXACTID)
#undef IOLAB_X_EXACTID
    };
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] == call)
            return 1;
    return 0;
}

/*
 * Latency histogram: log-linear, IOLAB_HIST_SUB buckets per power of two of nanoseconds, so a
 * percentile read from it is within 1/IOLAB_HIST_SUB (about 19%) of the true value, from
 * IOLAB_HIST_MIN_NS up to 2^(IOLAB_HIST_MIN_SHIFT + IOLAB_HIST_OCTAVES) ns (about 4.6 min).
 */
#define IOLAB_HIST_MIN_SHIFT 8 /* 256 ns: below the loopback round trip */
#define IOLAB_HIST_OCTAVES   30
#define IOLAB_HIST_SUB_SHIFT 2
#define IOLAB_HIST_SUB       (1u << IOLAB_HIST_SUB_SHIFT)
#define IOLAB_HIST_BUCKETS   (IOLAB_HIST_OCTAVES * IOLAB_HIST_SUB + 1)

/* The calls whose failure a demo publishes (app.failed), and the causes it tells apart. */
#define IOLAB_FAIL_CALLS(X)                                                                        \
    X(ACCEPT, "accept")                                                                            \
    X(FORK, "fork")                                                                                \
    X(THREAD, "pthread_create")                                                                    \
    X(CONNECT, "socket")
enum iolab_fail_call {
#define IOLAB_X_FAIL(id, name) IOLAB_FAIL_##id,
    IOLAB_FAIL_CALLS(IOLAB_X_FAIL)
#undef IOLAB_X_FAIL
        IOLAB_FAIL_NCALLS
};
/* Why: each cause names the rlimit that (most likely) stood in the way, if any. */
#define IOLAB_FAIL_CAUSES(X)                                                                       \
    X(OPEN_FILES, "open files")     /* EMFILE: the process's RLIMIT_NOFILE */                      \
    X(SYSTEM_FILES, "system files") /* ENFILE: the whole system's file table */                    \
    X(PROCESSES, "processes")       /* EAGAIN from fork/clone: RLIMIT_NPROC (threads count) */     \
    X(MEMORY, "address space") /* ENOMEM, or a thread stack that cannot be mapped: RLIMIT_AS */    \
    X(OTHER, "other")
enum iolab_fail_cause {
#define IOLAB_X_CAUSE(id, name) IOLAB_CAUSE_##id,
    IOLAB_FAIL_CAUSES(IOLAB_X_CAUSE)
#undef IOLAB_X_CAUSE
        IOLAB_FAIL_NCAUSES
};

static const char *const iolab_fail_call_name[IOLAB_FAIL_NCALLS] = {
#define IOLAB_X_FAIL(id, name) name,
    IOLAB_FAIL_CALLS(IOLAB_X_FAIL)
#undef IOLAB_X_FAIL
};
static const char *const iolab_fail_cause_name[IOLAB_FAIL_NCAUSES] = {
#define IOLAB_X_CAUSE(id, name) name,
    IOLAB_FAIL_CAUSES(IOLAB_X_CAUSE)
#undef IOLAB_X_CAUSE
};

struct iolab_app {
    uint64_t requests;     /* requests completed (client: replies received; server: answered) */
    uint64_t bytes;        /* payload bytes delivered to the peer or received from it */
    uint64_t conns_opened; /* connections accepted (server) or established (client) */
    uint64_t conns_closed; /* connections finished, by either side */
    uint64_t errors;       /* failed requests: resets, short replies, verification failures */
    uint64_t hist_count;   /* samples in hist[] */
    uint64_t hist[IOLAB_HIST_BUCKETS]; /* request latency, see iolab_hist_bucket() */
    /*
     * What is still pending: gauges, rewritten (not added to) by the one writer about ten times
     * a second and once more as it ends, so that the last values say who was still waiting. A
     * reader sums them over the slots of a program's newest run only (a restarted client's old
     * slots keep their last values).
     */
    uint64_t in_flight;           /* requests sent (or connections asked for), no answer yet */
    uint64_t in_flight_oldest_ns; /* how long the oldest of them has waited */
    uint64_t in_flight_hist[IOLAB_HIST_BUCKETS]; /* how long each has waited so far */
    uint64_t waiting; /* of those, the ones already out at the previous update (100 ms or more
                         ago): clients waiting their turn, not a round trip under way */
    /* Calls that failed and cost a connection, by call and cause (a limit reached, most of the
       time): failed[IOLAB_FAIL_FORK][IOLAB_CAUSE_PROCESSES] is "fork failed: no process left". */
    uint64_t failed[IOLAB_FAIL_NCALLS][IOLAB_FAIL_NCAUSES];
    uint64_t shed; /* connections accepted only to be closed at once: a limit left no room */
    /* io_uring, as the demo itself counts it (the shim cannot see inside the ring): */
    uint64_t uring_submissions; /* submission queue entries handed to the kernel */
    uint64_t uring_completions; /* completion queue entries the program reaped */
    uint64_t uring_enters;      /* io_uring_enter() calls that submitted or waited */
};

/*
 * Kinds of descriptor. The shim keeps a byte per descriptor number, set by the calls that make
 * one (open, socket, accept, pipe, dup, ...) and cleared by close; a descriptor it has not seen
 * made (inherited, made inside libc, passed over a Unix socket) is classified once by fstat().
 * A memfd is a file (a regular file to the kernel); "other" is everything else: character
 * devices and terminals, epoll, eventfd, timerfd, signalfd, and descriptors that are not open.
 */
#define IOLAB_FD_KINDS(X)                                                                          \
    X(FILE, "file")                                                                                \
    X(SOCKET, "socket")                                                                            \
    X(PIPE, "pipe")                                                                                \
    X(OTHER, "other")

enum iolab_fd_kind {
#define IOLAB_X_KIND(id, name) IOLAB_FD_##id,
    IOLAB_FD_KINDS(IOLAB_X_KIND)
#undef IOLAB_X_KIND
        IOLAB_NFDKINDS
};

static const char *const iolab_fd_kind_name[IOLAB_NFDKINDS] = {
#define IOLAB_X_KNAME(id, name) name,
    IOLAB_FD_KINDS(IOLAB_X_KNAME)
#undef IOLAB_X_KNAME
};

/*
 * Calls counted per kind of the one descriptor they move data through (the read and write
 * families), and calls counted per pair of kinds, source then destination (sendfile(out, in)
 * counts as in -> out, like splice and copy_file_range). Each list names IOLAB_CALLS ids; its
 * order is the page layout.
 */
#define IOLAB_SPLIT_ONE(X)                                                                         \
    X(READ)                                                                                        \
    X(WRITE)                                                                                       \
    X(READV)                                                                                       \
    X(WRITEV)                                                                                      \
    X(PREAD64) X(PWRITE64) X(PREADV) X(PWRITEV) X(SENDTO) X(SENDMSG) X(RECVFROM) X(RECVMSG)
#define IOLAB_SPLIT_TWO(X) X(SENDFILE) X(SPLICE) X(COPY_FILE_RANGE)

enum iolab_split_one {
#define IOLAB_X_ONE(id) IOLAB_ONE_##id,
    IOLAB_SPLIT_ONE(IOLAB_X_ONE)
#undef IOLAB_X_ONE
        IOLAB_NSPLIT_ONE
};
enum iolab_split_two {
#define IOLAB_X_TWO(id) IOLAB_TWO_##id,
    IOLAB_SPLIT_TWO(IOLAB_X_TWO)
#undef IOLAB_X_TWO
        IOLAB_NSPLIT_TWO
};

/* The split index of a call, or -1 when its calls are not split that way. */
static inline int iolab_split_one_index(unsigned call)
{
    static const unsigned ids[] = {
#define IOLAB_X_ONEID(id) IOLAB_CALL_##id,
        IOLAB_SPLIT_ONE(IOLAB_X_ONEID)
#undef IOLAB_X_ONEID
    };
    for (int i = 0; i < IOLAB_NSPLIT_ONE; i++)
        if (ids[i] == call)
            return i;
    return -1;
}

static inline int iolab_split_two_index(unsigned call)
{
    static const unsigned ids[] = {
#define IOLAB_X_TWOID(id) IOLAB_CALL_##id,
        IOLAB_SPLIT_TWO(IOLAB_X_TWOID)
#undef IOLAB_X_TWOID
    };
    for (int i = 0; i < IOLAB_NSPLIT_TWO; i++)
        if (ids[i] == call)
            return i;
    return -1;
}

/*
 * Fault injection (IOLAB_FAULTS, for the program under test): what the shim did instead of, or
 * to, the program's calls. short_*: a read/write-family call whose length was cut (the call
 * was made with the shorter length); eintr: a call that failed with EINTR without being made;
 * eagain: a call on a non-blocking socket that failed with EAGAIN without being made.
 */
#define IOLAB_FAULT_KINDS(X)                                                                       \
    X(SHORT_READ, "short_reads")                                                                   \
    X(SHORT_WRITE, "short_writes")                                                                 \
    X(EINTR, "eintr")                                                                              \
    X(EAGAIN, "eagain")

enum iolab_fault {
#define IOLAB_X_FAULT(id, name) IOLAB_FAULT_##id,
    IOLAB_FAULT_KINDS(IOLAB_X_FAULT)
#undef IOLAB_X_FAULT
        IOLAB_NFAULTS
};

static const char *const iolab_fault_name[IOLAB_NFAULTS] = {
#define IOLAB_X_FNAME(id, name) name,
    IOLAB_FAULT_KINDS(IOLAB_X_FNAME)
#undef IOLAB_X_FNAME
};

/* A slot's counts by kind of descriptor and its injected faults; every field a uint64_t. */
struct iolab_fdsplit {
    uint64_t one[IOLAB_NSPLIT_ONE][IOLAB_NFDKINDS];
    uint64_t two[IOLAB_NSPLIT_TWO][IOLAB_NFDKINDS][IOLAB_NFDKINDS]; /* [source][destination] */
    uint64_t faults[IOLAB_NFAULTS];
};

/*
 * The count of call `call` on descriptors of kind `kind` in s: for a call split by its one
 * descriptor, that descriptor's kind; for a call moving data between two (sendfile, splice,
 * copy_file_range), the source's kind, or the exact pair when `to` is a kind (-1: any
 * destination). 0 for a call that is not split.
 */
static inline uint64_t iolab_fdsplit_count(const struct iolab_fdsplit *s, unsigned call, int kind,
                                           int to)
{
    if (kind < 0 || kind >= IOLAB_NFDKINDS || to >= IOLAB_NFDKINDS)
        return 0;
    int i = iolab_split_one_index(call);
    if (i >= 0)
        return s->one[i][kind];
    i = iolab_split_two_index(call);
    if (i < 0)
        return 0;
    if (to >= 0)
        return s->two[i][kind][to];
    uint64_t n = 0;
    for (int k = 0; k < IOLAB_NFDKINDS; k++)
        n += s->two[i][kind][k];
    return n;
}

/* A slot's state; a reader counts every slot that is neither FREE nor beyond next_slot. */
enum iolab_slot_state {
    IOLAB_SLOT_FREE = 0,    /* never used: counts are zero */
    IOLAB_SLOT_OWNED = 1,   /* a thread's, live or dead (its mutex says which) */
    IOLAB_SLOT_RETIRED = 2, /* the moved counts of dead threads of one (prog, run) */
    IOLAB_SLOT_MOVING = 3,  /* its counts are being moved into a RETIRED slot */
};

/*
 * Call sites (version 5). A site is where a counted call was made: the return address of the
 * call into the shim, as an offset into the object it lies in (the executable or a library:
 * iolab_object), so that it means the same in every process of the program whatever ASLR did,
 * and after the process is gone. Each slot has room for IOLAB_SITES sites; a call from a site
 * beyond them, or from an object the page has no room to name, is counted in other[call]. For
 * every call with sites (all but recvmsg_rights, a part of recvmsg, and the calls counted in
 * the overflow slot), the counts of its sites plus other[call] are its count.
 *
 * The owner writes a new site's object, offset and count, then release-stores call (ID + 1; 0
 * is "not ready"), then n. A mover (a RETIRED slot, several movers) takes an entry with an
 * atomic add on n and adds counts with locked adds, so the same (object, offset, call) may
 * appear twice in a RETIRED slot: a reader merges sites by that key.
 */
#define IOLAB_SITES       64
#define IOLAB_OBJECTS     16
#define IOLAB_OBJECT_NAME 112

struct iolab_site {
    uint64_t offset; /* return address minus the object's load bias: a link-time address */
    uint32_t object; /* index into the page's objects[] */
    uint32_t call;   /* enum iolab_call_id + 1; 0 while the entry is not ready */
    uint64_t count;  /* calls made from here, failed ones included */
};

struct iolab_sites {
    uint32_t n;   /* entries taken (may exceed IOLAB_SITES in a RETIRED slot: the rest went to
                     other[]); readers look at the first min(n, IOLAB_SITES) with call != 0 */
    uint32_t pad; /* keeps site[] 8-byte aligned */
    struct iolab_site site[IOLAB_SITES];
    uint64_t other[IOLAB_MAX_CALLS]; /* calls of each call made from sites that found no room */
};

/* An object named by a page: written once by the first process that needs it, never again. */
enum iolab_object_state {
    IOLAB_OBJECT_FREE = 0,
    IOLAB_OBJECT_WRITING = 1, /* taken by a writer (compare-and-swap from FREE) */
    IOLAB_OBJECT_READY = 2,   /* name and exe are written (release) */
};

struct iolab_object {
    uint32_t state;               /* enum iolab_object_state */
    uint32_t exe;                 /* 1: the executable of the process that named it */
    char name[IOLAB_OBJECT_NAME]; /* its path as that process saw it, NUL-terminated (cut) */
};

struct iolab_slot {
    uint32_t state; /* enum iolab_slot_state: written last, with release order, by the claimer */
    uint32_t prog;  /* IOLAB_PROG of the process, UINT32_MAX when it was not set */
    uint32_t run;   /* IOLAB_RUN of the process */
    int32_t pid;    /* getpid() of the latest owner as it sees it (namespace-local in a jail) */
    int32_t tid;    /* gettid() likewise */
    uint32_t made;  /* 1 once `owner` is a robust mutex (v4): release-stored by the slot's first
                       claimer, which makes it (iolab_slot_make) and holds it before storing */
    pthread_mutex_t owner; /* robust, process-shared; held by the owning thread while it lives */
    struct iolab_call calls[IOLAB_MAX_CALLS];
    struct iolab_fdsplit fd; /* per kind of descriptor (v3); between calls and app: one run of
                                64-bit counters from calls to the end of app */
    struct iolab_app app;
    struct iolab_sites sites; /* v5: where the calls were made (above); after the counters */
};

struct iolab_page {
    uint64_t magic;           /* IOLAB_PAGE_MAGIC */
    uint32_t version;         /* IOLAB_PAGE_VERSION */
    uint32_t header_size;     /* offsetof(struct iolab_page, slots) */
    uint32_t slot_size;       /* sizeof(struct iolab_slot) */
    uint32_t nslots;          /* slots in the page, the overflow slot included */
    uint32_t ncalls;          /* IOLAB_NCALLS of the writer that created it */
    uint32_t next_slot;       /* high-water mark: slots [0, next_slot) have been claimed once */
    uint32_t overflow_claims; /* threads that found every slot live and used the overflow slot */
    uint32_t moves_begun;     /* moves into a RETIRED slot begun (seqlock, see above) */
    uint32_t moves_done;      /* moves finished: equal to moves_begun when none is under way */
    uint32_t moves_broken;    /* moves whose mover was killed half-way: counts may be off */
    uint64_t reserved[3];
    struct iolab_object objects[IOLAB_OBJECTS]; /* v5: the objects call sites lie in */
    struct iolab_slot slots[];                  /* slots[nslots - 1] is the overflow slot */
};

static inline size_t iolab_page_size(uint32_t nslots)
{
    return offsetof(struct iolab_page, slots) + (size_t)nslots * sizeof(struct iolab_slot);
}

/* The histogram bucket of a latency: 0 holds everything below IOLAB_HIST_MIN_NS. */
static inline unsigned iolab_hist_bucket(uint64_t ns)
{
    if (ns < (1ull << IOLAB_HIST_MIN_SHIFT))
        return 0;
    unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
    unsigned octave = msb - IOLAB_HIST_MIN_SHIFT;
    if (octave >= IOLAB_HIST_OCTAVES)
        return IOLAB_HIST_BUCKETS - 1;
    unsigned sub = (unsigned)(ns >> (msb - IOLAB_HIST_SUB_SHIFT)) & (IOLAB_HIST_SUB - 1);
    return 1 + octave * IOLAB_HIST_SUB + sub;
}

/* The smallest latency that falls in bucket b. */
static inline uint64_t iolab_hist_lower_ns(unsigned b)
{
    if (b == 0)
        return 0;
    unsigned octave = (b - 1) / IOLAB_HIST_SUB, sub = (b - 1) % IOLAB_HIST_SUB;
    uint64_t base = 1ull << (octave + IOLAB_HIST_MIN_SHIFT);
    return base + sub * (base >> IOLAB_HIST_SUB_SHIFT);
}

/* Single-writer updates: relaxed stores keep readers from ever seeing a torn value. */
static inline void iolab_add(uint64_t *field, uint64_t v)
{
    __atomic_store_n(field, *field + v, __ATOMIC_RELAXED);
}

static inline uint64_t iolab_load(const uint64_t *field)
{
    return __atomic_load_n(field, __ATOMIC_RELAXED);
}

/*
 * The calls of `call` counted by kind of descriptor in f (0 for a call not split by kind). The
 * shim counts a call that is split (IOLAB_SPLIT_ONE, IOLAB_SPLIT_TWO) in its kind's counter
 * only, one add per call, so that a call's count and its kinds always agree: in a snapshot
 * taken between two of a thread's adds, and after a thread killed in the middle of a call.
 * A slot's calls[call].count holds the calls counted without a kind (all of them for the other
 * calls): the calls are the two together (iolab_slot_calls; the app's tally adds them).
 */
static inline uint64_t iolab_fdsplit_total(const struct iolab_fdsplit *f, unsigned call)
{
    uint64_t n = 0;
    int i = iolab_split_one_index(call);
    if (i >= 0)
        for (int k = 0; k < IOLAB_NFDKINDS; k++)
            n += iolab_load(&f->one[i][k]);
    i = iolab_split_two_index(call);
    if (i >= 0)
        for (int k = 0; k < IOLAB_NFDKINDS; k++)
            for (int j = 0; j < IOLAB_NFDKINDS; j++)
                n += iolab_load(&f->two[i][k][j]);
    return n;
}

static inline uint64_t iolab_slot_calls(const struct iolab_slot *s, unsigned call)
{
    return iolab_load(&s->calls[call].count) + iolab_fdsplit_total(&s->fd, call);
}

/*
 * The calling thread's figures, or NULL when the shim is not loaded or the page is absent.
 * Defined by the shim; weak here so that demos run unchanged without it. A thread that found
 * every slot live gets NULL too: the overflow slot is shared, and its app figures would race.
 */
struct iolab_app *iolab_app_self(void) __attribute__((weak));

static inline struct iolab_app *iolab_app(void)
{
    return iolab_app_self ? iolab_app_self() : (struct iolab_app *)0;
}

static inline void iolab_app_latency(struct iolab_app *a, uint64_t ns)
{
    if (!a)
        return;
    iolab_add(&a->hist[iolab_hist_bucket(ns)], 1);
    iolab_add(&a->hist_count, 1);
}

#ifdef __cplusplus
}
#endif
#endif
