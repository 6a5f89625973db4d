/*
 * figure: the span between two snapshots and the table of figures (figure.h).
 */
#include "figure.h"

#include "stats.h"
#include "waits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void snapshot_figures_between(const struct snapshot_figures *a, const struct snapshot_figures *b,
                              struct snapshot_figures *out)
{
    static const struct snapshot_figures zero;
    if (!a)
        a = &zero;
    /* Gauges, rates, latencies and ages are b's; every count below is replaced by its growth. */
    *out = *b;
#define SPAN_D(field) out->field = stats_delta(b->field, a->field)
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        SPAN_D(calls[c].count);
        SPAN_D(calls[c].bytes);
        SPAN_D(calls[c].ns);
    }
    SPAN_D(calls_total);
    out->cpu_user_s = fmax(0, b->cpu_user_s - a->cpu_user_s);
    out->cpu_sys_s = fmax(0, b->cpu_sys_s - a->cpu_sys_s);
    SPAN_D(ctx_voluntary);
    SPAN_D(ctx_involuntary);
    SPAN_D(syscr);
    SPAN_D(syscw);
    SPAN_D(rchar);
    SPAN_D(wchar);
    SPAN_D(read_bytes);
    SPAN_D(write_bytes);
    SPAN_D(lib_reads);
    SPAN_D(lib_writes);
    SPAN_D(requests);
    SPAN_D(app_bytes);
    SPAN_D(conns_opened);
    SPAN_D(conns_closed);
    SPAN_D(errors);
    for (unsigned k = 0; k < IOLAB_FAIL_NCALLS; k++)
        for (unsigned q = 0; q < IOLAB_FAIL_NCAUSES; q++)
            SPAN_D(failed[k][q]);
    SPAN_D(failed_total);
    SPAN_D(shed);
    SPAN_D(uring_submissions);
    SPAN_D(uring_completions);
    SPAN_D(uring_enters);
#undef SPAN_D
    /* The per-descriptor counts are one run of counters: field by field. */
    uint64_t *to = (uint64_t *)&out->fd;
    const uint64_t *fa = (const uint64_t *)&a->fd, *fb = (const uint64_t *)&b->fd;
    for (size_t k = 0; k < sizeof out->fd / sizeof(uint64_t); k++)
        to[k] = stats_delta(fb[k], fa[k]);
}

void span_role_between(const struct snapshot_figures *a, const struct snapshot_figures *b,
                       struct span_role *out)
{
    static const struct snapshot_figures zero;
    if (!a)
        a = &zero;
    struct snapshot_figures d;
    snapshot_figures_between(a, b, &d);
    memset(out, 0, sizeof *out);
    out->requests = d.requests;
    out->bytes = d.app_bytes;
    out->conns = d.conns_opened;
    out->errors = d.errors;
    out->failed = d.failed_total + d.shed;
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        out->calls[c] = d.calls[c].count;
        out->call_bytes[c] = d.calls[c].bytes;
    }
    out->calls_total = d.calls_total;
    out->syscr = d.syscr;
    out->syscw = d.syscw;
    out->rchar = d.rchar;
    out->wchar = d.wchar;
    out->lib_reads = d.lib_reads;
    out->lib_writes = d.lib_writes;
    out->ctx = d.ctx_voluntary + d.ctx_involuntary;
    out->cpu_user_s = d.cpu_user_s;
    out->cpu_sys_s = d.cpu_sys_s;
    /* Whole microseconds of the totals, subtracted (what a check's cpu_ms_per_request reads). */
    double cpu_a = a->cpu_user_s + a->cpu_sys_s, cpu_b = b->cpu_user_s + b->cpu_sys_s;
    out->cpu_us = stats_delta(cpu_b > 0 ? (uint64_t)(cpu_b * 1e6) : 0,
                              cpu_a > 0 ? (uint64_t)(cpu_a * 1e6) : 0);
    out->uring_submissions = d.uring_submissions;
    out->uring_completions = d.uring_completions;
    out->uring_enters = d.uring_enters;
    out->fd = d.fd;
    out->nprocs = d.nprocs;
    out->nthreads = d.nthreads;
    out->zombies = d.zombies;
    out->nfds = d.nfds;
    out->waiting = d.waiting;
}

bool span_role_uncounted(const struct span *s, int role)
{
    if (role < 0 || role >= LESSON_NROLES || s->roles[role].calls_total || s->seconds <= 0)
        return false;
    return s->roles[role].cpu_sys_s >= SPAN_UNCOUNTED_SYS * s->seconds;
}

bool span_role_ring(const struct span *s, int role)
{
    if (role < 0 || role >= LESSON_NROLES)
        return false;
    const struct span_role *r = &s->roles[role];
    return r->uring_enters || r->uring_submissions || r->uring_completions;
}

const char *figure_unit_one(const char *plural, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (!plural || !plural[0]) {
        snprintf(buf, len, "request");
        return buf;
    }
    size_t n = strlen(plural);
    /* English plurals as a pack writes its units: "copies", "passes", "batches", "boxes", and
       the plain "uploads"; a word without a plural ending ("progress") stays as it is. The
       first rule whose ending matches decides. */
    static const struct {
        const char *end, *one;
    } rules[] = {{"ies", "y"}, {"sses", "ss"}, {"shes", "sh"}, {"ches", "ch"},
                 {"xes", "x"}, {"ss", "ss"},   {"s", ""}};
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        size_t el = strlen(rules[k].end);
        if (n > el && !strcmp(plural + n - el, rules[k].end)) {
            snprintf(buf, len, "%.*s%s", (int)(n - el), plural, rules[k].one);
            return buf;
        }
    }
    snprintf(buf, len, "%s", plural);
    return buf;
}

/*
 * The role whose requests and bytes are the load's, the one denominator of every "per request":
 * the client's. A step whose clients publish nothing is measured by its server's count instead:
 * in an exercise, only when no program of the client role is one the learner did not write
 * (copying's client is the learner's own program), so that a reference server's requests (the
 * fd-passing cache's) never stand in for requests the step's client did not get; elsewhere, when
 * no client has published anything and the server has (a client that only makes traffic).
 */
static int span_load_role(const struct snapshot *last, int learner)
{
    if (learner >= 0) {
        for (uint32_t p = 0; p < last->nprogs && p < SNAPSHOT_MAX_PROGS; p++)
            if ((int)p != learner && last->progs[p].role == LESSON_ROLE_CLIENT)
                return LESSON_ROLE_CLIENT;
        return LESSON_ROLE_SERVER;
    }
    const struct snapshot_figures *cb = &last->roles[LESSON_ROLE_CLIENT],
                                  *sb = &last->roles[LESSON_ROLE_SERVER];
    bool quiet_client = !cb->requests && !cb->app_bytes && (sb->requests || sb->app_bytes);
    return quiet_client ? LESSON_ROLE_SERVER : LESSON_ROLE_CLIENT;
}

void span_between(const struct snapshot *first, const struct snapshot *last,
                  const struct span_opts *opts, struct span *out)
{
    int learner = opts ? opts->learner : -1;
    memset(out, 0, sizeof *out);
    out->seconds = fmax(0, last->elapsed_s - (first ? first->elapsed_s : 0));
    for (int r = 0; r < LESSON_NROLES; r++) {
        span_role_between(first ? &first->roles[r] : NULL, &last->roles[r], &out->roles[r]);
        if (learner < 0)
            continue;
        /* The role's requests and bytes are those of the programs the learner did not write. */
        uint64_t req_a = 0, req_b = 0, bytes_a = 0, bytes_b = 0;
        for (uint32_t p = 0; p < last->nprogs && p < SNAPSHOT_MAX_PROGS; p++)
            if ((int)p != learner && last->progs[p].role == (enum lesson_role)r) {
                req_b += last->progs[p].f.requests;
                bytes_b += last->progs[p].f.app_bytes;
            }
        for (uint32_t p = 0; first && p < first->nprogs && p < SNAPSHOT_MAX_PROGS; p++)
            if ((int)p != learner && first->progs[p].role == (enum lesson_role)r) {
                req_a += first->progs[p].f.requests;
                bytes_a += first->progs[p].f.app_bytes;
            }
        out->roles[r].requests = stats_delta(req_b, req_a);
        out->roles[r].bytes = stats_delta(bytes_b, bytes_a);
    }
    out->load_role = span_load_role(last, learner);
    out->requests = out->roles[out->load_role].requests;
    out->bytes = out->roles[out->load_role].bytes;
    static const uint64_t zero_hist[IOLAB_HIST_BUCKETS];
    stats_hist_sub(out->hist, last->latency_hist[LESSON_ROLE_CLIENT],
                   first ? first->latency_hist[LESSON_ROLE_CLIENT] : zero_hist, IOLAB_HIST_BUCKETS);
    span_waits_at(out, last);
}

void span_latency(const struct span *s, struct snapshot_latency *out)
{
    waits_latency(out, s->hist, s->waits);
}

void span_waits_at(struct span *s, const struct snapshot *last)
{
    memcpy(s->waits, last->in_flight_hist[LESSON_ROLE_CLIENT], sizeof s->waits);
    unsigned cap = iolab_hist_bucket((uint64_t)(fmax(s->seconds, 0.001) * 1e9));
    for (unsigned k = cap + 1; k < IOLAB_HIST_BUCKETS; k++) {
        s->waits[cap] += s->waits[k];
        s->waits[k] = 0;
    }
}

static void span_role_add(struct span_role *acc, const struct span_role *d)
{
    acc->requests += d->requests;
    acc->bytes += d->bytes;
    acc->conns += d->conns;
    acc->errors += d->errors;
    acc->failed += d->failed;
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        acc->calls[c] += d->calls[c];
        acc->call_bytes[c] += d->call_bytes[c];
    }
    acc->calls_total += d->calls_total;
    acc->syscr += d->syscr;
    acc->syscw += d->syscw;
    acc->rchar += d->rchar;
    acc->wchar += d->wchar;
    acc->lib_reads += d->lib_reads;
    acc->lib_writes += d->lib_writes;
    acc->ctx += d->ctx;
    acc->cpu_user_s += d->cpu_user_s;
    acc->cpu_sys_s += d->cpu_sys_s;
    acc->cpu_us += d->cpu_us;
    acc->uring_submissions += d->uring_submissions;
    acc->uring_completions += d->uring_completions;
    acc->uring_enters += d->uring_enters;
    /* The per-descriptor counts are one run of counters: field by field. */
    uint64_t *to = (uint64_t *)&acc->fd;
    const uint64_t *add = (const uint64_t *)&d->fd;
    for (size_t k = 0; k < sizeof acc->fd / sizeof(uint64_t); k++)
        to[k] += add[k];
    acc->nprocs = d->nprocs > acc->nprocs ? d->nprocs : acc->nprocs;
    acc->nthreads = d->nthreads > acc->nthreads ? d->nthreads : acc->nthreads;
    acc->zombies = d->zombies > acc->zombies ? d->zombies : acc->zombies;
    acc->nfds = d->nfds > acc->nfds ? d->nfds : acc->nfds;
    acc->waiting = d->waiting > acc->waiting ? d->waiting : acc->waiting;
}

void span_add(struct span *acc, const struct span *d)
{
    acc->seconds += d->seconds;
    for (int r = 0; r < LESSON_NROLES; r++)
        span_role_add(&acc->roles[r], &d->roles[r]);
    acc->load_role = d->load_role;
    acc->requests += d->requests;
    acc->bytes += d->bytes;
    for (unsigned k = 0; k < IOLAB_HIST_BUCKETS; k++)
        acc->hist[k] += d->hist[k];
    memcpy(acc->waits, d->waits, sizeof acc->waits);
}

/* ---- the table ---- */

int figure_role(int role)
{
    return role >= 0 && role < LESSON_NROLES ? role : LESSON_ROLE_SERVER;
}

static const struct span_role *fig_role(const struct span *s, const struct figure_arg *a)
{
    return &s->roles[figure_role(a->role)];
}

/* n / the load's requests (span_load_role): what "per request" means everywhere, in a check as
   in a comparison, a prediction or a sweep; undefined without requests. */
static bool fig_per_request(const struct span *s, double n, double *out)
{
    if (!s->requests)
        return false;
    *out = n / (double)s->requests;
    return true;
}

static uint64_t fig_ctx(const struct span *s)
{
    uint64_t ctx = 0;
    for (int r = 0; r < LESSON_NROLES; r++)
        ctx += s->roles[r].ctx;
    return ctx;
}

static double fig_cpu_s(const struct span *s)
{
    double cpu = 0;
    for (int r = 0; r < LESSON_NROLES; r++)
        cpu += s->roles[r].cpu_user_s + s->roles[r].cpu_sys_s;
    return cpu;
}

static bool fig_seconds(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    *out = s->seconds;
    return true;
}

static bool fig_requests(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->requests;
    return true;
}

static bool fig_bytes(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->bytes;
    return true;
}

/* The role's count of the call (every role's with role -1), on one kind of descriptor when the
   argument names one. */
static double fig_call_count(const struct span *s, const struct figure_arg *a)
{
    if (a->call >= IOLAB_NCALLS)
        return 0;
    if (a->role < 0) {
        struct figure_arg one = *a;
        double sum = 0;
        for (one.role = 0; one.role < LESSON_NROLES; one.role++)
            sum += fig_call_count(s, &one);
        return sum;
    }
    const struct span_role *r = fig_role(s, a);
    if (!a->fd_kind)
        return (double)r->calls[a->call];
    return (double)iolab_fdsplit_count(&r->fd, a->call, (int)a->fd_kind - 1, (int)a->fd_to - 1);
}

static bool fig_calls(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = fig_call_count(s, a);
    return true;
}

static bool fig_check_call_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    return fig_per_request(s, fig_call_count(s, a), out);
}

static bool fig_syscr(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->syscr;
    return true;
}

static bool fig_syscw(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->syscw;
    return true;
}

static bool fig_procs(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->nprocs;
    return true;
}

static bool fig_threads(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->nthreads;
    return true;
}

static bool fig_zombies(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->zombies;
    return true;
}

static bool fig_fds(const struct span *s, const struct figure_arg *a, double *out)
{
    *out = (double)fig_role(s, a)->nfds;
    return true;
}

static bool fig_spawns(const struct span *s, const struct figure_arg *a, double *out)
{
    const struct span_role *r = fig_role(s, a);
    *out = (double)(r->calls[IOLAB_CALL_FORK] + r->calls[IOLAB_CALL_PTHREAD_CREATE]);
    return true;
}

static bool fig_read_size(const struct span *s, const struct figure_arg *a, double *out)
{
    const struct span_role *r = fig_role(s, a);
    *out = r->syscr ? (double)r->rchar / (double)r->syscr : 0;
    return true;
}

static bool fig_read_fill(const struct span *s, const struct figure_arg *a, double *out)
{
    const struct span_role *r = fig_role(s, a);
    double syscr = (double)r->syscr - (double)r->fd.faults[IOLAB_FAULT_SHORT_READ];
    *out = syscr > 0 ? (double)r->rchar / syscr : 0;
    return true;
}

static bool fig_requests_per_s(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    *out = stats_rate(s->requests, s->seconds);
    return true;
}

static bool fig_bytes_per_s(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    *out = stats_rate(s->bytes, s->seconds);
    return true;
}

static bool fig_calls_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    return fig_per_request(s, (double)fig_role(s, a)->calls_total, out);
}

static bool fig_call_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    double n = a->call < IOLAB_NCALLS ? (double)fig_role(s, a)->calls[a->call] : 0;
    return fig_per_request(s, n, out);
}

static bool fig_syscr_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    return fig_per_request(s, (double)fig_role(s, a)->syscr, out);
}

static bool fig_bytes_per_syscr(const struct span *s, const struct figure_arg *a, double *out)
{
    /* No payload read, or no read call: not a size of reads. */
    uint64_t syscr = fig_role(s, a)->syscr;
    *out = syscr ? (double)s->bytes / (double)syscr : 0;
    return *out > 0;
}

static bool fig_ctx_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    return fig_per_request(s, (double)fig_ctx(s), out);
}

static bool fig_cpu_pct(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    *out = s->seconds > 0 ? fig_cpu_s(s) / s->seconds * 100 : 0;
    return true;
}

static bool fig_role_cpu_pct(const struct span *s, const struct figure_arg *a, double *out)
{
    const struct span_role *r = fig_role(s, a);
    *out = s->seconds > 0 ? (r->cpu_user_s + r->cpu_sys_s) / s->seconds * 100 : 0;
    return s->seconds > 0;
}

static bool fig_cpu_ms_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    return fig_per_request(s, (double)fig_role(s, a)->cpu_us / 1000, out);
}

static bool fig_uring_per_req(const struct span *s, const struct figure_arg *a, double *out)
{
    return fig_per_request(s, (double)fig_role(s, a)->uring_enters, out);
}

/* The latency quantiles of the requests answered and of those left waiting (span_latency);
   undefined only when no request was answered or is waiting. A server that leaves every client
   waiting has a latency (the waits'): a chart that wants answered requests under its points
   leaves such a run out itself (chart.h). */
static bool fig_latency(const struct span *s, bool p99, double *out)
{
    struct snapshot_latency lat;
    span_latency(s, &lat);
    if (!lat.samples)
        return false;
    *out = (double)(p99 ? lat.p99_ns : lat.p50_ns) / 1e6;
    return true;
}

static bool fig_p50(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    return fig_latency(s, false, out);
}

static bool fig_p99(const struct span *s, const struct figure_arg *a, double *out)
{
    (void)a;
    return fig_latency(s, true, out);
}

/*
 * The bytes served that the "per byte served" figures divide by: the client's payload bytes (in
 * an exercise, those of the programs the learner did not write), or, when no such program
 * published any, the step's files once each (a step of one program that copies them, whose own
 * word proves nothing). 0: nothing served, the figures are not defined.
 */
static uint64_t fig_served(const struct span *s, const struct figure_arg *a)
{
    uint64_t b = s->roles[LESSON_ROLE_CLIENT].bytes;
    return b ? b : a->files_bytes;
}

/* Whether the kernel counts call's bytes in rchar (read) or wchar (write): the read and write
   families, and sendfile and copy_file_range in both (fs/read_write.c); splice, tee, vmsplice,
   send and recv in neither. */
static void fig_kernel_counts(unsigned call, bool *read, bool *write)
{
    switch (call) {
    case IOLAB_CALL_READ:
    case IOLAB_CALL_READV:
    case IOLAB_CALL_PREAD64:
    case IOLAB_CALL_PREADV:
        *read = true, *write = false;
        return;
    case IOLAB_CALL_WRITE:
    case IOLAB_CALL_WRITEV:
    case IOLAB_CALL_PWRITE64:
    case IOLAB_CALL_PWRITEV:
        *read = false, *write = true;
        return;
    case IOLAB_CALL_SENDFILE:
    case IOLAB_CALL_COPY_FILE_RANGE:
        *read = *write = true;
        return;
    default:
        *read = *write = false;
    }
}

/* The bytes the role's calls moved as its counter page says, no more than the kernel's own byte
   counts of the role allow: a program writes its own slot, so a count the kernel did not see is
   not evidence. */
static double fig_confirmed_bytes(const struct span_role *r, unsigned call)
{
    uint64_t b = r->call_bytes[call];
    bool read, write;
    fig_kernel_counts(call, &read, &write);
    if (read && b > r->rchar)
        b = r->rchar;
    if (write && b > r->wchar)
        b = r->wchar;
    return (double)b;
}

static bool fig_call_bytes_per_byte(const struct span *s, const struct figure_arg *a, double *out)
{
    uint64_t served = fig_served(s, a);
    if (!served || a->call >= IOLAB_NCALLS)
        return false;
    double b = 0;
    if (a->role < 0)
        for (int r = 0; r < LESSON_NROLES; r++)
            b += fig_confirmed_bytes(&s->roles[r], a->call);
    else
        b = fig_confirmed_bytes(fig_role(s, a), a->call);
    *out = b / (double)served;
    return true;
}

static bool fig_unmapped_per_mapped(const struct span *s, const struct figure_arg *a, double *out)
{
    const struct span_role *r = fig_role(s, a);
    if (!r->call_bytes[IOLAB_CALL_MMAP])
        return false;
    *out = (double)r->call_bytes[IOLAB_CALL_MUNMAP] / (double)r->call_bytes[IOLAB_CALL_MMAP];
    return true;
}

static bool fig_rchar_per_byte(const struct span *s, const struct figure_arg *a, double *out)
{
    uint64_t served = fig_served(s, a);
    if (!served)
        return false;
    *out = (double)fig_role(s, a)->rchar / (double)served;
    return true;
}

static bool fig_wchar_per_byte(const struct span *s, const struct figure_arg *a, double *out)
{
    uint64_t served = fig_served(s, a);
    if (!served)
        return false;
    *out = (double)fig_role(s, a)->wchar / (double)served;
    return true;
}

#define C FIGURE_IN_CHECK
#define E FIGURE_IN_EXPECT
#define W FIGURE_IN_SWEEP
/* Every figure once. The check names come first, in the order the loader suggests them. */
static const struct figure_def figures[FIGURE_NIDS] = {
    [FIGURE_SECONDS] = {"seconds", "seconds", "s", FIGURE_NEITHER, C, false, fig_seconds,
                        .said = NULL},
    [FIGURE_REQUESTS] = {"requests", "requests", "requests", FIGURE_HIGHER, C, false, fig_requests,
                         .said = NULL},
    [FIGURE_BYTES] = {"bytes", "bytes", "bytes", FIGURE_HIGHER, C, false, fig_bytes, .said = NULL},
    [FIGURE_EXIT] = {"exit", "exit status", "exit status", FIGURE_NEITHER, C, false, NULL,
                     .said = NULL},
    [FIGURE_OUTPUT] = {"output", "matching lines", "matching lines", FIGURE_NEITHER, C, false, NULL,
                       .said = NULL},
    [FIGURE_SYSCR] = {"syscr", "read system calls", "read system calls", FIGURE_LOWER, C, false,
                      fig_syscr, .said = NULL},
    [FIGURE_SYSCW] = {"syscw", "write system calls", "write system calls", FIGURE_LOWER, C, false,
                      fig_syscw, .said = NULL},
    /* Two figures share this name: a check reads the role's own rchar per read call, a sweep
       the load's payload bytes per read call of its role. */
    [FIGURE_RCHAR_PER_SYSCR] = {"bytes_per_syscr", "bytes per read call",
                                "bytes per read system call", FIGURE_HIGHER, C, false,
                                fig_read_size, .said = NULL},
    [FIGURE_PEAK_PROCS] = {"peak_procs", "processes at once", "processes at once", FIGURE_LOWER, C,
                           false, fig_procs, .said = NULL},
    [FIGURE_READ_FILL] = {"bytes_per_uncut_syscr", "bytes per uncut read call",
                          "bytes per read system call not cut short on purpose", FIGURE_HIGHER, C,
                          false, fig_read_fill, .said = NULL},
    [FIGURE_PEAK_THREADS] = {"peak_threads", "threads at once", "threads at once", FIGURE_LOWER, C,
                             false, fig_threads, .said = NULL},
    [FIGURE_ZOMBIES] = {"zombies", "unreaped children", "unreaped children at once", FIGURE_LOWER,
                        C, false, fig_zombies, .said = NULL},
    [FIGURE_SPAWNS] = {"spawns", "spawns", "fork and pthread_create calls", FIGURE_LOWER, C, false,
                       fig_spawns, .said = NULL},
    [FIGURE_CPU_MS_PER_REQ] = {"cpu_ms_per_request", "CPU per request", "ms of CPU per request",
                               FIGURE_LOWER, C, false, fig_cpu_ms_per_req, .said = NULL},
    [FIGURE_PEAK_FDS] = {"peak_fds", "descriptors open in one process",
                         "descriptors open in one process at once", FIGURE_LOWER, C, false, fig_fds,
                         .said = NULL},
    [FIGURE_CALLS] = {"calls:", "calls", "calls", FIGURE_NEITHER, C, true, fig_calls, .said = NULL},
    [FIGURE_CHECK_CALL_PER_REQ] = {"calls_per_request:", "calls per request", "calls per request",
                                   FIGURE_LOWER, C, true, fig_check_call_per_req, .said = NULL},
    [FIGURE_REQUESTS_PER_S] = {"requests_per_s", "requests/s", "/s", FIGURE_HIGHER, E | W, false,
                               fig_requests_per_s, .said = "requests/s", .show = FIGURE_SHOW_PER_S},
    [FIGURE_BYTES_PER_S] = {"bytes_per_s", "bytes/s", "B/s", FIGURE_HIGHER, E | W, false,
                            fig_bytes_per_s, .show = FIGURE_SHOW_BYTES_PER_S},
    [FIGURE_ALL_CALLS_PER_REQ] = {"calls_per_request", "calls per request", "calls/request",
                                  FIGURE_LOWER, E | W, false, fig_calls_per_req, .said = NULL},
    [FIGURE_ONE_CALL_PER_REQ] = {"calls:NAME/request", "calls per request", "per request",
                                 FIGURE_LOWER, E | W, true, fig_call_per_req, .said = NULL},
    [FIGURE_SYSCR_PER_REQ] = {"syscr_per_request", "read calls per request", "syscr/request",
                              FIGURE_LOWER, W, false, fig_syscr_per_req, .said = NULL},
    [FIGURE_BYTES_PER_SYSCR] = {"bytes_per_syscr", "bytes per read call", "B per read call",
                                FIGURE_HIGHER, W, false, fig_bytes_per_syscr, .said = NULL},
    [FIGURE_CTX_PER_REQ] = {"ctx_per_request", "context switches per request", "switches/request",
                            FIGURE_LOWER, E | W, false, fig_ctx_per_req,
                            .said = "context switches/request"},
    [FIGURE_CPU_PCT] = {"cpu_pct", "CPU", "% CPU", FIGURE_LOWER, E | W, false, fig_cpu_pct,
                        .show = FIGURE_SHOW_PCT},
    [FIGURE_URING_ENTERS_PER_REQ] = {"uring_enters_per_request", "io_uring_enter per request",
                                     "io_uring_enter/request", FIGURE_LOWER, E, false,
                                     fig_uring_per_req,
                                     .said = "io_uring_enter/request (from the demo)"},
    [FIGURE_P50_MS] = {"p50_ms", "median latency", "ms p50", FIGURE_LOWER, E | W, false, fig_p50,
                       .said = "p50 latency", .show = FIGURE_SHOW_MS},
    [FIGURE_P99_MS] = {"p99_ms", "p99 latency", "ms p99", FIGURE_LOWER, E | W, false, fig_p99,
                       .said = "p99 latency", .show = FIGURE_SHOW_MS},
    [FIGURE_CALL_BYTES_PER_BYTE] = {"bytes_per_byte_served:", "bytes moved per byte served",
                                    "bytes moved per byte served", FIGURE_NEITHER, C, true,
                                    fig_call_bytes_per_byte, .said = NULL},
    [FIGURE_RCHAR_PER_BYTE] = {"rchar_per_byte_served", "bytes read per byte served",
                               "bytes read (the kernel's rchar) per byte served", FIGURE_LOWER, C,
                               false, fig_rchar_per_byte, .said = NULL},
    [FIGURE_WCHAR_PER_BYTE] = {"wchar_per_byte_served", "bytes written per byte served",
                               "bytes written (the kernel's wchar) per byte served", FIGURE_LOWER,
                               C, false, fig_wchar_per_byte, .said = NULL},
    [FIGURE_ROLE_CPU_PCT] = {"role_cpu_pct", "CPU of one role", "% of one core", FIGURE_NEITHER, E,
                             false, fig_role_cpu_pct, .said = NULL, .show = FIGURE_SHOW_PCT},
    [FIGURE_UNMAPPED_PER_MAPPED] = {"unmapped_per_mapped", "bytes unmapped per byte mapped",
                                    "bytes munmap() released per byte mmap() mapped", FIGURE_HIGHER,
                                    C, false, fig_unmapped_per_mapped, .said = NULL},
};
#undef C
#undef E
#undef W
#define FIGURE_N (sizeof figures / sizeof *figures)

enum figure_none figure_shown(const struct span *s, enum figure_id id, int role, double *out)
{
    const struct figure_def *f = figure_at(id);
    struct figure_arg arg = {.role = role};
    *out = 0;
    if (id == FIGURE_ALL_CALLS_PER_REQ && span_role_ring(s, role))
        return FIGURE_NONE_RING;
    if (!f || !f->value || !f->value(s, &arg, out)) {
        *out = 0;
        return FIGURE_NONE_NOTHING;
    }
    return FIGURE_HAS_VALUE;
}

bool figure_value(enum figure_id id, const struct span *s, const struct figure_arg *a, double *out)
{
    static const struct figure_arg server = {.role = LESSON_ROLE_SERVER};
    const struct figure_def *f = figure_at(id);
    return f && f->value && f->value(s, a ? a : &server, out);
}

const char *figure_format_si(double v, const char *space, const char *unit, bool fixed, char *buf,
                             size_t len)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T"};
    size_t i = 0;
    double a = fabs(v);
    while (a >= 999.5 && i + 1 < sizeof prefix / sizeof *prefix) {
        v /= 1000;
        a /= 1000;
        i++;
    }
    char num[32];
    if (fixed && i == 0)
        snprintf(num, sizeof num, a < 10 && v != (double)(long long)v ? "%.1f" : "%.0f", v);
    else if (fixed)
        snprintf(num, sizeof num, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", v);
    else if (a >= 99.95 || (i == 0 && v == (double)(long long)v))
        snprintf(num, sizeof num, "%.0f", v);
    else
        snprintf(num, sizeof num, "%.3g", v);
    snprintf(buf, len, "%s%s%s%s", num, space ? space : "", prefix[i], unit ? unit : "");
    return buf;
}

const char *figure_format_ns(double ns, char *buf, size_t len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.3g us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g s", ns / 1e9);
    return buf;
}

const char *figure_format_show(enum figure_show show, double v, char *buf, size_t len)
{
    switch (show) {
    case FIGURE_SHOW_PER_S:
        return figure_format_si(v, "", "/s", false, buf, len);
    case FIGURE_SHOW_BYTES_PER_S:
        return figure_format_si(v, " ", "B/s", false, buf, len);
    case FIGURE_SHOW_MS:
        return figure_format_ns(v * 1e6, buf, len);
    case FIGURE_SHOW_PCT:
        snprintf(buf, len, "%.0f%%", v);
        return buf;
    case FIGURE_SHOW_PLAIN:
    default:
        return figure_format_si(v, "", "", false, buf, len);
    }
}

const char *figure_format(enum figure_id id, double v, char *buf, size_t len)
{
    const struct figure_def *f = figure_at(id);
    return figure_format_show(f ? f->show : FIGURE_SHOW_PLAIN, v, buf, len);
}

const struct figure_def *figure_at(enum figure_id id)
{
    return (unsigned)id < FIGURE_N ? &figures[id] : NULL;
}

enum figure_id figure_id_of(const struct figure_def *f)
{
    return (enum figure_id)(f - figures);
}

size_t figure_count(void)
{
    return FIGURE_N;
}

static bool figure_call(const char *label, size_t len, unsigned *call)
{
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        if (strlen(iolab_call_info[c].label) == len &&
            !strncmp(label, iolab_call_info[c].label, len)) {
            *call = c;
            return true;
        }
    return false;
}

const struct figure_def *figure_find(const char *name, unsigned *call)
{
    return figure_find_in(name, FIGURE_IN_CHECK | FIGURE_IN_EXPECT | FIGURE_IN_SWEEP, call);
}

const struct figure_def *figure_find_in(const char *name, unsigned where, unsigned *call)
{
    if (!name)
        return NULL;
    unsigned dummy;
    if (!call)
        call = &dummy;
    for (size_t i = 0; i < FIGURE_N; i++)
        if (!figures[i].per_call && (figures[i].where & where) && !strcmp(name, figures[i].name)) {
            *call = 0;
            return &figures[i];
        }
    /* "calls:NAME/request" before "calls:NAME": the longer form ends in "/request". Every
       other per-call name is a prefix ending in ':' followed by the call's label. */
    static const char per_req[] = "/request";
    size_t n = strlen(name), pl = sizeof per_req - 1;
    const struct figure_def *calls = NULL, *call_req = NULL;
    for (size_t i = 0; i < FIGURE_N; i++) {
        if (!figures[i].per_call || !(figures[i].where & where))
            continue;
        size_t fl = strlen(figures[i].name);
        if (!strcmp(figures[i].name, "calls:"))
            calls = &figures[i];
        else if (fl && figures[i].name[fl - 1] != ':')
            call_req = &figures[i];
        else if (!strncmp(name, figures[i].name, fl))
            return figure_call(name + fl, n - fl, call) ? &figures[i] : NULL;
    }
    if (strncmp(name, "calls:", 6))
        return NULL;
    if (n > 6 + pl && !strcmp(name + n - pl, per_req))
        return call_req && figure_call(name + 6, n - 6 - pl, call) ? call_req : NULL;
    return calls && figure_call(name + 6, n - 6, call) ? calls : NULL;
}
