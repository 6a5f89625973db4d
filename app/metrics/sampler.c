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
#include "procfs.h"
#include "stats.h"
#include "waits.h"

#include "sampler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sampler_open(struct sampler **out, const char *proc_root, uint32_t nprogs, double tick_hz,
                 double now_s)
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
    sampler_fds_init(s);
    sampler_watch_open(s);
    s->rot = (struct rotation){.budget_s = rotation_budget(rotation_share(0), tick_hz),
                               .min_items = SAMPLER_BUDGET_MIN_ITEMS};
    s->nprogs = nprogs;
    s->tick_hz = tick_hz;
    s->t0 = s->t_prev = s->t_ckpt = now_s;
    s->page_size = sysconf(_SC_PAGESIZE);
    s->tick = procfs_tick_hz();
    s->mode = s->prev_mode = -1;
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

void sampler_close(struct sampler *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++)
        sampler_proc_release(s, &s->procs[i]);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->loadavg_fd >= 0)
        close(s->loadavg_fd);
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
    s->progs[prog].t_root = sampler_clock();
    s->progs[prog].run = run;
    /* A pid seen before belonged to another process (or was resolved as a stranger before we
       knew it was ours): forget it so the next scan resolves it again. */
    struct sampler_proc *p = pid > 0 ? sampler_find(s->procs, s->nprocs, pid) : NULL;
    if (p && p->prog != (int)prog) {
        sampler_proc_release(s, p);
        p->prog = SAMPLER_UNKNOWN;
        p->starttime = 0;
        p->t_read = 0;
        s->need_full = true; /* only a whole listing resolves a known pid again */
    }
}

void sampler_set_page(struct sampler *s, uint32_t prog, const struct iolab_page *page,
                      uint32_t nslots)
{
    if (prog >= s->nprogs)
        return;
    struct sampler_progstate *ps = &s->progs[prog];
    if (ps->page) {
        /* The start that wrote it has been reaped: these are its final totals. */
        struct tally_totals last;
        tally_page(ps->page, ps->nslots, &last);
        tally_add(&ps->page_base, &last);
    }
    ps->page = page;
    ps->nslots = page ? nslots : 0;
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

void sampler_set_mode(struct sampler *s, int mode, bool running)
{
    s->mode = mode;
    s->mode_running = running;
}

void sampler_set_budget(struct sampler *s, double core_share, uint32_t min_items)
{
    s->rot.budget_s = rotation_budget(core_share, s->tick_hz);
    s->rot.min_items = min_items;
    s->budget_fixed = true;
}

void sampler_set_paused(struct sampler *s, bool paused)
{
    s->paused = paused;
}

static void sampler_raw_add(struct sampler_raw *a, const struct sampler_raw *b)
{
    sampler_fig_add(&a->fig, &b->fig, true);
    a->fig.rss_bytes += b->fig.rss_bytes;
    a->fig.threads += b->fig.threads;
    a->nprocs += b->nprocs;
    a->zombies += b->zombies;
    if (b->fds > a->fds)
        a->fds = b->fds; /* per process: a role's programs' most, not their sum */
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        a->page.calls[c].count += b->page.calls[c].count;
        a->page.calls[c].bytes += b->page.calls[c].bytes;
        a->page.calls[c].ns += b->page.calls[c].ns;
    }
    a->page.in_flight += b->page.in_flight;
    a->page.waiting += b->page.waiting;
    if (b->page.in_flight_oldest_ns > a->page.in_flight_oldest_ns)
        a->page.in_flight_oldest_ns = b->page.in_flight_oldest_ns;
    for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
        a->page.in_flight_hist[h] += b->page.in_flight_hist[h];
    for (unsigned c = 0; c < IOLAB_FAIL_NCALLS; c++)
        for (unsigned k = 0; k < IOLAB_FAIL_NCAUSES; k++)
            a->page.failed[c][k] += b->page.failed[c][k];
    a->page.shed += b->page.shed;
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
    tally_fd_add(&a->page.fd, &b->page.fd);
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
    f->zombies = now->zombies;
    f->nfds = now->fds;
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
    f->fd = now->page.fd;
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
    /* Requests still waiting count in both, as long as they have waited so far (waits.h). */
    waits_latency(&f->latency_total, now->page.hist, now->page.in_flight_hist);
    stats_hist_sub(s->hist_tmp, now->page.hist, recent_base, IOLAB_HIST_BUCKETS);
    waits_latency(&f->latency_recent, s->hist_tmp, now->page.in_flight_hist);
    f->in_flight = now->page.in_flight;
    f->waiting = now->page.waiting;
    f->in_flight_oldest_ns = now->page.in_flight_oldest_ns;
    memcpy(f->failed, now->page.failed, sizeof f->failed);
    f->failed_total = 0;
    for (unsigned c = 0; c < IOLAB_FAIL_NCALLS; c++)
        for (unsigned k = 0; k < IOLAB_FAIL_NCAUSES; k++)
            f->failed_total += now->page.failed[c][k];
    f->shed = now->page.shed;
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
        sp->sites = ps->now.page.sites;
        struct sampler_cpu_base cpu = sampler_cpu_base(ps, now_s);
        const struct sampler_raw *wb;
        /* Programs' windows move together, so every program's span is the same. */
        span = sampler_window_base(ps, now_s, dt, &wb);
        sampler_figures(s, &sp->f, &ps->now, wb, span, base->hist, &cpu, now_s);
        sp->f.peak_procs = ps->peak_procs;
        sp->f.peak_threads = ps->peak_threads;
        sp->f.proc_age_s = s->age_s[i];
        sp->f.proc_unread = s->unread_n[i];
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
        memcpy(sn->in_flight_hist[r], role_now[r].page.in_flight_hist,
               sizeof sn->in_flight_hist[r]);
        /* Peaks of different programs need not coincide: the sum is an upper bound. */
        sn->roles[r].peak_procs = role_peak_procs[r];
        sn->roles[r].peak_threads = role_peak_threads[r];
        sn->roles[r].proc_age_s = 0;
        sn->roles[r].proc_unread = 0;
    }
    for (uint32_t i = 0; i < s->nprogs; i++) {
        struct snapshot_figures *rf = &sn->roles[s->progs[i].role];
        if (sn->progs[i].f.proc_age_s > rf->proc_age_s)
            rf->proc_age_s = sn->progs[i].f.proc_age_s;
        rf->proc_unread += sn->progs[i].f.proc_unread;
    }
    return span;
}

const struct snapshot *sampler_sample(struct sampler *s, double now_s)
{
    double t_start = sampler_clock();
    s->errors = 0;
    s->nsample++;
    sampler_budget_begin(s);
    if (sampler_watch(s, now_s) < 0)
        s->errors++;
    sampler_read_programs(s, now_s);
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
    sn->overflow_claims = 0;
    for (uint32_t i = 0; i < s->nprogs; i++)
        sn->overflow_claims += s->progs[i].now.page.lost;
    sn->sample_errors = s->errors;
    sn->nprogs = s->nprogs;
    sn->rate_window_s = sampler_figures_all(s, sn, now_s, dt);
    /* Programs the shim never reached, so that a role's empty call table says why. */
    for (int r = 0; r < LESSON_NROLES; r++)
        sn->roles[r].uncounted = 0;
    for (uint32_t i = 0; i < s->nprogs; i++)
        sn->roles[sn->progs[i].role].uncounted += sn->progs[i].f.uncounted;
    s->prev_mode = s->mode;
    s->prev_running = s->mode_running;
    s->t_prev = now_s;
    s->sampled = true;
    sn->sample_cost_s = s->sample_cost_s = sampler_clock() - t_start;
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
    if (x->has_io) {
        sampler_top_up(&ps->dead.rchar, stats_delta(now.rchar, ps->base.rchar), x->rchar);
        sampler_top_up(&ps->dead.wchar, stats_delta(now.wchar, ps->base.wchar), x->wchar);
        sampler_top_up(&ps->dead.syscr, stats_delta(now.syscr, ps->base.syscr), x->syscr);
        sampler_top_up(&ps->dead.syscw, stats_delta(now.syscw, ps->base.syscw), x->syscw);
        sampler_top_up(&ps->dead.read_bytes, stats_delta(now.read_bytes, ps->base.read_bytes),
                       x->read_bytes);
        sampler_top_up(&ps->dead.write_bytes, stats_delta(now.write_bytes, ps->base.write_bytes),
                       x->write_bytes);
    }
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
