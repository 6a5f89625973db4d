/*
 * seccomp: the filter is assembled at run time by a tiny assembler with named labels, so that
 * the architecture-specific parts (the compat ABI of a 64-bit kernel, x32) can be left out
 * without hand-recounting jump offsets. Its shape:
 *
 *   arch == native?   no: arch == compat?  no: kill (its syscall numbers mean something else)
 *   nr == ioctl (native, x32 or compat)?   no: allow
 *   low 32 bits of arg1 == TIOCSTI or TIOCLINUX?   yes: EPERM   no: allow
 *
 * The kernel's tty ioctl handler takes the request as an unsigned int, so a request with junk
 * in its upper 32 bits still reaches TIOCSTI: only the low word is compared.
 */
#include "seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SECCOMP_NATIVE_ARCH  AUDIT_ARCH_X86_64
#define SECCOMP_COMPAT_ARCH  AUDIT_ARCH_I386
#define SECCOMP_COMPAT_IOCTL 54 /* i386's ioctl */
#define SECCOMP_X32_IOCTL    (0x40000000 | 514)
#elif defined(__aarch64__)
#define SECCOMP_NATIVE_ARCH  AUDIT_ARCH_AARCH64
#define SECCOMP_COMPAT_ARCH  AUDIT_ARCH_ARM
#define SECCOMP_COMPAT_IOCTL 54 /* 32-bit ARM's ioctl */
#elif defined(__i386__)
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_RISCV64
#endif

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* The low 32 bits of the ioctl's second argument (the request) inside struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SECCOMP_ARG1_LO offsetof(struct seccomp_data, args[1])
#else
#define SECCOMP_ARG1_LO (offsetof(struct seccomp_data, args[1]) + 4)
#endif

#ifdef SECCOMP_NATIVE_ARCH

enum seccomp_label { SC_NEXT = -1, SC_CMD, SC_COMPAT, SC_KILL, SC_ALLOW, SC_DENY, SC_NLABELS };

#define SECCOMP_MAX_INS 24

/* The program being assembled: each jump names its targets by label, patched at the end. */
struct seccomp_asm {
    struct sock_filter ins[SECCOMP_MAX_INS];
    signed char jt[SECCOMP_MAX_INS], jf[SECCOMP_MAX_INS];
    int at[SC_NLABELS];
    int n;
};

static void seccomp_emit(struct seccomp_asm *a, uint16_t code, uint32_t k, int jt, int jf)
{
    a->ins[a->n] = (struct sock_filter)BPF_STMT(code, k);
    a->jt[a->n] = (signed char)jt;
    a->jf[a->n] = (signed char)jf;
    a->n++;
}

static void seccomp_label(struct seccomp_asm *a, enum seccomp_label l)
{
    a->at[l] = a->n;
}

/* A conditional jump: to `yes` when the accumulator equals k, else to `no`. */
static void seccomp_jeq(struct seccomp_asm *a, uint32_t k, int yes, int no)
{
    seccomp_emit(a, BPF_JMP | BPF_JEQ | BPF_K, k, yes, no);
}

static void seccomp_load(struct seccomp_asm *a, uint32_t offset)
{
    seccomp_emit(a, BPF_LD | BPF_W | BPF_ABS, offset, SC_NEXT, SC_NEXT);
}

static void seccomp_ret(struct seccomp_asm *a, uint32_t what)
{
    seccomp_emit(a, BPF_RET | BPF_K, what, SC_NEXT, SC_NEXT);
}

/* Turns label targets into the relative offsets BPF wants (every jump here is forward). */
static void seccomp_patch(struct seccomp_asm *a)
{
    for (int i = 0; i < a->n; i++) {
        if (BPF_CLASS(a->ins[i].code) != BPF_JMP)
            continue;
        a->ins[i].jt = (uint8_t)(a->jt[i] == SC_NEXT ? 0 : a->at[a->jt[i]] - i - 1);
        a->ins[i].jf = (uint8_t)(a->jf[i] == SC_NEXT ? 0 : a->at[a->jf[i]] - i - 1);
    }
}

static void seccomp_build(struct seccomp_asm *a)
{
    a->n = 0;
    seccomp_load(a, offsetof(struct seccomp_data, arch));
#ifdef SECCOMP_COMPAT_ARCH
    seccomp_jeq(a, SECCOMP_NATIVE_ARCH, SC_NEXT, SC_COMPAT);
#else
    seccomp_jeq(a, SECCOMP_NATIVE_ARCH, SC_NEXT, SC_KILL);
#endif
    seccomp_load(a, offsetof(struct seccomp_data, nr));
#ifdef SECCOMP_X32_IOCTL
    seccomp_jeq(a, SECCOMP_X32_IOCTL, SC_CMD, SC_NEXT);
#endif
    seccomp_jeq(a, __NR_ioctl, SC_CMD, SC_ALLOW);
#ifdef SECCOMP_COMPAT_ARCH
    seccomp_label(a, SC_COMPAT);
    seccomp_jeq(a, SECCOMP_COMPAT_ARCH, SC_NEXT, SC_KILL);
    seccomp_load(a, offsetof(struct seccomp_data, nr));
    seccomp_jeq(a, SECCOMP_COMPAT_IOCTL, SC_CMD, SC_ALLOW);
#endif
    seccomp_label(a, SC_KILL);
    seccomp_ret(a, SECCOMP_RET_KILL_PROCESS);
    seccomp_label(a, SC_CMD);
    seccomp_load(a, SECCOMP_ARG1_LO);
    seccomp_jeq(a, TIOCSTI, SC_DENY, SC_NEXT);
    seccomp_jeq(a, TIOCLINUX, SC_DENY, SC_ALLOW);
    seccomp_label(a, SC_ALLOW);
    seccomp_ret(a, SECCOMP_RET_ALLOW);
    seccomp_label(a, SC_DENY);
    seccomp_ret(a, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    seccomp_patch(a);
}

int seccomp_tty_apply(void)
{
    /* A kernel built without seccomp answers EINVAL here; one with it, the current mode. */
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        return errno == EINVAL ? -EOPNOTSUPP : -errno;
    struct seccomp_asm a;
    seccomp_build(&a);
    struct sock_fprog prog = {.len = (unsigned short)a.n, .filter = a.ins};
    /* Without no_new_privs an unprivileged process may not install a filter; it also keeps a
       set-uid program from running with the filter's caller's restrictions and root's rights. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
        return -errno;
    return 0;
}

#else /* an architecture this file does not know the numbers of */

int seccomp_tty_apply(void)
{
    return -EOPNOTSUPP;
}

#endif

bool seccomp_tty_probe(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (seccomp_tty_apply() < 0)
            _exit(1);
        /* On a closed descriptor the kernel would say EBADF: EPERM can only be the filter. The
           upper word is set to check that only the low 32 bits are compared. */
        char c = 'x';
        errno = 0;
        long r = syscall(SYS_ioctl, -1, (unsigned long)(TIOCSTI | 0xff00000000ULL), &c);
        bool sti = r < 0 && errno == EPERM;
        errno = 0;
        r = syscall(SYS_ioctl, -1, (unsigned long)TIOCLINUX, &c);
        bool linux_ = r < 0 && errno == EPERM;
        errno = 0;
        r = syscall(SYS_ioctl, -1, (unsigned long)FIONREAD, &c);
        bool other = r < 0 && errno == EBADF; /* everything else passes */
        _exit(sti && linux_ && other ? 0 : 2);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return false;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
