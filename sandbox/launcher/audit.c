/*
 * audit: the kernel's count of the calls a graded run's checks read (audit.h).
 */
#include "audit.h"

#include "iolab_audit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define AUDIT_NATIVE_ARCH AUDIT_ARCH_X86_64
#define AUDIT_X32_BIT     0x40000000u /* x32 numbers: the same calls by another number */
#elif defined(__aarch64__)
#define AUDIT_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define AUDIT_NATIVE_ARCH AUDIT_ARCH_RISCV64
#endif

/* The system calls of each label. A label's own calls first; "read" and "write" then take the
   rest of their family (pread64, readv, ...) unless a check names that call itself: the read
   check "no read() of the file" means any read of it, and a raw pread64 is a read. */
#define AUDIT_MAX_NRS 6
struct audit_calls {
    unsigned id;
    long own[AUDIT_MAX_NRS];    /* -1 ends */
    long family[AUDIT_MAX_NRS]; /* -1 ends */
};

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif
#ifdef SYS_select
#define AUDIT_SELECT SYS_select
#else
#define AUDIT_SELECT -1
#endif

static const struct audit_calls audit_table[] = {
    {IOLAB_CALL_READ, {SYS_read, -1}, {SYS_pread64, SYS_readv, SYS_preadv, SYS_preadv2, -1}},
    {IOLAB_CALL_WRITE, {SYS_write, -1}, {SYS_pwrite64, SYS_writev, SYS_pwritev, SYS_pwritev2, -1}},
    {IOLAB_CALL_READV, {SYS_readv, -1}, {-1}},
    {IOLAB_CALL_WRITEV, {SYS_writev, -1}, {-1}},
    {IOLAB_CALL_PREAD64, {SYS_pread64, -1}, {-1}},
    {IOLAB_CALL_PWRITE64, {SYS_pwrite64, -1}, {-1}},
    {IOLAB_CALL_PREADV, {SYS_preadv, SYS_preadv2, -1}, {-1}},
    {IOLAB_CALL_PWRITEV, {SYS_pwritev, SYS_pwritev2, -1}, {-1}},
    {IOLAB_CALL_SENDTO, {SYS_sendto, -1}, {-1}},
    {IOLAB_CALL_SENDMSG, {SYS_sendmsg, -1}, {-1}},
    {IOLAB_CALL_RECVFROM, {SYS_recvfrom, -1}, {-1}},
    {IOLAB_CALL_RECVMSG, {SYS_recvmsg, -1}, {-1}},
    {IOLAB_CALL_SENDFILE, {SYS_sendfile, -1}, {-1}},
    {IOLAB_CALL_SPLICE, {SYS_splice, -1}, {-1}},
    {IOLAB_CALL_TEE, {SYS_tee, -1}, {-1}},
    {IOLAB_CALL_VMSPLICE, {SYS_vmsplice, -1}, {-1}},
    {IOLAB_CALL_COPY_FILE_RANGE, {SYS_copy_file_range, -1}, {-1}},
    {IOLAB_CALL_MMAP, {SYS_mmap, -1}, {-1}},
    {IOLAB_CALL_MUNMAP, {SYS_munmap, -1}, {-1}},
    {IOLAB_CALL_SOCKET, {SYS_socket, -1}, {-1}},
    {IOLAB_CALL_ACCEPT, {SYS_accept, -1}, {-1}},
    {IOLAB_CALL_ACCEPT4, {SYS_accept4, -1}, {-1}},
    {IOLAB_CALL_CONNECT, {SYS_connect, -1}, {-1}},
#ifdef SYS_epoll_wait
    {IOLAB_CALL_EPOLL_WAIT, {SYS_epoll_wait, -1}, {-1}},
#endif
    {IOLAB_CALL_EPOLL_PWAIT, {SYS_epoll_pwait, SYS_epoll_pwait2, -1}, {-1}},
    {IOLAB_CALL_EPOLL_CTL, {SYS_epoll_ctl, -1}, {-1}},
#ifdef SYS_poll
    {IOLAB_CALL_POLL, {SYS_poll, -1}, {-1}},
#endif
    {IOLAB_CALL_PPOLL, {SYS_ppoll, -1}, {-1}},
    {IOLAB_CALL_SELECT, {AUDIT_SELECT, -1}, {SYS_pselect6, -1}},
    {IOLAB_CALL_PSELECT6, {SYS_pselect6, -1}, {-1}},
#if defined(SYS_fork) && defined(SYS_vfork)
    {IOLAB_CALL_FORK, {SYS_clone, SYS_fork, SYS_vfork, -1}, {-1}},
#else
    {IOLAB_CALL_FORK, {SYS_clone, -1}, {-1}},
#endif
    {IOLAB_CALL_PTHREAD_CREATE, {SYS_clone3, -1}, {-1}},
#ifdef SYS_open
    {IOLAB_CALL_OPENAT, {SYS_openat, SYS_open, -1}, {-1}},
#else
    {IOLAB_CALL_OPENAT, {SYS_openat, -1}, {-1}},
#endif
    {IOLAB_CALL_CLOSE, {SYS_close, -1}, {-1}},
    {IOLAB_CALL_FSYNC, {SYS_fsync, -1}, {-1}},
    {IOLAB_CALL_FDATASYNC, {SYS_fdatasync, -1}, {-1}},
#ifdef SYS_creat
    {IOLAB_CALL_CREAT, {SYS_creat, -1}, {-1}},
#endif
    {IOLAB_CALL_MQ_TIMEDSEND, {SYS_mq_timedsend, -1}, {-1}},
    {IOLAB_CALL_MQ_TIMEDRECEIVE, {SYS_mq_timedreceive, -1}, {-1}},
    {IOLAB_CALL_MSGSND, {SYS_msgsnd, -1}, {-1}},
    {IOLAB_CALL_MSGRCV, {SYS_msgrcv, -1}, {-1}},
#ifdef SYS_semop
    {IOLAB_CALL_SEMOP, {SYS_semtimedop, SYS_semop, -1}, {-1}},
#else
    {IOLAB_CALL_SEMOP, {SYS_semtimedop, -1}, {-1}},
#endif
    {IOLAB_CALL_SHMAT, {SYS_shmat, -1}, {-1}},
    {IOLAB_CALL_SHMDT, {SYS_shmdt, -1}, {-1}},
    {IOLAB_CALL_MINCORE, {SYS_mincore, -1}, {-1}},
    {IOLAB_CALL_POSIX_FADVISE, {SYS_fadvise64, -1}, {-1}},
    {IOLAB_CALL_READAHEAD, {SYS_readahead, -1}, {-1}},
    {IOLAB_CALL_RECVMMSG, {SYS_recvmmsg, -1}, {-1}},
    {IOLAB_CALL_SENDMMSG, {SYS_sendmmsg, -1}, {-1}},
};

static const struct audit_calls *audit_find(unsigned id)
{
    for (size_t i = 0; i < sizeof audit_table / sizeof *audit_table; i++)
        if (audit_table[i].id == id)
            return &audit_table[i];
    return NULL;
}

/* Adds nr under id unless it is traced already (a label's own calls come first). */
static int audit_add(struct cfg *c, long nr, unsigned id)
{
    if (nr < 0)
        return 0;
    for (int i = 0; i < c->audit_n; i++)
        if (c->audit_nr[i] == nr)
            return 0;
    if (c->audit_n == CFG_MAX_AUDIT)
        return -E2BIG;
    c->audit_nr[c->audit_n] = nr;
    c->audit_id[c->audit_n++] = (uint16_t)id;
    return 0;
}

int audit_parse(struct cfg *c, const char *labels)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", labels) >= (int)sizeof buf)
        return -EINVAL;
    unsigned ids[IOLAB_NCALLS];
    size_t n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        unsigned id = IOLAB_NCALLS;
        for (unsigned k = 0; k < IOLAB_NCALLS; k++)
            if (!strcmp(iolab_call_info[k].label, w))
                id = k;
        if (id == IOLAB_NCALLS || !audit_find(id) || n == IOLAB_NCALLS)
            return -EINVAL;
        ids[n++] = id;
    }
    c->audit_n = 0;
    c->audit_ids = 0;
    for (size_t i = 0; i < n; i++) {
        const struct audit_calls *t = audit_find(ids[i]);
        for (int k = 0; k < AUDIT_MAX_NRS && t->own[k] != -1; k++)
            if (audit_add(c, t->own[k], ids[i]) < 0)
                return -EINVAL;
        c->audit_ids |= 1ULL << ids[i];
    }
    for (size_t i = 0; i < n; i++) {
        const struct audit_calls *t = audit_find(ids[i]);
        for (int k = 0; k < AUDIT_MAX_NRS && t->family[k] != -1; k++)
            if (audit_add(c, t->family[k], ids[i]) < 0)
                return -EINVAL;
    }
    c->audit = n > 0;
    return 0;
}

int audit_map(struct cfg *c, int fd)
{
    void *p =
        mmap(NULL, sizeof(struct iolab_audit_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (err)
        return -err;
    struct iolab_audit_page *pg = p;
    if (pg->magic != IOLAB_AUDIT_MAGIC) {
        munmap(p, sizeof *pg);
        return -EINVAL;
    }
    c->audit_page = pg;
    return 0;
}

/* ---- the filter ---- */

/* In the program's process: the tracer took it, so the filter may stop its calls. */
static bool audit_traced;

#ifdef AUDIT_NATIVE_ARCH
int audit_filter_apply(const struct cfg *c)
{
    if (!audit_traced)
        return 0;
    /* arch check, x32 check, one compare per number, allow, trace (its data: the label). Each
       compare jumps to its own return, so the data says the label without a second look. */
    struct sock_filter f[8 + 2 * CFG_MAX_AUDIT];
    int n = 0;
    f[n++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_NATIVE_ARCH, 1, 0);
    /* Another architecture's numbers would be misread: the terminal filter already kills a
       foreign architecture; this one refuses to miscount it too. */
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[n++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef AUDIT_X32_BIT
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, AUDIT_X32_BIT, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
    for (int i = 0; i < c->audit_n; i++) {
        f[n++] =
            (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)c->audit_nr[i], 0, 1);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | c->audit_id[i]);
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
        return -errno;
    return 0;
}
#else
int audit_filter_apply(const struct cfg *c)
{
    (void)c;
    return -EOPNOTSUPP;
}
#endif

/* ---- the tracer ---- */

static void audit_refuse(struct iolab_audit_page *pg, const char *what, int err)
{
    snprintf(pg->why, sizeof pg->why, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
    __atomic_store_n(&pg->state, IOLAB_AUDIT_REFUSED, __ATOMIC_RELEASE);
}

#define AUDIT_PIDFD_THREAD O_EXCL /* linux/pidfd.h's PIDFD_THREAD, Linux 6.9 */

/* A traced process: its pidfd (for the kind of a descriptor) and the call it is inside. */
#define AUDIT_TRACEES 1024
struct audit_tracee {
    pid_t pid;    /* 0: free */
    int pidfd;    /* -1 until needed */
    int pending;  /* the label of the call it is in, waiting for its exit; -1 none */
    bool stopped; /* its first stop (SIGSTOP of a new tracee) was seen */
    /* After an exec, until its first traced call from elsewhere: the dynamic loader's code
       (from AT_BASE), whose reads of the libraries are the start-up's, not the program's. */
    bool startup;
    unsigned long ld_lo, ld_hi;
};
static struct audit_tracee audit_tracees[AUDIT_TRACEES];
static volatile sig_atomic_t audit_main_pid;

static struct audit_tracee *audit_tracee(pid_t pid, bool make)
{
    struct audit_tracee *free_ = NULL;
    for (size_t i = 0; i < AUDIT_TRACEES; i++) {
        size_t k = ((size_t)pid + i) % AUDIT_TRACEES;
        if (audit_tracees[k].pid == pid)
            return &audit_tracees[k];
        if (!audit_tracees[k].pid && !free_) {
            free_ = &audit_tracees[k];
            if (!make)
                return NULL;
            break;
        }
    }
    if (!free_)
        return NULL;
    *free_ = (struct audit_tracee){.pid = pid, .pidfd = -1, .pending = -1};
    return free_;
}

static void audit_forget(pid_t pid)
{
    struct audit_tracee *t = audit_tracee(pid, false);
    if (!t)
        return;
    if (t->pidfd >= 0)
        close(t->pidfd);
    /* Open addressing without tombstones: the table is re-packed from scratch rarely enough
       (a process ending) that a linear re-insert of the following run is cheap. */
    t->pid = 0;
    size_t k = (size_t)(t - audit_tracees);
    for (size_t i = 1; i < AUDIT_TRACEES; i++) {
        struct audit_tracee *n = &audit_tracees[(k + i) % AUDIT_TRACEES];
        if (!n->pid)
            break;
        struct audit_tracee moved = *n;
        n->pid = 0;
        struct audit_tracee *d = audit_tracee(moved.pid, true);
        if (d)
            *d = moved;
    }
}

/* The kind of descriptor fd of tracee t, as the shim names kinds: fetched with pidfd_getfd
   (the tracer may: it traces t), so that no /proc of another PID namespace is needed. */
static int audit_kind(struct audit_tracee *t, long fd)
{
    if (fd < 0 || fd > 1 << 20)
        return IOLAB_FD_OTHER;
    /* A thread is no pidfd's process before Linux 6.9; from then on PIDFD_THREAD names it. */
    if (t->pidfd < 0 && (t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0)) < 0)
        t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, AUDIT_PIDFD_THREAD);
    int mine = t->pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, t->pidfd, (int)fd, 0);
    if (mine < 0)
        return IOLAB_FD_OTHER;
    struct stat st;
    int k = fstat(mine, &st) < 0                         ? IOLAB_FD_OTHER
            : S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ? IOLAB_FD_FILE
            : S_ISSOCK(st.st_mode)                       ? IOLAB_FD_SOCKET
            : S_ISFIFO(st.st_mode)                       ? IOLAB_FD_PIPE
                                                         : IOLAB_FD_OTHER;
    close(mine);
    return k;
}

/* Whether a call of label id moves data, so that its return is worth a second stop. */
static bool audit_moves(unsigned id)
{
    return iolab_split_one_index(id) >= 0 || iolab_split_two_index(id) >= 0 ||
           id == IOLAB_CALL_TEE || id == IOLAB_CALL_VMSPLICE;
}

/* Where the dynamic loader of the program t has just exec'd lives: AT_BASE from the auxiliary
   vector above its environment on the new stack (no /proc of another PID namespace needed). */
#define AUDIT_LD_SPAN (1ul << 20) /* ld.so's text and data are far less than this */
static void audit_exec(struct audit_tracee *t)
{
    struct __ptrace_syscall_info si;
    t->startup = false;
    if (ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, (void *)sizeof si, &si) <= 0)
        return;
    unsigned long sp = (unsigned long)si.stack_pointer, w;
    errno = 0;
    long argc = ptrace(PTRACE_PEEKDATA, t->pid, (void *)sp, 0);
    if (errno || argc < 0 || argc > 1 << 20)
        return;
    unsigned long at = sp + sizeof(long) * (unsigned long)(argc + 2); /* argv, its NULL */
    for (int i = 0; i < 1 << 16; i++, at += sizeof(long)) {           /* envp */
        w = (unsigned long)ptrace(PTRACE_PEEKDATA, t->pid, (void *)at, 0);
        if (errno)
            return;
        if (!w)
            break;
    }
    at += sizeof(long);
    for (int i = 0; i < 64; i++, at += 2 * sizeof(long)) { /* auxv: type, value */
        unsigned long type = (unsigned long)ptrace(PTRACE_PEEKDATA, t->pid, (void *)at, 0);
        if (errno || type == 0 /* AT_NULL */)
            return;
        if (type == 7 /* AT_BASE */) {
            w = (unsigned long)ptrace(PTRACE_PEEKDATA, t->pid, (void *)(at + sizeof(long)), 0);
            if (errno || !w)
                return;
            t->ld_lo = w;
            t->ld_hi = w + AUDIT_LD_SPAN;
            t->startup = true;
            return;
        }
    }
}

/* A PTRACE_EVENT_SECCOMP stop: counts the call; true when its exit is to be seen too. */
static bool audit_enter(struct iolab_audit_page *pg, struct audit_tracee *t)
{
    unsigned long id = 0;
    if (ptrace(PTRACE_GETEVENTMSG, t->pid, 0, &id) < 0 || id >= IOLAB_MAX_CALLS)
        return false;
    struct iolab_audit_call *ac = &pg->calls[id];
    struct __ptrace_syscall_info si;
    bool args = ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, (void *)sizeof si, &si) > 0 &&
                si.op == PTRACE_SYSCALL_INFO_SECCOMP;
    /* The loader reading the libraries before the program's first instruction: no call of the
       program's. The first traced call from anywhere else ends that for good. */
    if (t->startup && args && si.instruction_pointer >= t->ld_lo &&
        si.instruction_pointer < t->ld_hi)
        return false;
    t->startup = false;
    if (args && iolab_split_one_index((unsigned)id) >= 0) {
        ac->kind[audit_kind(t, (long)si.seccomp.args[0])]++;
    } else if (args && iolab_split_two_index((unsigned)id) >= 0) {
        /* sendfile(out, in, ...) moves in -> out; splice and copy_file_range (in, _, out, ...) */
        bool sf = id == IOLAB_CALL_SENDFILE;
        int src = audit_kind(t, (long)si.seccomp.args[sf ? 1 : 0]);
        int dst = audit_kind(t, (long)si.seccomp.args[sf ? 0 : 2]);
        ac->kind[src]++;
        ac->pair[src][dst]++;
    }
    ac->count++;
    __atomic_add_fetch(&pg->updates, 1, __ATOMIC_RELEASE);
    if (!audit_moves((unsigned)id))
        return false;
    t->pending = (int)id;
    return true;
}

/* The exit of a call that moves data: what it returned, when it succeeded. */
static void audit_exit(struct iolab_audit_page *pg, struct audit_tracee *t)
{
    struct __ptrace_syscall_info si;
    if (t->pending >= 0 && ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, (void *)sizeof si, &si) > 0 &&
        si.op == PTRACE_SYSCALL_INFO_EXIT && !si.exit.is_error && si.exit.rval > 0) {
        pg->calls[t->pending].bytes += (uint64_t)si.exit.rval;
        __atomic_add_fetch(&pg->updates, 1, __ATOMIC_RELEASE);
    }
    t->pending = -1;
}

/* SIGTERM and its kind, sent to the tracer (the launcher's idea of the program), go on to the
   program, which handles them as it would untraced. */
static void audit_forward(int sig)
{
    if (audit_main_pid > 0)
        kill((pid_t)audit_main_pid, sig);
}

/* Ends as the program ended: its code, or its signal. */
_Noreturn static void audit_end_as(int st)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

static void audit_signals(pid_t prog)
{
    audit_main_pid = prog;
    static const int fwd[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPWR, SIGUSR1, SIGUSR2};
    struct sigaction sa = {.sa_handler = audit_forward, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fwd / sizeof *fwd; i++)
        sigaction(fwd[i], &sa, NULL);
}

/* Waits for an untraced program and ends as it did. */
_Noreturn static void audit_plain(pid_t prog)
{
    int st;
    while (waitpid(prog, &st, __WALL) < 0)
        if (errno != EINTR)
            _exit(127);
    audit_end_as(st);
}

_Noreturn static void audit_trace(struct iolab_audit_page *pg, pid_t prog)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, __WALL);
        if (p < 0) {
            if (errno == EINTR)
                continue;
            _exit(127); /* no tracee left, and the program's end never seen */
        }
        if (WIFEXITED(st) || WIFSIGNALED(st)) {
            audit_forget(p);
            if (p == prog)
                audit_end_as(st); /* PTRACE_O_EXITKILL: what it left behind goes too */
            continue;
        }
        if (!WIFSTOPPED(st))
            continue;
        struct audit_tracee *t = audit_tracee(p, true);
        int sig = WSTOPSIG(st), event = (unsigned)st >> 16, inject = 0;
        enum __ptrace_request resume = PTRACE_CONT;
        if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
            if (t && audit_enter(pg, t))
                resume = PTRACE_SYSCALL;
        } else if (sig == (SIGTRAP | 0x80)) {
            if (t)
                audit_exit(pg, t);
        } else if (sig == SIGTRAP && event == PTRACE_EVENT_EXEC) {
            if (t)
                audit_exec(t);
        } else if (sig == SIGTRAP && event) {
            /* fork, vfork, clone: the new tracee reports its own first stop */
        } else if (sig == SIGSTOP && t && !t->stopped) {
            /* A new tracee's first stop, which the kernel sends: not the program's signal. */
        } else if (sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU) {
            inject = sig; /* the program's own signal: delivered as without a tracer */
        }
        if (t)
            t->stopped = true;
        ptrace(resume, p, 0, inject);
    }
}

void audit_fork(const struct cfg *c)
{
    struct iolab_audit_page *pg = c->audit_page;
    if (!c->audit || !pg)
        return;
#ifndef AUDIT_NATIVE_ARCH
    audit_refuse(pg, "this architecture's system call numbers are not known to the audit", 0);
    return;
#endif
    /* As IOLAB_SANDBOX_CGROUP=off does for the budget: the fallback, seen and tested. */
    const char *off = getenv("IOLAB_SANDBOX_AUDIT");
    if (c->audit_off || (off && !strcmp(off, "off"))) {
        audit_refuse(pg, "IOLAB_SANDBOX_AUDIT=off refused it", 0);
        return;
    }
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
        audit_refuse(pg, "the kernel has no seccomp filters", 0);
        return;
    }
    pg->audited = (uint32_t)c->audit_ids;
    pg->audited_hi = c->audit_ids >> 32;
    int told[2], go[2];
    if (pipe2(told, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
        audit_refuse(pg, "a pipe for the tracer", errno);
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        audit_refuse(pg, "fork of the tracer", errno);
        return;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(told[0]);
        close(go[1]);
        int err = ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 ? errno : 0;
        (void)!write(told[1], &err, sizeof err);
        close(told[1]);
        if (!err)
            raise(SIGSTOP);
        char yes = 0;
        (void)!read(go[0], &yes, 1);
        close(go[0]);
        /* Not traced, a filter returning SECCOMP_RET_TRACE would answer ENOSYS: none then. */
        audit_traced = yes;
        return;
    }
    close(told[1]);
    close(go[0]);
    prctl(PR_SET_NAME, "iolab-audit");
    int err = EIO;
    if (read(told[0], &err, sizeof err) != sizeof err)
        err = EIO;
    close(told[0]);
    audit_signals(pid);
    int st = 0;
    if (!err) {
        while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
            ;
        if (!WIFSTOPPED(st))
            audit_end_as(st);
        long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
                    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                    PTRACE_O_EXITKILL;
        if (ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)opts) < 0)
            err = errno;
    }
    char yes = !err;
    if (err)
        audit_refuse(pg, "ptrace was refused", err);
    else
        __atomic_store_n(&pg->state, IOLAB_AUDIT_TRACING, __ATOMIC_RELEASE);
    (void)!write(go[1], &yes, 1);
    close(go[1]);
    if (err) {
        /* A tracee that could not be given its options is let go untraced; one that never
           was traced is only waited for. */
        if (WIFSTOPPED(st))
            ptrace(PTRACE_DETACH, pid, 0, 0);
        audit_plain(pid);
    }
    struct audit_tracee *t = audit_tracee(pid, true);
    if (t)
        t->stopped = true;
    ptrace(PTRACE_CONT, pid, 0, 0);
    audit_trace(pg, pid);
}
