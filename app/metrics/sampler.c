/*
 * sampler: see sampler.h for the model. Layout of the state:
 *  - procs: every pid listed in /proc at the last scan, sorted by pid, each with its membership
 *    (a program index, or SAMPLER_NONE) decided once, when first seen. Members also hold their
 *    open files, their last figures and their threads' last context switch counts.
 *  - progs: per program, the root pid, the accumulators for members that vanished, the last
 *    raw totals (monotonic) and per-second checkpoints for "recent" latency and history.
 * A sample is: scan (membership, vanished members), read members, sum per program, then derive
 * the snapshot (rates, shares, percentiles, per-mode rows) from this and the previous totals.
 */
#include "sampler.h"
#include "tally.h"
#include "procfs.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLER_NONE    (-1)
#define SAMPLER_UNKNOWN (-2)
#define SAMPLER_CKPTS   (SNAPSHOT_RECENT_S + 1) /* per-second checkpoints kept */

/* Raw figures of a process (ticks, counts, bytes) or the sums of a program. */
struct sampler_fig {
    uint64_t utime, stime; /* own + waited-for children (cutime, cstime) */
    uint64_t vol, invol;   /* context switches, all threads */
    uint64_t syscr, syscw, rchar, wchar;
    uint64_t read_bytes, write_bytes; /* storage I/O the process caused (page cache misses) */
    uint64_t rss_bytes, threads;
};

struct sampler_tid {
    int tid;
    uint64_t vol, invol;
};

struct sampler_proc {
    int pid;
    int ppid;
    uint64_t starttime;
    int prog;    /* program index, SAMPLER_NONE, or SAMPLER_UNKNOWN while being resolved */
    bool inprog; /* the program's own process or a descendant of it (not a sandbox helper) */
    /* Members only: */
    int stat_fd, io_fd;
    struct sampler_fig last;
    struct sampler_tid *tids; /* threads seen at the last sample */
    size_t ntids, captids;
    uint64_t dead_vol, dead_invol; /* threads that exited */
    /* CPU and I/O of in-tree children that vanished while this process was alive. The kernel
       adds a reaped child's figures to its parent's own (stat cutime/cstime, io), which this
       process shows from its next read on; until then they wait here, counted, so that the
       totals neither dip nor lose them when the parent dies before that read. */
    struct sampler_fig pending;
};

/* A program's totals: everything a snapshot derives from, cumulative. */
struct sampler_raw {
    struct sampler_fig fig;
    uint32_t nprocs;
    struct tally_totals page;
};

struct sampler_ckpt {
    double t;
    uint64_t utime, stime; /* CPU clock ticks of the program's tree, for CPU shares */
    uint64_t hist[IOLAB_HIST_BUCKETS];
    uint64_t requests, bytes; /* client-role app figures, for the history */
};

struct sampler_progstate {
    int root;
    int main_pid; /* the program's own process below the sandbox's helpers; 0: not found yet */
    char exe[PATH_MAX]; /* its executable, to recognise it; "": count the whole tree */
    uint32_t run;
    enum lesson_role role;
    char name[SNAPSHOT_NAME_LEN];
    enum snapshot_prog_state state;
    int exit_status;
    struct sampler_fig dead; /* members that vanished (see sampler.h for what is added) */
    struct sampler_fig base; /* dead + live members when run `base_run` was spawned */
    uint32_t base_run;
    bool base_open; /* base_run is still to be reconciled (sampler_set_exit) */
    struct sampler_raw now, prev;
    /* The totals at the last two checkpoints (about a second apart), older first: rates are
       taken over at least a second when one is that old, so that two requests a second do not
       read 0, 0, 0, 0, 10, 0. Reset when the mode changes: a rate never mixes two modes. */
    struct sampler_raw win[2];
    double win_t[2];
    uint32_t nwin;
    struct sampler_ckpt ckpt[SAMPLER_CKPTS]; /* ring, per whole second */
    uint32_t nckpt, ckpt_head;
    uint32_t peak_procs, peak_threads;
    int shim;            /* the main process's: 1 the counting shim is in it, 2 not, 0 unknown */
    uint32_t shim_looks; /* looks that found a dynamic loader but no shim (sampler_shim_in) */
};

struct sampler {
    char proc_root[256];
    int proc_fd;
    DIR *proc_dir;
    const struct iolab_page *page;
    uint32_t nslots;
    uint32_t nprogs;
    double tick_hz, t0, t_prev, t_ckpt;
    bool sampled;
    long page_size, tick;

    struct sampler_tid *tidbuf; /* scratch for one process's threads, grown as needed */
    size_t captidbuf;
    struct sampler_proc *procs, *next; /* current table and the one the scan builds */
    size_t nprocs, cap;
    int *pids;
    size_t npids, cappids;

    struct sampler_progstate progs[SNAPSHOT_MAX_PROGS];
    struct sampler_ckpt role_ckpt_prev; /* client role at the previous history point */
    int mode, prev_mode;
    bool mode_running, prev_running, paused;
    int mode_row[SNAPSHOT_MAX_MODES]; /* mode index -> row, -1 none */
    char mode_id[SNAPSHOT_MAX_MODES][SNAPSHOT_NAME_LEN];
    uint32_t errors;

    struct snapshot snap;
    uint64_t hist_tmp[IOLAB_HIST_BUCKETS];
    uint64_t role_base[LESSON_NROLES][IOLAB_HIST_BUCKETS]; /* "recent" bases per role */
};

int sampler_open(struct sampler **out, const char *proc_root, const struct iolab_page *page,
                 uint32_t nslots, uint32_t nprogs, double tick_hz, double now_s)
{
    if (nprogs > SNAPSHOT_MAX_PROGS)
        return -E2BIG;
    struct sampler *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    int rc;
    snprintf(s->proc_root, sizeof s->proc_root, "%s", proc_root);
    s->proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->proc_fd < 0) {
        rc = -errno;
        goto fail;
    }
    /* A second descriptor for readdir: fdopendir takes ownership of the one it is given. */
    int dfd = openat(s->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || !(s->proc_dir = fdopendir(dfd))) {
        rc = -errno;
        if (dfd >= 0)
            close(dfd);
        goto fail;
    }
    s->page = page;
    s->nslots = nslots;
    s->nprogs = nprogs;
    s->tick_hz = tick_hz;
    s->t0 = s->t_prev = s->t_ckpt = now_s;
    s->page_size = sysconf(_SC_PAGESIZE);
    s->tick = procfs_tick_hz();
    s->mode = s->prev_mode = -1;
    for (int i = 0; i < SNAPSHOT_MAX_MODES; i++)
        s->mode_row[i] = -1;
    for (uint32_t p = 0; p < nprogs; p++)
        s->progs[p].exit_status = -1;
    *out = s;
    return 0;
fail:
    if (s->proc_fd >= 0)
        close(s->proc_fd);
    free(s);
    return rc;
}

static void sampler_proc_release(struct sampler_proc *p)
{
    if (p->stat_fd >= 0)
        close(p->stat_fd);
    if (p->io_fd >= 0)
        close(p->io_fd);
    free(p->tids);
    p->stat_fd = p->io_fd = -1;
    p->tids = NULL;
}

void sampler_close(struct sampler *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++)
        sampler_proc_release(&s->procs[i]);
    if (s->proc_dir)
        closedir(s->proc_dir);
    if (s->proc_fd >= 0)
        close(s->proc_fd);
    free(s->procs);
    free(s->next);
    free(s->pids);
    free(s->tidbuf);
    free(s);
}

void sampler_set_prog(struct sampler *s, uint32_t prog, const char *name, enum lesson_role role)
{
    if (prog >= s->nprogs)
        return;
    snprintf(s->progs[prog].name, sizeof s->progs[prog].name, "%s", name);
    /* The role indexes per-role arrays: anything out of range counts as a server's. */
    s->progs[prog].role = (unsigned)role < LESSON_NROLES ? role : LESSON_ROLE_SERVER;
}

static struct sampler_proc *sampler_find(struct sampler_proc *v, size_t n, int pid)
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

static void sampler_fig_add(struct sampler_fig *a, const struct sampler_fig *b, bool cpu_io);

/* What the program's figures add up to as of the last scan: vanished members and live ones. */
static void sampler_prog_sampled(const struct sampler *s, uint32_t prog, struct sampler_fig *out)
{
    *out = s->progs[prog].dead;
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].prog == (int)prog && s->procs[i].inprog) {
            sampler_fig_add(out, &s->procs[i].last, true);
            sampler_fig_add(out, &s->procs[i].pending, true);
        }
}

void sampler_set_root(struct sampler *s, uint32_t prog, int pid, uint32_t run)
{
    if (prog >= s->nprogs)
        return;
    if (pid > 0) {
        /* A new run: what it adds from here on is what its exit is reconciled against. The
           previous run is gone by now, so nothing of it is counted after this point. */
        struct sampler_progstate *ps = &s->progs[prog];
        sampler_prog_sampled(s, prog, &ps->base);
        ps->base_run = run;
        ps->base_open = true;
    }
    s->progs[prog].root = pid;
    s->progs[prog].main_pid = 0;
    s->progs[prog].run = run;
    /* A pid seen before belonged to another process (or was resolved as a stranger before we
       knew it was ours): forget it so the next scan resolves it again. */
    struct sampler_proc *p = pid > 0 ? sampler_find(s->procs, s->nprocs, pid) : NULL;
    if (p && p->prog != (int)prog) {
        sampler_proc_release(p);
        p->prog = SAMPLER_UNKNOWN;
        p->starttime = 0;
    }
}

void sampler_set_exe(struct sampler *s, uint32_t prog, const char *path)
{
    if (prog >= s->nprogs)
        return;
    /* /proc/PID/exe shows the path with every symbolic link resolved. */
    char real[PATH_MAX];
    if (path && realpath(path, real))
        path = real;
    snprintf(s->progs[prog].exe, sizeof s->progs[prog].exe, "%s", path ? path : "");
}

void sampler_set_state(struct sampler *s, uint32_t prog, enum snapshot_prog_state state,
                       int exit_status)
{
    if (prog >= s->nprogs)
        return;
    s->progs[prog].state = state;
    s->progs[prog].exit_status = exit_status;
}

void sampler_set_mode(struct sampler *s, int mode, const char *id, bool running)
{
    s->mode = mode;
    s->mode_running = running;
    if (mode < 0 || mode >= SNAPSHOT_MAX_MODES)
        return;
    snprintf(s->mode_id[mode], sizeof s->mode_id[mode], "%s", id ? id : "");
    if (running && s->mode_row[mode] < 0 && s->snap.nmodes < SNAPSHOT_MAX_MODES) {
        int row = (int)s->snap.nmodes++;
        s->mode_row[mode] = row;
        memset(&s->snap.modes[row], 0, sizeof s->snap.modes[row]);
        memcpy(s->snap.modes[row].id, s->mode_id[mode], sizeof s->snap.modes[row].id);
    }
}

void sampler_set_paused(struct sampler *s, bool paused)
{
    s->paused = paused;
}

const struct snapshot *sampler_last(const struct sampler *s)
{
    return &s->snap;
}

static int sampler_cmp_pid(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Lists the numeric entries of /proc into s->pids, sorted. */
static int sampler_list(struct sampler *s)
{
    s->npids = 0;
    rewinddir(s->proc_dir);
    struct dirent *d;
    while ((d = readdir(s->proc_dir))) {
        if (d->d_name[0] < '1' || d->d_name[0] > '9')
            continue;
        char *end;
        long pid = strtol(d->d_name, &end, 10);
        if (*end || pid <= 0)
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

static void sampler_fig_add(struct sampler_fig *a, const struct sampler_fig *b, bool cpu_io)
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

/*
 * Finds each program's own process under the sandbox's helper processes (the first member
 * running the program's executable whose parent does not), then marks which members are it or
 * its descendants: only those are the program's figures. Until it is found, or when the
 * executable is never seen (a script runs its interpreter), the whole tree counts.
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
            p->inprog = true;
            continue;
        }
        p->inprog = false;
        struct sampler_proc *q = p;
        for (int depth = 0; q && q->prog == p->prog && depth < 64; depth++) {
            if (q->pid == main_pid) {
                p->inprog = true;
                break;
            }
            q = sampler_find(s->procs, s->nprocs, q->ppid);
        }
    }
}

/*
 * Rebuilds the process table from a fresh /proc listing. Known pids keep their entry; new ones
 * get their stat read once; vanished members hand their last figures to their program.
 */
static int sampler_scan(struct sampler *s)
{
    int rc = sampler_list(s);
    if (rc < 0)
        return rc;
    if (s->npids > s->cap) {
        size_t cap = s->npids + s->npids / 2;
        struct sampler_proc *a = realloc(s->next, cap * sizeof *a);
        if (!a)
            return -ENOMEM;
        s->next = a;
        struct sampler_proc *b = realloc(s->procs, cap * sizeof *b);
        if (!b)
            return -ENOMEM;
        s->procs = b;
        s->cap = cap;
    }
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
        *q = (struct sampler_proc){
            .pid = pid, .prog = SAMPLER_UNKNOWN, .stat_fd = -1, .io_fd = -1, .pending = pending};
        struct procfs_stat st;
        if (sampler_read_stat(s, q, &st) < 0)
            continue; /* gone already */
        q->ppid = st.ppid;
        q->starttime = st.starttime;
        n++;
    }
    /* Vanished members: their last figures move to their program (see sampler.h). */
    for (size_t i = 0; i < s->nprocs; i++) {
        struct sampler_proc *p = &s->procs[i];
        if (p->pid <= 0)
            continue;
        if (p->prog >= 0 && p->inprog) {
            struct sampler_proc *parent = sampler_find(s->next, n, p->ppid);
            /* Only a parent whose figures we count absorbs them; a sandbox helper that reaps
               the program's process is not counted, so its figures must be added here. A
               counted parent takes them into its pending until its next read shows them. */
            bool parent_alive = parent && parent->prog == p->prog && parent->inprog;
            struct sampler_fig *dead = &s->progs[p->prog].dead;
            struct sampler_fig *to = parent_alive ? &parent->pending : dead;
            struct sampler_fig cpu_io = p->last;
            cpu_io.vol = cpu_io.invol = 0; /* context switches never reach a parent */
            sampler_fig_add(dead, &p->last, false);
            sampler_fig_add(to, &cpu_io, true);
            sampler_fig_add(to, &p->pending, true);
        }
        sampler_proc_release(p);
    }
    struct sampler_proc *t = s->procs;
    s->procs = s->next;
    s->next = t;
    s->nprocs = n;
    for (size_t i = 0; i < n; i++)
        sampler_resolve(s, &s->procs[i], 0);
    sampler_find_main(s);
    return 0;
}

static int sampler_tid_cmp(const void *a, const void *b)
{
    return sampler_cmp_pid(&((const struct sampler_tid *)a)->tid,
                           &((const struct sampler_tid *)b)->tid);
}

/* Reads every thread's context switches; threads gone since the last read go to dead_*. */
static void sampler_read_threads(struct sampler *s, struct sampler_proc *p, uint64_t nthreads)
{
    /* Every thread, however many: a cap would book the threads past it as gone and their
       switches would be lost (a 1,000-thread server showed a quarter of its switches). */
    size_t want = nthreads > 1 ? (size_t)nthreads + 16 : 1;
    if (want > s->captidbuf) {
        struct sampler_tid *v = realloc(s->tidbuf, want * sizeof *v);
        if (!v) {
            s->errors++;
            return;
        }
        s->tidbuf = v;
        s->captidbuf = want;
    }
    struct sampler_tid *now = s->tidbuf;
    size_t nnow = 0;
    char path[64], buf[2048];
    if (nthreads <= 1) {
        snprintf(path, sizeof path, "%d/status", p->pid);
        ssize_t len = procfs_read(-1, s->proc_fd, path, buf, sizeof buf);
        struct procfs_status st;
        if (len >= 0 && procfs_parse_status(buf, (size_t)len, &st) == 0)
            now[nnow++] = (struct sampler_tid){p->pid, st.ctx_voluntary, st.ctx_involuntary};
        else
            s->errors++;
    } else {
        snprintf(path, sizeof path, "%d/task", p->pid);
        int dfd = openat(s->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
            if (dfd >= 0)
                close(dfd);
            s->errors++;
            return;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            char tpath[sizeof e->d_name + 8];
            snprintf(tpath, sizeof tpath, "%s/status", e->d_name);
            ssize_t len = procfs_read(-1, dirfd(d), tpath, buf, sizeof buf);
            struct procfs_status st;
            if (len < 0 || procfs_parse_status(buf, (size_t)len, &st) < 0)
                continue; /* the thread exited between readdir and open */
            if (nnow == s->captidbuf) {
                /* Threads were born since stat said how many: make room for them too. */
                struct sampler_tid *v = realloc(s->tidbuf, 2 * s->captidbuf * sizeof *v);
                if (!v) {
                    s->errors++;
                    break;
                }
                s->tidbuf = now = v;
                s->captidbuf *= 2;
            }
            now[nnow++] =
                (struct sampler_tid){atoi(e->d_name), st.ctx_voluntary, st.ctx_involuntary};
        }
        closedir(d);
        qsort(now, nnow, sizeof *now, sampler_tid_cmp);
    }
    /* Threads of the last read that are gone now keep their last counts. */
    for (size_t i = 0, j = 0; i < p->ntids; i++) {
        while (j < nnow && now[j].tid < p->tids[i].tid)
            j++;
        if (j >= nnow || now[j].tid != p->tids[i].tid) {
            p->dead_vol += p->tids[i].vol;
            p->dead_invol += p->tids[i].invol;
        }
    }
    if (nnow > p->captids) {
        struct sampler_tid *v = realloc(p->tids, nnow * sizeof *v);
        if (!v)
            return;
        p->tids = v;
        p->captids = nnow;
    }
    if (nnow > 0) /* none read (the process is exiting): tids may still be NULL */
        memcpy(p->tids, now, nnow * sizeof *now);
    p->ntids = nnow;
    uint64_t vol = p->dead_vol, invol = p->dead_invol;
    for (size_t i = 0; i < nnow; i++) {
        vol += now[i].vol;
        invol += now[i].invol;
    }
    p->last.vol = stats_monotonic(p->last.vol, vol);
    p->last.invol = stats_monotonic(p->last.invol, invol);
}

/* Refreshes a member's figures; on a failed read the last ones stay. */
static void sampler_read_member(struct sampler *s, struct sampler_proc *p)
{
    char path[32], buf[1024];
    if (p->stat_fd < 0) {
        snprintf(path, sizeof path, "%d/stat", p->pid);
        p->stat_fd = openat(s->proc_fd, path, O_RDONLY | O_CLOEXEC);
        snprintf(path, sizeof path, "%d/io", p->pid);
        p->io_fd = openat(s->proc_fd, path, O_RDONLY | O_CLOEXEC);
    }
    struct procfs_stat st;
    if (p->stat_fd < 0 || sampler_read_stat(s, p, &st) < 0) {
        s->errors++;
        return;
    }
    p->ppid = st.ppid;
    p->last.utime = st.utime + st.cutime;
    p->last.stime = st.stime + st.cstime;
    p->last.threads = st.num_threads ? st.num_threads : 1;
    /* A zombie has no memory and its task directory is empty: keep the last thread counts. */
    p->last.rss_bytes = st.state == 'Z' ? 0 : st.rss_pages * (uint64_t)s->page_size;
    if (st.state != 'Z')
        sampler_read_threads(s, p, st.num_threads);
    struct procfs_io io;
    ssize_t n = p->io_fd >= 0 ? procfs_read(p->io_fd, -1, NULL, buf, sizeof buf) : -EBADF;
    bool io_ok = n >= 0 && procfs_parse_io(buf, (size_t)n, &io) == 0;
    /* A live process has reaped the children that vanished before this read, so its figures
       now include theirs. A zombie reaps nothing: its pending children went to another reaper. */
    if (io_ok && st.state != 'Z')
        p->pending = (struct sampler_fig){0};
    if (io_ok) {
        p->last.syscr = io.syscr;
        p->last.syscw = io.syscw;
        p->last.rchar = io.rchar;
        p->last.wchar = io.wchar;
        p->last.read_bytes = io.read_bytes;
        p->last.write_bytes = io.write_bytes;
    }
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

static void sampler_raw_add(struct sampler_raw *a, const struct sampler_raw *b)
{
    sampler_fig_add(&a->fig, &b->fig, true);
    a->fig.rss_bytes += b->fig.rss_bytes;
    a->fig.threads += b->fig.threads;
    a->nprocs += b->nprocs;
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        a->page.calls[c].count += b->page.calls[c].count;
        a->page.calls[c].bytes += b->page.calls[c].bytes;
        a->page.calls[c].ns += b->page.calls[c].ns;
    }
    a->page.requests += b->page.requests;
    a->page.bytes += b->page.bytes;
    a->page.conns_opened += b->page.conns_opened;
    a->page.conns_closed += b->page.conns_closed;
    a->page.errors += b->page.errors;
    a->page.uring_submissions += b->page.uring_submissions;
    a->page.uring_completions += b->page.uring_completions;
    a->page.uring_enters += b->page.uring_enters;
    for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
        a->page.hist[h] += b->page.hist[h];
}

/* Calls the kernel counts in syscr / syscw, to set the library counts beside them. */
static const enum iolab_call_id sampler_read_family[] = {
    IOLAB_CALL_READ,   IOLAB_CALL_READV,    IOLAB_CALL_PREAD64,
    IOLAB_CALL_PREADV, IOLAB_CALL_SENDFILE, IOLAB_CALL_COPY_FILE_RANGE};
static const enum iolab_call_id sampler_write_family[] = {
    IOLAB_CALL_WRITE,   IOLAB_CALL_WRITEV,   IOLAB_CALL_PWRITE64,
    IOLAB_CALL_PWRITEV, IOLAB_CALL_SENDFILE, IOLAB_CALL_COPY_FILE_RANGE};

int sampler_kernel_family(enum iolab_call_id call)
{
    int fam = 0;
    for (size_t i = 0; i < sizeof sampler_read_family / sizeof *sampler_read_family; i++)
        fam |= sampler_read_family[i] == call ? SAMPLER_IN_SYSCR : 0;
    for (size_t i = 0; i < sizeof sampler_write_family / sizeof *sampler_write_family; i++)
        fam |= sampler_write_family[i] == call ? SAMPLER_IN_SYSCW : 0;
    return fam;
}

/* Derives a snapshot's figures from the totals now and those dt seconds before (the base of
   the rate window). */
/*
 * Where CPU shares are measured from. /proc counts CPU time in clock ticks (10 ms), so over one
 * 0.1 s sample every share would be a multiple of 10% and two busy programs would often show the
 * same figure; over the last second or so the share is good to about 1%.
 */
struct sampler_cpu_base {
    double t;
    uint64_t utime, stime;
    bool valid;
};

/* The newest checkpoint at least half a second old, or an invalid base when there is none. */
static struct sampler_cpu_base sampler_cpu_base(const struct sampler_progstate *ps, double now)
{
    for (uint32_t k = 1; k <= ps->nckpt; k++) {
        const struct sampler_ckpt *c =
            &ps->ckpt[(ps->ckpt_head + SAMPLER_CKPTS - k) % SAMPLER_CKPTS];
        if (now - c->t >= 0.5)
            return (struct sampler_cpu_base){c->t, c->utime, c->stime, true};
    }
    return (struct sampler_cpu_base){0};
}

static void sampler_figures(struct sampler *s, struct snapshot_figures *f,
                            const struct sampler_raw *now, const struct sampler_raw *prev,
                            double dt, const uint64_t *recent_base,
                            const struct sampler_cpu_base *cpu, double now_s)
{
    uint64_t dcalls = 0;
    f->calls_total = 0;
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        f->calls_total += now->page.calls[c].count;
        dcalls += stats_delta(now->page.calls[c].count, prev->page.calls[c].count);
    }
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        struct snapshot_call *k = &f->calls[c];
        const struct iolab_call *a = &now->page.calls[c], *b = &prev->page.calls[c];
        uint64_t dc = stats_delta(a->count, b->count);
        k->count = a->count;
        k->bytes = a->bytes;
        k->ns = a->ns;
        k->count_rate = stats_rate(dc, dt);
        k->bytes_rate = stats_rate(stats_delta(a->bytes, b->bytes), dt);
        k->share = dcalls ? (double)dc / (double)dcalls : 0.0;
        k->busy = stats_rate(stats_delta(a->ns, b->ns), dt) / 1e9;
    }
    f->calls_rate = stats_rate(dcalls, dt);
    double tick = (double)s->tick;
    f->cpu_user_s = (double)now->fig.utime / tick;
    f->cpu_sys_s = (double)now->fig.stime / tick;
    uint64_t base_u = cpu->valid ? cpu->utime : prev->fig.utime;
    uint64_t base_s = cpu->valid ? cpu->stime : prev->fig.stime;
    double span = cpu->valid ? now_s - cpu->t : dt;
    f->cpu_user_pct = 100.0 * stats_rate(stats_delta(now->fig.utime, base_u), span) / tick;
    f->cpu_sys_pct = 100.0 * stats_rate(stats_delta(now->fig.stime, base_s), span) / tick;
    f->ctx_voluntary = now->fig.vol;
    f->ctx_involuntary = now->fig.invol;
    f->ctx_voluntary_rate = stats_rate(stats_delta(now->fig.vol, prev->fig.vol), dt);
    f->ctx_involuntary_rate = stats_rate(stats_delta(now->fig.invol, prev->fig.invol), dt);
    f->nprocs = now->nprocs;
    f->nthreads = (uint32_t)now->fig.threads;
    f->rss_bytes = now->fig.rss_bytes;
    f->syscr = now->fig.syscr;
    f->syscw = now->fig.syscw;
    f->rchar = now->fig.rchar;
    f->wchar = now->fig.wchar;
    f->syscr_rate = stats_rate(stats_delta(now->fig.syscr, prev->fig.syscr), dt);
    f->syscw_rate = stats_rate(stats_delta(now->fig.syscw, prev->fig.syscw), dt);
    f->read_bytes = now->fig.read_bytes;
    f->write_bytes = now->fig.write_bytes;
    f->read_bytes_rate = stats_rate(stats_delta(now->fig.read_bytes, prev->fig.read_bytes), dt);
    f->lib_reads = f->lib_writes = 0;
    for (size_t i = 0; i < sizeof sampler_read_family / sizeof *sampler_read_family; i++)
        f->lib_reads += now->page.calls[sampler_read_family[i]].count;
    for (size_t i = 0; i < sizeof sampler_write_family / sizeof *sampler_write_family; i++)
        f->lib_writes += now->page.calls[sampler_write_family[i]].count;
    f->requests = now->page.requests;
    f->app_bytes = now->page.bytes;
    f->conns_opened = now->page.conns_opened;
    f->conns_closed = now->page.conns_closed;
    f->errors = now->page.errors;
    f->uring_submissions = now->page.uring_submissions;
    f->uring_completions = now->page.uring_completions;
    f->uring_enters = now->page.uring_enters;
    f->requests_rate = stats_rate(stats_delta(now->page.requests, prev->page.requests), dt);
    f->app_bytes_rate = stats_rate(stats_delta(now->page.bytes, prev->page.bytes), dt);
    stats_latency(&f->latency_total, now->page.hist);
    stats_hist_sub(s->hist_tmp, now->page.hist, recent_base, IOLAB_HIST_BUCKETS);
    stats_latency(&f->latency_recent, s->hist_tmp);
}

/* The oldest checkpoint of a program (the base of its "recent" figures). */
static const struct sampler_ckpt *sampler_ckpt_oldest(const struct sampler_progstate *ps)
{
    uint32_t i = (ps->ckpt_head + SAMPLER_CKPTS - ps->nckpt) % SAMPLER_CKPTS;
    return &ps->ckpt[i];
}

static void sampler_ckpt_push(struct sampler_progstate *ps, double t)
{
    struct sampler_ckpt *c = &ps->ckpt[ps->ckpt_head];
    c->t = t;
    c->utime = ps->now.fig.utime;
    c->stime = ps->now.fig.stime;
    memcpy(c->hist, ps->now.page.hist, sizeof c->hist);
    c->requests = ps->now.page.requests;
    c->bytes = ps->now.page.bytes;
    ps->ckpt_head = (ps->ckpt_head + 1) % SAMPLER_CKPTS;
    if (ps->nckpt < SAMPLER_CKPTS)
        ps->nckpt++;
}

/*
 * The rate window: on a checkpoint the totals join the window (the older of two drops out); on a
 * mode change the window starts again at the totals now, so rates are "since the mode started"
 * until a second has passed.
 */
static void sampler_window_push(struct sampler_progstate *ps, double t, bool ckpt, bool reset)
{
    if (reset)
        ps->nwin = 0;
    if (!ckpt && !reset)
        return;
    if (ps->nwin == 2) {
        ps->win[0] = ps->win[1];
        ps->win_t[0] = ps->win_t[1];
        ps->nwin = 1;
    }
    ps->win[ps->nwin] = ps->now;
    ps->win_t[ps->nwin++] = t;
}

/* The base of a program's rates: the newest window entry at least a second old, else the oldest
   (since the mode started), else the previous sample. Returns the span it covers. */
static double sampler_window_base(const struct sampler_progstate *ps, double now_s, double dt,
                                  const struct sampler_raw **base)
{
    for (uint32_t k = ps->nwin; k-- > 0;)
        if (now_s - ps->win_t[k] >= 1.0) {
            *base = &ps->win[k];
            return now_s - ps->win_t[k];
        }
    if (ps->nwin && now_s - ps->win_t[0] > 0) {
        *base = &ps->win[0];
        return now_s - ps->win_t[0];
    }
    *base = &ps->prev;
    return dt;
}

/* Adds the time since the last sample to the current mode's row, if it ran throughout. */
static void sampler_mode_account(struct sampler *s, double dt)
{
    if (!s->mode_running || !s->prev_running || s->mode != s->prev_mode || s->mode < 0 ||
        s->mode >= SNAPSHOT_MAX_MODES || s->mode_row[s->mode] < 0)
        return;
    struct snapshot_mode_row *r = &s->snap.modes[s->mode_row[s->mode]];
    r->seconds += dt;
    for (uint32_t p = 0; p < s->nprogs; p++) {
        const struct sampler_raw *a = &s->progs[p].now, *b = &s->progs[p].prev;
        enum lesson_role role = s->progs[p].role;
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            uint64_t d = stats_delta(a->page.calls[c].count, b->page.calls[c].count);
            r->calls += d;
            r->role_calls[role][c] += d;
        }
        r->role_requests[role] += stats_delta(a->page.requests, b->page.requests);
        r->role_uring_enters[role] += stats_delta(a->page.uring_enters, b->page.uring_enters);
        r->role_bytes[role] += stats_delta(a->page.bytes, b->page.bytes);
        r->ctx_switches +=
            stats_delta(a->fig.vol, b->fig.vol) + stats_delta(a->fig.invol, b->fig.invol);
        r->cpu_s += (double)(stats_delta(a->fig.utime, b->fig.utime) +
                             stats_delta(a->fig.stime, b->fig.stime)) /
                    (double)s->tick;
        if (s->progs[p].role == LESSON_ROLE_CLIENT) {
            r->requests += stats_delta(a->page.requests, b->page.requests);
            r->bytes += stats_delta(a->page.bytes, b->page.bytes);
            for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
                r->hist[h] += stats_delta(a->page.hist[h], b->page.hist[h]);
        }
    }
    stats_mode_row_derive(r);
}

/* Appends one second of client throughput to the history ring (kept oldest first). */
static void sampler_history_push(struct sampler *s, double t)
{
    uint64_t req = 0, bytes = 0;
    for (uint32_t p = 0; p < s->nprogs; p++)
        if (s->progs[p].role == LESSON_ROLE_CLIENT) {
            req += s->progs[p].now.page.requests;
            bytes += s->progs[p].now.page.bytes;
        }
    double span = t - s->role_ckpt_prev.t;
    struct snapshot *sn = &s->snap;
    if (sn->history_len == SNAPSHOT_HISTORY) {
        memmove(sn->history_requests, sn->history_requests + 1,
                (SNAPSHOT_HISTORY - 1) * sizeof *sn->history_requests);
        memmove(sn->history_bytes, sn->history_bytes + 1,
                (SNAPSHOT_HISTORY - 1) * sizeof *sn->history_bytes);
        sn->history_len--;
    }
    sn->history_requests[sn->history_len] =
        stats_rate(stats_delta(req, s->role_ckpt_prev.requests), span);
    sn->history_bytes[sn->history_len] =
        stats_rate(stats_delta(bytes, s->role_ckpt_prev.bytes), span);
    sn->history_len++;
    s->role_ckpt_prev.t = t;
    s->role_ckpt_prev.requests = req;
    s->role_ckpt_prev.bytes = bytes;
}

/* Reads every member of every program and folds the sums into each program's totals (now),
   keeping the previous totals (prev) and the peaks. */
static void sampler_read_programs(struct sampler *s)
{
    /* Per-program sums over live members, plus what vanished members left behind. */
    struct sampler_raw live[SNAPSHOT_MAX_PROGS];
    memset(live, 0, sizeof live);
    for (size_t i = 0; i < s->nprocs; i++) {
        struct sampler_proc *p = &s->procs[i];
        if (p->prog < 0 || (uint32_t)p->prog >= s->nprogs || !p->inprog)
            continue;
        sampler_read_member(s, p);
        struct sampler_raw *r = &live[p->prog];
        sampler_fig_add(&r->fig, &p->last, true);
        sampler_fig_add(&r->fig, &p->pending, true);
        r->fig.rss_bytes += p->last.rss_bytes;
        r->fig.threads += p->last.threads;
        r->nprocs++;
    }
    for (uint32_t i = 0; i < s->nprogs; i++) {
        struct sampler_progstate *ps = &s->progs[i];
        ps->prev = ps->now;
        struct sampler_raw *r = &live[i];
        sampler_fig_add(&r->fig, &ps->dead, true);
        sampler_fig_monotonic(&r->fig, &ps->prev.fig);
        tally_sum(s->page, s->nslots, i, TALLY_ANY_RUN, &r->page);
        ps->now = *r;
        if (!s->sampled)
            ps->prev = ps->now;
        if (r->nprocs > ps->peak_procs)
            ps->peak_procs = r->nprocs;
        if (r->fig.threads > ps->peak_threads)
            ps->peak_threads = (uint32_t)r->fig.threads;
    }
}

/* The rate windows every sample, and once a second the checkpoints (CPU shares, recent
   latency, throughput history) and the machine's cores and load. */
static void sampler_checkpoints(struct sampler *s, double now_s)
{
    bool ckpt = !s->sampled || now_s - s->t_ckpt >= 1.0;
    bool mode_changed =
        s->sampled && (s->mode != s->prev_mode || s->mode_running != s->prev_running);
    for (uint32_t i = 0; i < s->nprogs; i++)
        sampler_window_push(&s->progs[i], now_s, ckpt, mode_changed);
    if (!ckpt)
        return;
    for (uint32_t i = 0; i < s->nprogs; i++)
        sampler_ckpt_push(&s->progs[i], now_s);
    if (s->sampled)
        sampler_history_push(s, now_s);
    else
        s->role_ckpt_prev.t = now_s;
    s->t_ckpt = now_s;
    /* The machine, once a second: what may explain a result that differs from the lesson's
       expectation (grade/expect.h). */
    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    double load;
    s->snap.ncpus = ncpus > 0 ? (uint32_t)ncpus : 0;
    s->snap.loadavg = getloadavg(&load, 1) == 1 ? load : -1;
}

/* Every program's figures and every role's (their sums), over the rate window; returns the
   window's span. */
static double sampler_figures_all(struct sampler *s, struct snapshot *sn, double now_s, double dt)
{
    struct sampler_raw role_now[LESSON_NROLES], role_prev[LESSON_NROLES];
    uint64_t(*role_base)[IOLAB_HIST_BUCKETS] = s->role_base;
    memset(role_now, 0, sizeof role_now);
    memset(role_prev, 0, sizeof role_prev);
    memset(s->role_base, 0, sizeof s->role_base);
    uint32_t role_peak_procs[LESSON_NROLES] = {0}, role_peak_threads[LESSON_NROLES] = {0};
    double span = dt;
    /* Programs' checkpoints are pushed together, so a role's base is the sum of its programs'. */
    struct sampler_cpu_base role_cpu[LESSON_NROLES] = {{0}};
    bool role_cpu_ok[LESSON_NROLES] = {true, true};
    for (uint32_t i = 0; i < s->nprogs; i++) {
        struct sampler_progstate *ps = &s->progs[i];
        struct snapshot_prog *sp = &sn->progs[i];
        const struct sampler_ckpt *base = sampler_ckpt_oldest(ps);
        snprintf(sp->name, sizeof sp->name, "%s", ps->name);
        sp->role = ps->role;
        sp->state = ps->state;
        sp->pid = ps->main_pid ? ps->main_pid : ps->root;
        sp->root_pid = ps->root;
        sp->run = ps->run;
        sp->exit_status = ps->exit_status;
        sp->counts_forged = ps->now.page.forged;
        struct sampler_cpu_base cpu = sampler_cpu_base(ps, now_s);
        const struct sampler_raw *wb;
        /* Programs' windows move together, so every program's span is the same. */
        span = sampler_window_base(ps, now_s, dt, &wb);
        sampler_figures(s, &sp->f, &ps->now, wb, span, base->hist, &cpu, now_s);
        sp->f.peak_procs = ps->peak_procs;
        sp->f.peak_threads = ps->peak_threads;
        sp->counted = ps->shim == 1 ? 1 : ps->shim == 2 ? 0 : -1;
        sp->f.uncounted = sp->counted == 0;
        enum lesson_role role = ps->role;
        sampler_raw_add(&role_now[role], &ps->now);
        sampler_raw_add(&role_prev[role], wb);
        for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
            role_base[role][h] += base->hist[h];
        role_cpu_ok[role] = role_cpu_ok[role] && cpu.valid;
        role_cpu[role].t = cpu.t;
        role_cpu[role].utime += cpu.utime;
        role_cpu[role].stime += cpu.stime;
        role_peak_procs[role] += ps->peak_procs;
        role_peak_threads[role] += ps->peak_threads;
    }
    for (int r = 0; r < LESSON_NROLES; r++) {
        role_cpu[r].valid = role_cpu_ok[r] && role_cpu[r].t > 0;
        sampler_figures(s, &sn->roles[r], &role_now[r], &role_prev[r], span, role_base[r],
                        &role_cpu[r], now_s);
        memcpy(sn->latency_hist[r], role_now[r].page.hist, sizeof sn->latency_hist[r]);
        /* Peaks of different programs need not coincide: the sum is an upper bound. */
        sn->roles[r].peak_procs = role_peak_procs[r];
        sn->roles[r].peak_threads = role_peak_threads[r];
    }
    return span;
}

const struct snapshot *sampler_sample(struct sampler *s, double now_s)
{
    s->errors = 0;
    if (sampler_scan(s) < 0)
        s->errors++;
    sampler_read_programs(s);
    double dt = s->sampled ? now_s - s->t_prev : 0.0;
    sampler_checkpoints(s, now_s);

    struct snapshot *sn = &s->snap;
    sn->seq++;
    sn->elapsed_s = now_s - s->t0;
    sn->dt_s = dt;
    sn->tick_hz = s->tick_hz;
    sn->mode = s->mode;
    sn->mode_running = s->mode_running;
    sn->paused = s->paused;
    sn->overflow_claims = tally_overflow(s->page);
    sn->sample_errors = s->errors;
    sn->nprogs = s->nprogs;
    sn->rate_window_s = sampler_figures_all(s, sn, now_s, dt);
    /* Programs the shim never reached, so that a role's empty call table says why. */
    for (int r = 0; r < LESSON_NROLES; r++)
        sn->roles[r].uncounted = 0;
    for (uint32_t i = 0; i < s->nprogs; i++)
        sn->roles[sn->progs[i].role].uncounted += sn->progs[i].f.uncounted;
    if (s->sampled)
        sampler_mode_account(s, dt);
    s->prev_mode = s->mode;
    s->prev_running = s->mode_running;
    s->t_prev = now_s;
    s->sampled = true;
    return sn;
}

/* Adds to *dead what the sampled figure lacks to reach want (nothing when it is not short). */
static void sampler_top_up(uint64_t *dead, uint64_t sampled, uint64_t want)
{
    *dead += want > sampled ? want - sampled : 0;
}

int sampler_set_exit(struct sampler *s, uint32_t prog, uint32_t run, const struct sampler_exit *x)
{
    if (prog >= s->nprogs || !s->progs[prog].base_open || s->progs[prog].base_run != run)
        return -ESRCH;
    /* A scan first: members that vanished since the last sample hand over their figures, so
       that only what no sample saw is topped up. */
    int rc = sampler_scan(s);
    if (rc < 0)
        return rc;
    struct sampler_progstate *ps = &s->progs[prog];
    struct sampler_fig now;
    sampler_prog_sampled(s, prog, &now);
    uint64_t tick = (uint64_t)s->tick;
    sampler_top_up(&ps->dead.utime, stats_delta(now.utime, ps->base.utime),
                   x->utime_us * tick / 1000000u);
    sampler_top_up(&ps->dead.stime, stats_delta(now.stime, ps->base.stime),
                   x->stime_us * tick / 1000000u);
    sampler_top_up(&ps->dead.vol, stats_delta(now.vol, ps->base.vol), x->nvcsw);
    sampler_top_up(&ps->dead.invol, stats_delta(now.invol, ps->base.invol), x->nivcsw);
    ps->base_open = false;
    return 0;
}

size_t sampler_tree(struct sampler *s, uint32_t prog, int *pids, size_t max)
{
    if (prog >= s->nprogs || sampler_scan(s) < 0)
        return 0;
    size_t n = 0;
    int root = s->progs[prog].root;
    if (root > 0 && sampler_find(s->procs, s->nprocs, root)) {
        if (n < max)
            pids[n] = root;
        n++;
    }
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].prog == (int)prog && s->procs[i].pid != root) {
            if (n < max)
                pids[n] = s->procs[i].pid;
            n++;
        }
    return n;
}
