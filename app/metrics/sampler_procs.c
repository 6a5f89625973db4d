/*
 * sampler_procs: the sampler's process table and its reading of /proc (the model is in
 * sampler.h; the state in sampler_int.h).
 *
 * What it costs is what this file is about: at 1,000 processes, listing /proc and opening,
 * reading and closing three files per process every tick took a fifth of a core. So:
 *  - Births: a new process or thread takes the next pid, and /proc/loadavg's last field is the
 *    last pid allocated (in iolab's pid namespace, which sees every program's). When it has not
 *    moved, nobody was born and /proc is not listed. When it has, only the pids handed out
 *    since (after the old last pid, up to the new one) are listed, by seeking the /proc
 *    directory to them (the kernel's readdir offset of pid P is P plus a constant, checked when
 *    the sampler opens). A last pid that went backwards (pids wrapped) means a whole listing.
 *  - Deaths: each member has a pidfd in one epoll set; it becomes readable when the process
 *    exits. An exited member is read every tick while it is a zombie (those are its final
 *    figures) and handed to its program once it is reaped (see sampler.h: Exits).
 *  - Reads: every file of a member stays open and is read with pread (FACTS.md). Each tick
 *    reads the members never read yet, then a round-robin slice of the rest, process by process
 *    and thread by thread, until the tick's budget of wall time is spent (rotation.h): every
 *    thread is read, not every thread every tick. Each figure remembers when it was read, and
 *    the snapshot says how old the oldest is (snapshot.h: proc_age_s).
 * A recorded /proc (the unit tests) has no pidfds and no loadavg: it is listed whole every tick,
 * its task/ directories too, and read within the same budget.
 */
#include "sampler_int.h"
#include "procfs.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLER_STRANGERS_MAX 4096 /* other processes' entries before a whole listing prunes */
#define SAMPLER_TASKS_EVERY_S 1.0  /* a process's task/ listed at most this often (see below) */
#define SAMPLER_FIND_MAIN_S   1.0  /* how long a program's own process may take to show */
#define SAMPLER_PID_OFFSET    258  /* fs/proc: FIRST_PROCESS_ENTRY + 2; checked before use */
#define SAMPLER_RESCAN_S      0.3 /* a program's own process not found: list /proc whole this often */
#define SAMPLER_RESCAN_FOR_S  5.0 /* ... for this long after its start (a script's never is) */
#define SAMPLER_FDS_EVERY_S   1.0 /* a member's fd/ listed at most this often (before Linux 6.2) */

double sampler_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Descriptors kept open are counted against a cap below iolab's open-file limit (the limit less
 * an eighth, at least 64, for iolab's own pipes and files): past it, files are opened and closed
 * for each read instead, and members get no pidfd (then /proc is listed whole every tick).
 */
void sampler_fds_init(struct sampler *s)
{
    struct rlimit rl;
    long soft = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                    ? (long)rl.rlim_cur
                    : 1024;
    long reserve = soft / 8 > 64 ? soft / 8 : 64;
    s->fd_cap = soft > reserve ? (size_t)(soft - reserve) : 0;
}

/* Opens path under /proc to keep, or gives -1 when the cap is reached (or the open failed). */
static int sampler_open_kept(struct sampler *s, const char *path)
{
    if (s->fds_kept >= s->fd_cap)
        return -1;
    int fd = openat(s->proc_fd, path, O_RDONLY | O_CLOEXEC);
    s->fds_kept += fd >= 0;
    return fd;
}

static void sampler_close_kept(struct sampler *s, int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        s->fds_kept--;
    }
    *fd = -1;
}

static void sampler_tid_close(struct sampler *s, struct sampler_tid *t)
{
    sampler_close_kept(s, &t->fd);
}

void sampler_proc_release(struct sampler *s, struct sampler_proc *p)
{
    sampler_close_kept(s, &p->stat_fd);
    sampler_close_kept(s, &p->io_fd);
    /* Closing the pidfd takes it out of the epoll set too (it is its only descriptor). */
    sampler_close_kept(s, &p->pid_fd);
    for (size_t i = 0; i < p->ntids; i++)
        sampler_tid_close(s, &p->tids[i]);
    free(p->tids);
    p->stat_fd = p->io_fd = p->pid_fd = -1;
    p->tids = NULL;
    p->ntids = p->captids = 0;
}

struct sampler_proc *sampler_find(struct sampler_proc *v, size_t n, int pid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].pid == pid)
            return &v[mid];
        if (v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int sampler_cmp_pid(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Lists the numeric entries of /proc above pid `above` (0: all) and up to `upto` into s->pids,
   sorted. */
static int sampler_list(struct sampler *s, int above, int upto)
{
    s->npids = 0;
    if (above > 0 && s->pid_offset)
        seekdir(s->proc_dir, (long)above + 1 + s->pid_offset);
    else
        rewinddir(s->proc_dir);
    struct dirent *d;
    while ((d = readdir(s->proc_dir))) {
        if (d->d_name[0] < '1' || d->d_name[0] > '9')
            continue;
        char *end;
        long pid = strtol(d->d_name, &end, 10);
        if (*end || pid <= above)
            continue;
        if (pid > upto && above > 0 && s->pid_offset)
            break; /* the listing goes up by pid from the seek: the rest are older */
        if (pid > upto)
            continue;
        if (s->npids == s->cappids) {
            size_t cap = s->cappids ? s->cappids * 2 : 512;
            int *v = realloc(s->pids, cap * sizeof *v);
            if (!v)
                return -ENOMEM;
            s->pids = v;
            s->cappids = cap;
        }
        s->pids[s->npids++] = (int)pid;
    }
    if (s->npids > 1)
        qsort(s->pids, s->npids, sizeof *s->pids, sampler_cmp_pid);
    return 0;
}

/* /proc/loadavg's last field: the last pid allocated. -errno when it cannot be read. */
static int sampler_last_pid(struct sampler *s)
{
    char buf[128];
    ssize_t n = procfs_read(s->loadavg_fd, -1, NULL, buf, sizeof buf);
    if (n <= 0)
        return n < 0 ? (int)n : -EINVAL;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    const char *sp = strrchr(buf, ' ');
    long pid = sp ? strtol(sp + 1, NULL, 10) : -1;
    return pid > 0 && pid <= INT_MAX ? (int)pid : -EINVAL;
}

/* The first numeric entry from a seek to pid `from`, or -1. */
static long sampler_first_from(struct sampler *s, int from)
{
    seekdir(s->proc_dir, (long)from + s->pid_offset);
    struct dirent *d;
    while ((d = readdir(s->proc_dir)))
        if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
            return strtol(d->d_name, NULL, 10);
    return -1;
}

void sampler_watch_open(struct sampler *s)
{
    s->loadavg_fd = s->epfd = -1;
    s->need_full = true;
    if (strcmp(s->proc_root, "/proc"))
        return;
    /* Our own fd/ is never empty (proc_fd is in it): a size of 0 means an older kernel. */
    struct stat st;
    s->fd_size_counts = fstatat(s->proc_fd, "self/fd", &st, 0) == 0 && st.st_size > 0;
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self < 0)
        return; /* no pidfds (Linux < 5.3): list /proc whole every tick, as a recorded root */
    close(self);
    s->loadavg_fd = openat(s->proc_fd, "loadavg", O_RDONLY | O_CLOEXEC);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->loadavg_fd < 0 || s->epfd < 0 || sampler_last_pid(s) < 0 ||
        sampler_list(s, 0, INT_MAX) < 0 || s->npids < 2)
        return;
    s->live = true;
    /* The seek to pid P must give P itself, and the seek to P + 1 the next pid: then a tail
       listing is exact. Otherwise births are found by listing /proc whole. */
    s->pid_offset = SAMPLER_PID_OFFSET;
    if (sampler_first_from(s, s->pids[0]) != s->pids[0] ||
        sampler_first_from(s, s->pids[0] + 1) != s->pids[1])
        s->pid_offset = 0;
    rewinddir(s->proc_dir);
}

static int sampler_reserve(struct sampler *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    size_t cap = n + n / 2;
    struct sampler_proc *a = realloc(s->next, cap * sizeof *a);
    if (!a)
        return -ENOMEM;
    s->next = a;
    struct sampler_proc *b = realloc(s->procs, cap * sizeof *b);
    if (!b)
        return -ENOMEM;
    s->procs = b;
    s->cap = cap;
    return 0;
}

static int sampler_read_stat(struct sampler *s, struct sampler_proc *p, struct procfs_stat *st)
{
    char buf[1024], path[32];
    snprintf(path, sizeof path, "%d/stat", p->pid);
    ssize_t n = procfs_read(p->stat_fd, s->proc_fd, path, buf, sizeof buf);
    if (n < 0)
        return (int)n;
    return procfs_parse_stat(buf, (size_t)n, st);
}

/* The program a process belongs to: its own root match, else its parent's membership. */
static int sampler_resolve(struct sampler *s, struct sampler_proc *p, int depth)
{
    if (p->prog != SAMPLER_UNKNOWN)
        return p->prog;
    for (uint32_t i = 0; i < s->nprogs; i++)
        if (s->progs[i].root == p->pid)
            return p->prog = (int)i;
    struct sampler_proc *parent = sampler_find(s->procs, s->nprocs, p->ppid);
    if (!parent || parent == p || depth > 64)
        return p->prog = SAMPLER_NONE;
    return p->prog = sampler_resolve(s, parent, depth + 1);
}

void sampler_fig_add(struct sampler_fig *a, const struct sampler_fig *b, bool cpu_io)
{
    if (cpu_io) {
        a->utime += b->utime;
        a->stime += b->stime;
        a->syscr += b->syscr;
        a->syscw += b->syscw;
        a->rchar += b->rchar;
        a->wchar += b->wchar;
        a->read_bytes += b->read_bytes;
        a->write_bytes += b->write_bytes;
    }
    a->vol += b->vol;
    a->invol += b->invol;
}

/*
 * Whether the counting shim is in the program's process, from its /proc/PID/maps: 1 mapped; 2
 * not, and no dynamic loader either (a static binary: no preload reaches it), or still not on a
 * second look a tick later (the loader had time to map it); 0 not known yet (unreadable, or a
 * dynamic program whose loader may still be at work). It stays known after the process ends.
 */
static int sampler_shim_in(struct sampler *s, struct sampler_progstate *ps)
{
    char path[32];
    snprintf(path, sizeof path, "%d/maps", ps->main_pid);
    int shim = procfs_file_has(s->proc_fd, path, "/" IOLAB_SHIM_FILE);
    if (shim != 0)
        return shim > 0 ? 1 : 0;
    if (procfs_file_has(s->proc_fd, path, "/ld-linux") == 0 || ++ps->shim_looks >= 2)
        return 2;
    return 0;
}

/* Whether the process `pid` is one of the sandbox's helpers above the program's own process m
   (its launcher, its init): an ancestor of m in the same program's tree. */
static bool sampler_above(struct sampler *s, const struct sampler_proc *m, int pid)
{
    const struct sampler_proc *q = m;
    for (int depth = 0; depth < 64; depth++) {
        q = sampler_find(s->procs, s->nprocs, q->ppid);
        if (!q || q->prog != m->prog || q == m)
            return false;
        if (q->pid == pid)
            return true;
    }
    return false;
}

/*
 * Whether p, a process of m's program tree, is the program's own: m itself or anything the
 * program started, however it was reparented. A child that forks a grandchild and exits (the
 * fork-twice server) leaves the grandchild to the jail's reaper (the sandbox's init, or the
 * launcher as subreaper), so its parent chain no longer reaches m: walking up to m would drop
 * it. What the program owns is its subtree in the jail instead: every process of the tree born
 * no earlier than m (start times in clock ticks; a descendant is never born before its
 * ancestor) except the helpers above m. The helpers fork nothing else while the program runs.
 */
static bool sampler_owned(struct sampler *s, const struct sampler_proc *p,
                          const struct sampler_proc *m)
{
    if (!m)
        return false;
    if (p == m)
        return true;
    return p->starttime >= m->starttime && !sampler_above(s, m, p->pid);
}

/*
 * Finds each program's own process under the sandbox's helper processes (the first member
 * running the program's executable whose parent does not), then marks which members are it or
 * its descendants: only those are the program's figures. Until it is found, or when the
 * executable is never seen (a script runs its interpreter), the whole tree counts. Its
 * descendants count however they were reparented (sampler_owned).
 */
static void sampler_find_main(struct sampler *s)
{
    for (uint32_t g = 0; g < s->nprogs; g++) {
        struct sampler_progstate *ps = &s->progs[g];
        if (ps->main_pid && !sampler_find(s->procs, s->nprocs, ps->main_pid))
            ps->main_pid = 0;
        if (ps->main_pid && !ps->shim)
            ps->shim = sampler_shim_in(s, ps);
        if (ps->main_pid || !ps->exe[0])
            continue;
        for (size_t i = 0; i < s->nprocs && !ps->main_pid; i++) {
            struct sampler_proc *p = &s->procs[i];
            if (p->prog != (int)g)
                continue;
            char path[32], exe[PATH_MAX];
            snprintf(path, sizeof path, "%d/exe", p->pid);
            ssize_t len = readlinkat(s->proc_fd, path, exe, sizeof exe - 1);
            if (len < 0)
                continue;
            exe[len] = '\0';
            if (strcmp(exe, ps->exe))
                continue;
            /* Its parent running the same program means it is a forked child: go up. */
            struct sampler_proc *q = p, *up;
            while ((up = sampler_find(s->procs, s->nprocs, q->ppid)) && up->prog == (int)g) {
                snprintf(path, sizeof path, "%d/exe", up->pid);
                len = readlinkat(s->proc_fd, path, exe, sizeof exe - 1);
                if (len < 0)
                    break;
                exe[len] = '\0';
                if (strcmp(exe, ps->exe))
                    break;
                q = up;
            }
            ps->main_pid = q->pid;
            ps->shim_looks = 0;
            ps->shim = sampler_shim_in(s, ps);
        }
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        struct sampler_proc *p = &s->procs[i];
        if (p->prog < 0 || (uint32_t)p->prog >= s->nprogs)
            continue;
        int main_pid = s->progs[p->prog].main_pid;
        if (!main_pid) {
            /* Not found yet: for its first second (before exec, the process is the sandbox's
               helper, whose own reads and writes are not the program's) nothing counts; after
               that (a script runs its interpreter) the whole tree does. */
            const struct sampler_progstate *ps = &s->progs[p->prog];
            p->inprog = !ps->exe[0] || sampler_clock() - ps->t_root >= SAMPLER_FIND_MAIN_S;
            continue;
        }
        p->inprog = sampler_owned(s, p, sampler_find(s->procs, s->nprocs, main_pid));
    }
}

/* An entry for a pid first seen in a listing: its stat read once (parent, start time). False
   when it is gone already. */
static bool sampler_entry_new(struct sampler *s, struct sampler_proc *q, int pid,
                              const struct sampler_fig *pending)
{
    *q = (struct sampler_proc){.pid = pid,
                               .prog = SAMPLER_UNKNOWN,
                               .stat_fd = -1,
                               .io_fd = -1,
                               .pid_fd = -1,
                               .pending = *pending};
    struct procfs_stat st;
    if (sampler_read_stat(s, q, &st) < 0)
        return false;
    q->ppid = st.ppid;
    q->starttime = st.starttime;
    return true;
}

/*
 * A member is gone (reaped): its last figures move to its program (see sampler.h). Only a
 * parent whose figures we count absorbs them; a sandbox helper that reaps the program's
 * process is not counted, so its figures must be added here. A counted parent takes them into
 * its pending until its next read shows them. parents: the table to find the parent in.
 */
static void sampler_vanish(struct sampler *s, struct sampler_proc *p, struct sampler_proc *parents,
                           size_t nparents)
{
    if (p->prog >= 0 && p->inprog) {
        struct sampler_proc *parent = sampler_find(parents, nparents, p->ppid);
        bool parent_alive =
            parent && parent != p && !parent->gone && parent->prog == p->prog && parent->inprog;
        struct sampler_fig *dead = &s->progs[p->prog].dead;
        if (parent_alive && parent->exited) {
            /* Reaped by a parent that has exited since: whether the parent's final figures
               hold this child's depends on which came first, which /proc does not say. Left
               out rather than counted twice: the run's end totals (sampler_set_exit) bring
               back what is missing, and nothing could take back a double count. */
            sampler_fig_add(dead, &p->last, false);
            sampler_proc_release(s, p);
            return;
        }
        struct sampler_fig *to = parent_alive ? &parent->pending : dead;
        struct sampler_fig cpu_io = p->last;
        cpu_io.vol = cpu_io.invol = 0; /* context switches never reach a parent */
        sampler_fig_add(dead, &p->last, false);
        sampler_fig_add(to, &cpu_io, true);
        sampler_fig_add(to, &p->pending, true);
    }
    sampler_proc_release(s, p);
}

/* Resolves every entry's program and finds each program's own process. */
static void sampler_membership(struct sampler *s, double now_s)
{
    for (size_t i = 0; i < s->nprocs; i++)
        sampler_resolve(s, &s->procs[i], 0);
    sampler_find_main(s);
    s->members_changed = false;
    s->t_find_main = now_s;
}

/*
 * Rebuilds the process table from a whole listing of /proc. Known pids keep their entry; new
 * ones get their stat read once; vanished members hand their last figures to their program.
 */
int sampler_scan(struct sampler *s)
{
    int last = s->live ? sampler_last_pid(s) : 0; /* before the listing: a later birth moves it */
    int rc = sampler_list(s, 0, INT_MAX);
    if (rc < 0)
        return rc;
    if ((rc = sampler_reserve(s, s->npids)) < 0)
        return rc;
    /* Merge the old table (sorted) with the listing (sorted) into next. */
    size_t n = 0, o = 0;
    for (size_t i = 0; i < s->npids; i++) {
        int pid = s->pids[i];
        while (o < s->nprocs && s->procs[o].pid < pid)
            o++;
        struct sampler_proc *q = &s->next[n];
        if (o < s->nprocs && s->procs[o].pid == pid && s->procs[o].prog != SAMPLER_UNKNOWN) {
            *q = s->procs[o];
            s->procs[o].pid = -s->procs[o].pid; /* carried over: not vanished */
            n++;
            continue;
        }
        struct sampler_fig pending = {0};
        if (o < s->nprocs && s->procs[o].pid == pid) {
            /* Marked for re-resolution by sampler_set_root(): its files were released. */
            s->procs[o].pid = -s->procs[o].pid;
            pending = s->procs[o].pending;
        }
        if (sampler_entry_new(s, q, pid, &pending))
            n++;
    }
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].pid > 0)
            sampler_vanish(s, &s->procs[i], s->next, n);
    struct sampler_proc *t = s->procs;
    s->procs = s->next;
    s->next = t;
    s->nprocs = n;
    if (s->live) {
        s->last_pid = last > 0 ? last : s->last_pid;
        s->strangers = 0;
        s->need_full = last <= 0;
    }
    sampler_membership(s, sampler_clock());
    return 0;
}

/*
 * The pids born since the last listing: those allocated after the last pid loadavg showed then,
 * up to the one it shows now (pids are handed out in order; a wrap makes the caller list /proc
 * whole), merged into the table. A pid already in the table with another start time was freed
 * and reused: the old process is gone.
 */
static int sampler_births(struct sampler *s, int last)
{
    int rc = sampler_list(s, s->last_pid, last);
    if (rc < 0)
        return rc;
    s->last_pid = last;
    if (s->npids == 0)
        return 0;
    if ((rc = sampler_reserve(s, s->nprocs + s->npids)) < 0)
        return rc;
    static const struct sampler_fig none;
    size_t n = 0, o = 0;
    for (size_t i = 0; i < s->npids; i++) {
        int pid = s->pids[i];
        struct sampler_proc born;
        if (!sampler_entry_new(s, &born, pid, &none))
            continue;
        while (o < s->nprocs && s->procs[o].pid < pid)
            s->next[n++] = s->procs[o++];
        if (o < s->nprocs && s->procs[o].pid == pid) {
            if (s->procs[o].starttime == born.starttime) { /* listed already */
                s->next[n++] = s->procs[o++];
                continue;
            }
            sampler_vanish(s, &s->procs[o], s->procs, s->nprocs);
            s->members_changed = true;
            o++;
        }
        s->next[n++] = born;
    }
    while (o < s->nprocs)
        s->next[n++] = s->procs[o++];
    struct sampler_proc *t = s->procs;
    s->procs = s->next;
    s->next = t;
    s->nprocs = n;
    for (size_t i = 0; i < n; i++)
        if (s->procs[i].prog == SAMPLER_UNKNOWN) {
            if (sampler_resolve(s, &s->procs[i], 0) >= 0)
                s->members_changed = true;
            else
                s->strangers++;
        }
    return 0;
}

static int sampler_read_member(struct sampler *s, struct sampler_proc *p, double now_s);

/* Members whose pidfd fired are read while they are zombies and handed over once reaped. */
static void sampler_deaths(struct sampler *s, double now_s)
{
    struct epoll_event ev[64];
    int n;
    do {
        n = epoll_wait(s->epfd, ev, 64, 0);
        for (int i = 0; i < n; i++) {
            struct sampler_proc *p = sampler_find(s->procs, s->nprocs, (int)ev[i].data.u32);
            if (p && p->pid_fd >= 0) {
                sampler_close_kept(s, &p->pid_fd); /* it will not fire again */
                p->exited = true;
            }
        }
    } while (n == 64);
    /* Read them all first, then hand over the gone ones (their parents are looked up in the
       whole table, still sorted), then take them out. */
    bool any = false;
    for (size_t i = 0; i < s->nprocs; i++) {
        struct sampler_proc *p = &s->procs[i];
        if (p->exited && sampler_read_member(s, p, now_s) == -ESRCH)
            any = p->gone = true;
    }
    if (!any)
        return;
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].gone)
            sampler_vanish(s, &s->procs[i], s->procs, s->nprocs);
    size_t kept = 0;
    for (size_t i = 0; i < s->nprocs; i++)
        if (!s->procs[i].gone)
            s->procs[kept++] = s->procs[i];
    s->nprocs = kept;
    s->members_changed = true;
}

/*
 * Births and deaths. The real /proc: the cheap way (top of this file), a whole listing when
 * the table must be pruned, pids wrapped, or a member could not get a pidfd. A recorded root:
 * a whole listing every tick.
 */
int sampler_watch(struct sampler *s, double now_s)
{
    if (!s->live)
        return sampler_scan(s);
    int rc = 0, last = sampler_last_pid(s);
    if (s->need_full || last <= 0 || last < s->last_pid || s->strangers > SAMPLER_STRANGERS_MAX)
        /* Pids wrapped (the new ones are below the old last), or the table wants pruning. */
        rc = sampler_scan(s);
    else if (last != s->last_pid)
        rc = s->pid_offset ? sampler_births(s, last) : sampler_scan(s);
    /* A program whose own process has not shown after a moment: the tail listing may have run
       between its fork taking the pid and the process appearing in /proc, and so skipped it for
       good (on a loaded machine its kernel figures then read 0 while its library calls count).
       A whole listing finds it; only in the first seconds, so a script, whose own process is
       never found by its executable, does not list /proc whole for ever. */
    double t = sampler_clock();
    bool missed = false;
    for (uint32_t g = 0; g < s->nprogs; g++) {
        const struct sampler_progstate *ps = &s->progs[g];
        missed |= ps->root > 0 && !ps->main_pid && ps->exe[0] &&
                  t - ps->t_root >= SAMPLER_RESCAN_S && t - ps->t_root < SAMPLER_RESCAN_FOR_S;
    }
    if (rc == 0 && missed && t - s->t_rescan >= SAMPLER_RESCAN_S) {
        s->t_rescan = t;
        rc = sampler_scan(s);
    }
    sampler_deaths(s, now_s);
    bool unfound = false;
    for (uint32_t g = 0; g < s->nprogs; g++)
        unfound |= s->progs[g].root > 0 && (!s->progs[g].main_pid || !s->progs[g].shim);
    if (s->members_changed || (unfound && now_s - s->t_find_main >= 0.1))
        sampler_membership(s, now_s);
    return rc;
}

static int sampler_tid_cmp(const void *a, const void *b)
{
    return sampler_cmp_pid(&((const struct sampler_tid *)a)->tid,
                           &((const struct sampler_tid *)b)->tid);
}

/* Whether p's task/ must be listed again: a thread may have been born or died unseen. */
static bool sampler_tasks_stale(const struct sampler *s, const struct sampler_proc *p,
                                uint64_t nthreads, double now_s)
{
    if (nthreads <= 1)
        return !(p->ntids == 1 && p->tids[0].tid == p->pid);
    if (!s->live || p->ntids != nthreads)
        return true;
    /* As many threads as known, but one may have ended and another begun: a birth moves the
       last pid, and then the listing is redone, at most once a second. */
    return s->last_pid != p->lastpid_tasks && now_s - p->t_tasks >= SAMPLER_TASKS_EVERY_S;
}

/* Lists p's threads again: known ones keep their descriptor and counts, new ones start unread,
   gone ones leave their last counts in dead_*. */
static int sampler_tasks_list(struct sampler *s, struct sampler_proc *p, uint64_t nthreads,
                              double now_s)
{
    size_t want = nthreads > 1 ? (size_t)nthreads + 16 : 1;
    if (want > s->captidbuf) {
        struct sampler_tid *v = realloc(s->tidbuf, want * sizeof *v);
        if (!v)
            return -ENOMEM;
        s->tidbuf = v;
        s->captidbuf = want;
    }
    struct sampler_tid *now = s->tidbuf;
    size_t nnow = 0;
    if (nthreads <= 1) {
        now[nnow++] = (struct sampler_tid){.tid = p->pid, .fd = -1};
    } else {
        char path[32];
        snprintf(path, sizeof path, "%d/task", p->pid);
        int dfd = openat(s->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
            if (dfd >= 0)
                close(dfd);
            return -ESRCH;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            if (nnow == s->captidbuf) {
                /* Threads were born since stat said how many: make room for them too. */
                struct sampler_tid *v = realloc(s->tidbuf, 2 * s->captidbuf * sizeof *v);
                if (!v)
                    break;
                s->tidbuf = now = v;
                s->captidbuf *= 2;
            }
            now[nnow++] = (struct sampler_tid){.tid = atoi(e->d_name), .fd = -1};
        }
        closedir(d);
        qsort(now, nnow, sizeof *now, sampler_tid_cmp);
    }
    /* Merge: the known threads keep what they have; those gone keep their last counts. */
    for (size_t i = 0, j = 0; i < p->ntids; i++) {
        while (j < nnow && now[j].tid < p->tids[i].tid)
            j++;
        if (j < nnow && now[j].tid == p->tids[i].tid) {
            now[j] = p->tids[i];
            continue;
        }
        p->dead_vol += p->tids[i].vol;
        p->dead_invol += p->tids[i].invol;
        sampler_tid_close(s, &p->tids[i]);
    }
    if (nnow > p->captids) {
        struct sampler_tid *v = realloc(p->tids, nnow * sizeof *v);
        if (!v)
            return -ENOMEM; /* the old threads stay as they were */
        p->tids = v;
        p->captids = nnow;
    }
    if (nnow > 0)
        memcpy(p->tids, now, nnow * sizeof *now);
    p->ntids = nnow;
    p->t_tasks = now_s;
    p->lastpid_tasks = s->last_pid;
    return 0;
}

/* Reads one thread's counts. 0, or -ESRCH when the thread has ended. */
/* A read that failed for want of a descriptor says nothing about the process: it is still there. */
static bool sampler_out_of_fds(ssize_t rc)
{
    return rc == -EMFILE || rc == -ENFILE;
}

static int sampler_tid_read(struct sampler *s, struct sampler_proc *p, struct sampler_tid *t,
                            double now_s)
{
    char path[48], buf[2048];
    /* A single thread's status is the process's own (the same task). */
    if (t->tid == p->pid && p->ntids == 1)
        snprintf(path, sizeof path, "%d/status", p->pid);
    else
        snprintf(path, sizeof path, "%d/task/%d/status", p->pid, t->tid);
    if (t->fd < 0)
        t->fd = sampler_open_kept(s, path);
    /* With no descriptor to spare, it is opened and closed for each read. */
    ssize_t len = procfs_read(t->fd, s->proc_fd, path, buf, sizeof buf);
    struct procfs_status st;
    if (sampler_out_of_fds(len))
        return (int)len; /* not read, not gone: its last counts stay */
    if (len < 0 || procfs_parse_status(buf, (size_t)len, &st) < 0)
        return -ESRCH;
    t->vol = stats_monotonic(t->vol, st.ctx_voluntary);
    t->invol = stats_monotonic(t->invol, st.ctx_involuntary);
    t->t_read = now_s;
    return 0;
}

/*
 * Reads p's threads from the one after its cursor (by tid, wrapping), while the budget lasts,
 * and always one at least (so that a process with more threads than a tick's minimum still gets
 * through them); threads that ended leave their last counts in dead_*. Returns 1 when the
 * budget ran out before its last thread was read (the next tick goes on from there), 0 when this
 * pass over its threads reached the last one.
 */
static int sampler_read_threads(struct sampler *s, struct sampler_proc *p, uint64_t nthreads,
                                double now_s)
{
    if (sampler_tasks_stale(s, p, nthreads, now_s) && sampler_tasks_list(s, p, nthreads, now_s) < 0)
        s->errors += p->ntids == 0;
    size_t n = p->ntids, j0 = rotation_start(p->tids, n, sizeof *p->tids, p->tid_cursor), k;
    bool ended = false;
    for (k = 0; k < n && (k == 0 || rotation_may(&s->rot, sampler_clock())); k++) {
        struct sampler_tid *t = &p->tids[(j0 + k) % n];
        p->tid_cursor = t->tid;
        rotation_took(&s->rot);
        int rc = sampler_tid_read(s, p, t, now_s);
        if (rc < 0 && rc != -ESRCH) {
            s->errors++; /* said in the pane: "some /proc reads failed" */
        } else if (rc < 0) {
            p->dead_vol += t->vol;
            p->dead_invol += t->invol;
            sampler_tid_close(s, t);
            t->tid = 0; /* taken out below */
            ended = true;
        }
    }
    if (ended) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (p->tids[i].tid)
                p->tids[kept++] = p->tids[i];
        p->ntids = kept;
    }
    uint64_t vol = p->dead_vol, invol = p->dead_invol;
    for (size_t i = 0; i < p->ntids; i++) {
        vol += p->tids[i].vol;
        invol += p->tids[i].invol;
    }
    p->last.vol = stats_monotonic(p->last.vol, vol);
    p->last.invol = stats_monotonic(p->last.invol, invol);
    return j0 + k < n ? 1 : 0;
}

/* A member's first read: its files stay open, and a pidfd tells when it exits. */
static void sampler_member_open(struct sampler *s, struct sampler_proc *p)
{
    char path[32];
    snprintf(path, sizeof path, "%d/stat", p->pid);
    p->stat_fd = sampler_open_kept(s, path);
    snprintf(path, sizeof path, "%d/io", p->pid);
    p->io_fd = sampler_open_kept(s, path);
    if (!s->live || p->exited)
        return;
    errno = EMFILE;
    if (s->fds_kept < s->fd_cap)
        p->pid_fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    s->fds_kept += p->pid_fd >= 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)p->pid};
    if (p->pid_fd >= 0 && epoll_ctl(s->epfd, EPOLL_CTL_ADD, p->pid_fd, &ev) < 0)
        sampler_close_kept(s, &p->pid_fd);
    /* Gone already (ESRCH): the stat read says so. Out of descriptors: its death cannot be
       watched, so /proc is listed whole until it is gone. */
    if (p->pid_fd < 0 && errno != ESRCH)
        s->need_full = true;
}

/*
 * How many descriptors p holds open: the upper bound a server that closes what it accepted
 * keeps, and one that leaks a socket per client passes. Since Linux 6.2 the size stat() gives
 * /proc/PID/fd is that number, read in half a microsecond however many there are. Before, only
 * a listing says, at about 0.7 us a descriptor (7 ms at 10,000): at most once a second per
 * process then. A count that fails keeps the last one.
 */
static void sampler_count_fds(struct sampler *s, struct sampler_proc *p, double now_s)
{
    char path[32];
    snprintf(path, sizeof path, "%d/fd", p->pid);
    struct stat st;
    if (s->fd_size_counts) {
        if (fstatat(s->proc_fd, path, &st, 0) == 0)
            p->nfds = st.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)st.st_size;
        return;
    }
    if (p->t_fds && now_s - p->t_fds < SAMPLER_FDS_EVERY_S)
        return;
    p->t_fds = now_s;
    int dfd = openat(s->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    uint32_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    p->nfds = n;
}

/*
 * Refreshes a member: stat and io, then a slice of its threads. Returns 0 when all of it was
 * read, 1 when the budget ran out among its threads, -ESRCH when it is gone (or its pid now
 * names another process). On a failed read the last figures stay.
 */
static int sampler_read_member(struct sampler *s, struct sampler_proc *p, double now_s)
{
    char buf[1024];
    if (!p->t_read && p->stat_fd < 0)
        sampler_member_open(s, p);
    struct procfs_stat st;
    p->tick = s->nsample;
    int rc = sampler_read_stat(s, p, &st);
    if (sampler_out_of_fds(rc)) {
        s->errors++; /* not read this time; the last figures stay */
        return 0;
    }
    if (rc < 0 || (p->starttime && st.starttime != p->starttime)) {
        p->exited = s->live;
        return -ESRCH;
    }
    rotation_took(&s->rot);
    p->ppid = st.ppid;
    p->last.utime = st.utime + st.cutime;
    p->last.stime = st.stime + st.cstime;
    p->last.threads = st.num_threads ? st.num_threads : 1;
    /* A zombie has no memory and its task directory is empty: keep the last thread counts. */
    p->last.rss_bytes = st.state == 'Z' ? 0 : st.rss_pages * (uint64_t)s->page_size;
    struct procfs_io io;
    char io_path[32];
    snprintf(io_path, sizeof io_path, "%d/io", p->pid);
    ssize_t n = procfs_read(p->io_fd, s->proc_fd, io_path, buf, sizeof buf);
    bool io_ok = n >= 0 && procfs_parse_io(buf, (size_t)n, &io) == 0;
    /* A live process has reaped the children that vanished before this read, so its figures
       now include theirs. On the real /proc a child is put in pending only while its parent is
       alive (sampler_vanish), so the parent reaped it and even its zombie's figures hold it; in
       a recorded tree a zombie's pending children went to another reaper. */
    if (io_ok && (st.state != 'Z' || s->live))
        p->pending = (struct sampler_fig){0};
    if (io_ok) {
        p->last.syscr = io.syscr;
        p->last.syscw = io.syscw;
        p->last.rchar = io.rchar;
        p->last.wchar = io.wchar;
        p->last.read_bytes = io.read_bytes;
        p->last.write_bytes = io.write_bytes;
    }
    p->t_read = now_s;
    if (st.state == 'Z') {
        p->exited = s->live;
        p->nfds = 0; /* the kernel closed them all */
        if (!p->t_zombie)
            p->t_zombie = now_s;
        return 0;
    }
    sampler_count_fds(s, p, now_s);
    return sampler_read_threads(s, p, st.num_threads, now_s);
}

/* The fields a total keeps monotonic. */
static void sampler_fig_monotonic(struct sampler_fig *now, const struct sampler_fig *prev)
{
    now->utime = stats_monotonic(prev->utime, now->utime);
    now->stime = stats_monotonic(prev->stime, now->stime);
    now->vol = stats_monotonic(prev->vol, now->vol);
    now->invol = stats_monotonic(prev->invol, now->invol);
    now->syscr = stats_monotonic(prev->syscr, now->syscr);
    now->syscw = stats_monotonic(prev->syscw, now->syscw);
    now->rchar = stats_monotonic(prev->rchar, now->rchar);
    now->wchar = stats_monotonic(prev->wchar, now->wchar);
    now->read_bytes = stats_monotonic(prev->read_bytes, now->read_bytes);
    now->write_bytes = stats_monotonic(prev->write_bytes, now->write_bytes);
}

/* Whether p counts for a program (a member of its tree, not a sandbox helper). */
static bool sampler_counted(const struct sampler *s, const struct sampler_proc *p)
{
    return p->prog >= 0 && (uint32_t)p->prog < s->nprogs && p->inprog;
}

/*
 * This tick's reads: members never read first (a new process's figures are missing until
 * then), then the round-robin slice from the process after the cursor, while the budget lasts.
 */
void sampler_budget_begin(struct sampler *s)
{
    if (!s->budget_fixed)
        s->rot.budget_s = rotation_budget(rotation_share(s->nitems), s->tick_hz);
    rotation_begin(&s->rot, sampler_clock());
}

static void sampler_read_slice(struct sampler *s, double now_s)
{
    for (size_t i = 0; i < s->nprocs && rotation_may(&s->rot, sampler_clock()); i++) {
        struct sampler_proc *p = &s->procs[i];
        if (sampler_counted(s, p) && !p->t_read && p->tick != s->nsample)
            sampler_read_member(s, p, now_s);
    }
    size_t n = s->nprocs, i0 = rotation_start(s->procs, n, sizeof *s->procs, s->cursor);
    for (size_t k = 0; k < n && rotation_may(&s->rot, sampler_clock()); k++) {
        struct sampler_proc *p = &s->procs[(i0 + k) % n];
        if (!sampler_counted(s, p) || p->tick == s->nsample)
            continue;
        if (sampler_read_member(s, p, now_s) == 1) {
            s->cursor = p->pid - 1; /* its other threads come first next tick */
            break;
        }
        s->cursor = p->pid;
    }
}

/* How old p's figures are: the oldest of its own read and its threads'; unread ones counted. */
static double sampler_proc_oldest(const struct sampler_proc *p, uint32_t *unread)
{
    if (!p->t_read) {
        (*unread)++;
        return 0;
    }
    double oldest = p->t_read;
    if (p->exited) /* a zombie's threads are gone: their counts are final */
        return oldest;
    for (size_t i = 0; i < p->ntids; i++) {
        if (!p->tids[i].t_read)
            (*unread)++;
        else if (p->tids[i].t_read < oldest)
            oldest = p->tids[i].t_read;
    }
    return oldest;
}

/*
 * Whether p is a zombie its parent has left unreaped: dead for SAMPLER_ZOMBIE_S or more while
 * the parent, a member of the same program, lives on. A server that reaps its children leaves
 * each one a zombie only until its next waitpid() (or none at all with SIGCHLD ignored); one
 * that never reaps leaves them all. A child whose parent died is the sandbox's to reap.
 */
static bool sampler_zombie_left(struct sampler *s, const struct sampler_proc *p, double now_s)
{
    if (!p->t_zombie || now_s - p->t_zombie < SAMPLER_ZOMBIE_S)
        return false;
    const struct sampler_proc *parent = sampler_find(s->procs, s->nprocs, p->ppid);
    return parent && parent->prog == p->prog && parent->inprog && !parent->t_zombie &&
           !parent->gone;
}

/* prog's counts over every start so far: its earlier pages' (the base) and the current one's. */
static void sampler_procs_tally(const struct sampler *s, uint32_t prog, struct tally_totals *out)
{
    const struct sampler_progstate *ps = &s->progs[prog];
    tally_page(ps->page, ps->nslots, out);
    tally_add(out, &ps->page_base);
}

/* Reads this tick's slice and folds every member's last figures into each program's totals
   (now), keeping the previous totals (prev), the peaks and the age of the figures. */
void sampler_read_programs(struct sampler *s, double now_s)
{
    sampler_read_slice(s, now_s);
    /* Per-program sums over live members, plus what vanished members left behind. */
    struct sampler_raw live[SNAPSHOT_MAX_PROGS];
    double oldest[SNAPSHOT_MAX_PROGS];
    memset(live, 0, sizeof live);
    s->nitems = 0;
    for (uint32_t g = 0; g < SNAPSHOT_MAX_PROGS; g++) {
        oldest[g] = now_s;
        s->unread_n[g] = 0;
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        struct sampler_proc *p = &s->procs[i];
        if (!sampler_counted(s, p))
            continue;
        struct sampler_raw *r = &live[p->prog];
        sampler_fig_add(&r->fig, &p->last, true);
        sampler_fig_add(&r->fig, &p->pending, true);
        r->fig.rss_bytes += p->last.rss_bytes;
        r->fig.threads += p->last.threads;
        r->nprocs++;
        if (p->nfds > r->fds)
            r->fds = p->nfds;
        if (sampler_zombie_left(s, p, now_s))
            r->zombies++;
        s->nitems += p->ntids > 1 ? p->ntids : 1;
        double t = sampler_proc_oldest(p, &s->unread_n[p->prog]);
        if (t > 0 && t < oldest[p->prog])
            oldest[p->prog] = t;
    }
    for (uint32_t i = 0; i < s->nprogs; i++) {
        struct sampler_progstate *ps = &s->progs[i];
        s->age_s[i] = now_s - oldest[i];
        ps->prev = ps->now;
        struct sampler_raw *r = &live[i];
        sampler_fig_add(&r->fig, &ps->dead, true);
        sampler_fig_monotonic(&r->fig, &ps->prev.fig);
        sampler_procs_tally(s, i, &r->page);
        ps->now = *r;
        if (!s->sampled)
            ps->prev = ps->now;
        if (r->nprocs > ps->peak_procs)
            ps->peak_procs = r->nprocs;
        if (r->fig.threads > ps->peak_threads)
            ps->peak_threads = (uint32_t)r->fig.threads;
    }
}
